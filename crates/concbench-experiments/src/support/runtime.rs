//! The async runtime the async-task experiments run on: tokio's current-thread scheduler, so a
//! task switch is the runtime's own work on one OS thread, never a hand-over between threads.
//!
//! Those experiments differ only in what a sample does on the runtime ([`OnRuntime`]); the
//! runtime's life (built in `setup`, dropped in `teardown`) is [`Async`]'s, written once.

use super::Prepared;
use anyhow::{Context, Result};
use concbench_core::{Experiment, Meta, RunContext, RunOutput, SampleTimer};
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

/// An [`OnRuntime`] experiment with its current-thread runtime, one per round.
#[derive(Default)]
pub struct Async<B> {
    bench: B,
    runtime: Prepared<Runtime>,
}

impl<B: OnRuntime> Async<B> {
    pub fn new(bench: B) -> Self {
        Self {
            bench,
            runtime: Prepared::empty(),
        }
    }
}

impl<B: OnRuntime> Experiment for Async<B> {
    fn meta(&self) -> &Meta {
        self.bench.meta()
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        self.runtime.set(current_thread()?);
        Ok(())
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        self.bench.run_on(self.runtime.get()?, iterations, timer)
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        self.runtime.release();
        Ok(())
    }
}
