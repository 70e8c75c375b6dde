//! `switch.yield.async_task`: two tokio tasks on a current-thread runtime take turns by
//! yielding (`tokio::task::yield_now`): the runtime's switch from one task to the other with
//! nothing to wake — the async counterpart of `switch.yield.thread`, and the bare switch the
//! answer's table shows beside the hand-over (`switch.async_task`).

use super::pingpong::round_trips;
use crate::support::runtime::OnRuntime;
use anyhow::{Context, Result};
use concbench_core::{Meta, RunOutput, SampleTimer};
use tokio::runtime::Runtime;

const META: Meta = Meta {
    id: "switch.yield.async_task",
    family: "switch",
    title: "Async task switch: yield_now between two tokio tasks (current-thread runtime)",
    op: "one switch from one task to the other: a task yields and the runtime polls the other",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Registered as `Async<YieldAsyncTask>`, which owns the runtime ([`crate::support::runtime::Async`]).
#[derive(Default)]
pub struct YieldAsyncTask;

async fn take_turns(turns: u64) {
    for _ in 0..turns {
        tokio::task::yield_now().await;
    }
}

impl OnRuntime for YieldAsyncTask {
    fn meta(&self) -> &Meta {
        &META
    }

    fn run_on(
        &self,
        rt: &Runtime,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        // Each task yields once per round trip: two switches per round trip, one per operation.
        let turns = round_trips(iterations);
        rt.block_on(async {
            let a = tokio::spawn(take_turns(turns));
            let b = tokio::spawn(take_turns(turns));
            // On a current-thread runtime the tasks first run at this await.
            timer.restart();
            let (a, b) = (a.await, b.await);
            timer.stop();
            a.context("a yielding task panicked")?;
            b.context("a yielding task panicked")
        })?;
        Ok(RunOutput::default())
    }
}
