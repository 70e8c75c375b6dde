//! `create.async_task`: an async task spawned onto a single-threaded tokio runtime and awaited —
//! allocation of the task, one trip through the scheduler, completion and join.

use crate::support::runtime::OnRuntime;
use anyhow::Result;
use concbench_core::{Meta, RunOutput, SampleTimer};
use tokio::runtime::Runtime;

const META: Meta = Meta {
    id: "create.async_task",
    family: "create",
    title: "Async task (tokio current-thread): spawn + await",
    op: "tokio::spawn(async {}) then .await its JoinHandle, on a current-thread runtime",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Registered as `Async<AsyncTask>`, which owns the runtime ([`crate::support::runtime::Async`]).
#[derive(Default)]
pub struct AsyncTask;

impl OnRuntime for AsyncTask {
    fn meta(&self) -> &Meta {
        &META
    }

    fn run_on(
        &self,
        rt: &Runtime,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        rt.block_on(async {
            for _ in 0..iterations {
                tokio::spawn(async {}).await?;
            }
            Ok::<_, tokio::task::JoinError>(())
        })?;
        Ok(RunOutput::default())
    }
}
