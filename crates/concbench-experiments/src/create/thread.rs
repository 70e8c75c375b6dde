//! `create.thread`: an OS thread created with an empty body and joined, at the platform's default
//! stack size (what pthread_create gives, derived from RLIMIT_STACK) and at a small 64 KiB stack.
//!
//! The stack size is set explicitly in both cases because Rust's own default (2 MiB) is neither.

use crate::support::repeat;
use anyhow::{Context, Result};
use concbench_core::{Experiment, Meta, Params, RunContext, RunOutput, SampleTimer};

const META: Meta = Meta {
    id: "create.thread",
    family: "create",
    title: "OS thread: create + join",
    op: "pthread_create (std::thread) of an empty function + join",
    unit: "ns",
    expected_switches_per_op: None,
};

/// The small stack: enough for an empty body, and what thread-per-connection servers use.
pub const SMALL_STACK_KIB: u64 = 64;

pub struct Thread {
    kind: &'static str,
    stack_kib: u64,
}

impl Thread {
    pub fn default_stack() -> Self {
        Self {
            kind: "default",
            stack_kib: concbench_measure::host::default_thread_stack() / 1024,
        }
    }
    pub fn small_stack() -> Self {
        Self {
            kind: "small",
            stack_kib: SMALL_STACK_KIB,
        }
    }
}

/// Create a thread with `stack_bytes` of stack that does nothing, and join it.
pub(crate) fn spawn_and_join(stack_bytes: usize) -> Result<()> {
    std::thread::Builder::new()
        .stack_size(stack_bytes)
        .spawn(|| {})
        .context("creating a thread")?
        .join()
        .map_err(|_| anyhow::anyhow!("an empty thread panicked"))
}

impl Experiment for Thread {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new()
            .with("stack", self.kind)
            .with("stack_kib", self.stack_kib)
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let bytes = (self.stack_kib * 1024) as usize;
        repeat(ctx, iterations, |_| spawn_and_join(bytes))?;
        Ok(RunOutput::default())
    }
}
