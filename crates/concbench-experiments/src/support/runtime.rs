//! The async runtime the async-task experiments run on: tokio's current-thread scheduler, so a
//! task switch is the runtime's own work on one OS thread, never a hand-over between threads.
//!
//! Those experiments differ only in what a sample does on the runtime ([`OnRuntime`]); the
//! runtime's life (built in `setup`, dropped in `teardown`) is [`Async`]'s, written once.

use anyhow::{Context, Result};
use concbench_core::{Meta, RunContext, RunOutput, SampleTimer, Staged, Stages};
use tokio::runtime::{Builder, Runtime};

pub fn current_thread() -> Result<Runtime> {
    Builder::new_current_thread()
        .build()
        .context("building a current-thread tokio runtime")
}

/// What one sample of an async experiment does on its runtime.
pub trait OnRuntime: Send {
    fn meta(&self) -> &Meta;

    /// Perform `iterations` operations on `rt`, timed through `timer`.
    fn run_on(
        &self,
        rt: &Runtime,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput>;
}

/// An [`OnRuntime`] experiment with its current-thread runtime, one per round; registered as
/// [`Async::new`] (a [`Stages`] holds the runtime between `setup` and `teardown`).
pub struct Async<B>(B);

impl<B: OnRuntime> Async<B> {
    pub fn new(bench: B) -> Stages<Self> {
        Stages::new(Self(bench))
    }
}

impl<B: OnRuntime> Staged for Async<B> {
    type State = Runtime;

    fn meta(&self) -> &Meta {
        self.0.meta()
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<Runtime> {
        current_thread()
    }

    fn run(
        &mut self,
        rt: &mut Runtime,
        _ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        self.0.run_on(rt, iterations, timer)
    }
}
