//! `create.async_task`: an async task spawned onto a single-threaded tokio runtime and awaited —
//! allocation of the task, one trip through the scheduler, completion and join.

use crate::support::Prepared;
use anyhow::Result;
use concbench_core::{Experiment, Meta, RunContext, RunOutput, SampleTimer};

const META: Meta = Meta {
    id: "create.async_task",
    family: "create",
    title: "Async task (tokio current-thread): spawn + await",
    op: "tokio::spawn(async {}) then .await its JoinHandle, on a current-thread runtime",
    unit: "ns",
    expected_switches_per_op: None,
};

#[derive(Default)]
pub struct AsyncTask {
    runtime: Prepared<tokio::runtime::Runtime>,
}

impl Experiment for AsyncTask {
    fn meta(&self) -> &Meta {
        &META
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        self.runtime.set(crate::support::runtime::current_thread()?);
        Ok(())
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let rt = self.runtime.get()?;
        rt.block_on(async {
            for _ in 0..iterations {
                tokio::spawn(async {}).await?;
            }
            Ok::<_, tokio::task::JoinError>(())
        })?;
        Ok(RunOutput::default())
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        self.runtime = Prepared::empty();
        Ok(())
    }
}
