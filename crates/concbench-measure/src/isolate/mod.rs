//! One fresh worker process per variant (lmbench runs every benchmark as its own program).
//!
//! Why: process state leaks between experiments and biases them. On a 2-CPU VM a process that
//! has *ever* had a second thread forks about 30% slower for the rest of its life; heaps grow,
//! glibc caches thread stacks, and a SIGSEGV in one experiment would end the whole run. The
//! coordinator ([`supervisor`]) sends a [`Job`] to a worker ([`worker`]) on stdin and reads
//! [`WorkerMessage`]s back, one JSON object per line.

pub mod supervisor;
pub mod worker;

use crate::harness::{HarnessConfig, HarnessEvent};
use concbench_core::{Host, Outcome};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the coordinator asks one worker to measure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    /// Position of the variant in the registry's `all()`.
    pub index: usize,
    /// The variant's id, checked by the worker against its registry.
    pub id: String,
    pub config: HarnessConfig,
    pub host: Host,
    pub scratch_dir: PathBuf,
    pub options: BTreeMap<String, String>,
}

/// One line from a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerMessage {
    Progress { event: HarnessEvent },
    Outcome { outcome: Outcome },
}
