//! `create.thread`: an OS thread created with an empty body and joined, at the platform's default
//! stack size (what pthread_create gives, derived from RLIMIT_STACK) and at a small 64 KiB stack.
//!
//! The stack size is set explicitly in both cases because Rust's own default (2 MiB) is neither.

use crate::support::repeat;
use crate::support::stack::ThreadStack;
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

pub struct Thread {
    stack: ThreadStack,
}

impl Thread {
    pub fn default_stack() -> Self {
        Self {
            stack: ThreadStack::pthread_default(),
        }
    }
    pub fn small_stack() -> Self {
        Self {
            stack: ThreadStack::small(),
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
        self.stack.params()
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let bytes = self.stack.bytes();
        repeat(ctx, iterations, |_| spawn_and_join(bytes))?;
        Ok(RunOutput::default())
    }
}
