//! What the harness tells an experiment about the run it is part of.

use crate::{host::Host, placement::Placement};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set when the user pressed Ctrl-C (or the process got SIGTERM). Long experiments poll it and
/// return early; the harness then tears down and stops the run.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }
    /// A token backed by a flag that a signal handler sets.
    pub fn from_flag(flag: Arc<AtomicBool>) -> Self {
        Self(flag)
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// `Err` when cancelled, for `?` inside loops.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.is_cancelled() {
            anyhow::bail!("interrupted");
        }
        Ok(())
    }
}

/// The run-wide settings and this variant's placement.
#[derive(Debug, Clone)]
pub struct RunContext {
    /// `--quick`: short samples, fewer repetitions, smaller sweeps.
    pub quick: bool,
    /// `--smoke` (tests): one repetition of a handful of iterations, to prove an experiment runs.
    pub smoke: bool,
    /// Effective placement of this variant.
    pub placement: Placement,
    /// The CPUs assigned to this variant: `[primary]` for same-cpu, `[primary, partner]` for
    /// cross-cpu, empty when unpinned. The harness has already pinned the calling thread to
    /// `cpus[0]`; the experiment pins its partners.
    pub cpus: Vec<usize>,
    pub cancel: CancelToken,
    pub host: Arc<Host>,
    /// A directory experiments may write scratch files into (removed at the end of the run).
    pub scratch_dir: PathBuf,
    /// Family-specific options from the command line (`io-dir`, `keep-io-files`, ...).
    pub options: std::collections::BTreeMap<String, String>,
}

impl RunContext {
    /// The partner CPU for cross-cpu variants, if one was assigned.
    pub fn partner_cpu(&self) -> Option<usize> {
        self.cpus.get(1).copied()
    }
    /// The CPU the calling thread is pinned to, if any.
    pub fn primary_cpu(&self) -> Option<usize> {
        self.cpus.first().copied()
    }
    /// The CPU a partner unit should be pinned to under this placement: the same CPU for
    /// same-cpu, the second CPU for cross-cpu, none when unpinned.
    pub fn partner_placement_cpu(&self) -> Option<usize> {
        match self.placement {
            Placement::SameCpu => self.primary_cpu(),
            Placement::CrossCpu => self.partner_cpu(),
            Placement::Unpinned => None,
        }
    }
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }
}
