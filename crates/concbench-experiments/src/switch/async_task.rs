//! `switch.async_task`: two tokio tasks on a current-thread runtime hand a value back and forth
//! through two channels. One operation is one hand-over: a task sends, awaits the reply, and the
//! runtime polls the other task — a switch done by the async runtime, not by the kernel.

use super::pingpong::round_trips;
use crate::support::runtime::OnRuntime;
use anyhow::{Context, Result};
use concbench_core::{Meta, RunOutput, SampleTimer};
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

const META: Meta = Meta {
    id: "switch.async_task",
    family: "switch",
    title: "Async task switch (two tokio tasks, current-thread runtime)",
    op: "one one-way hand-over: a task sends a value on a channel and the other task is polled",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Registered as `Async<AsyncTask>`, which owns the runtime ([`crate::support::runtime::Async`]).
#[derive(Default)]
pub struct AsyncTask;

/// Send `0..rounds` to the echo task, waiting for each reply.
async fn ping(
    rounds: u64,
    to_echo: mpsc::Sender<u64>,
    mut replies: mpsc::Receiver<u64>,
) -> Result<()> {
    for i in 0..rounds {
        to_echo.send(i).await.context("the echo task is gone")?;
        replies.recv().await.context("the echo task is gone")?;
    }
    Ok(())
}

/// Send every value back until the ping task hangs up.
async fn echo(mut requests: mpsc::Receiver<u64>, to_ping: mpsc::Sender<u64>) {
    while let Some(v) = requests.recv().await {
        if to_ping.send(v).await.is_err() {
            return;
        }
    }
}

impl OnRuntime for AsyncTask {
    fn meta(&self) -> &Meta {
        &META
    }

    fn run_on(
        &self,
        rt: &Runtime,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        rt.block_on(async {
            let (to_echo, requests) = mpsc::channel(1);
            let (to_ping, replies) = mpsc::channel(1);
            let echo = tokio::spawn(echo(requests, to_ping));
            let ping = tokio::spawn(ping(round_trips(iterations), to_echo, replies));
            // On a current-thread runtime the tasks first run at this await.
            timer.restart();
            let pinged = ping.await;
            timer.stop();
            echo.await.context("the echo task panicked")?;
            pinged.context("the ping task panicked")?
        })?;
        Ok(RunOutput::default())
    }
}
