//! `switch.yield.thread`: two threads on one CPU take turns by calling `sched_yield` — a switch
//! with no wake-up at all (both stay runnable), so it shows the scheduler's own cost.
//!
//! Same CPU only: on two CPUs each thread has its own CPU and a yield returns without switching.
//! A yield that switches is counted by the kernel as an *involuntary* switch (the thread stays
//! runnable); the switches-per-operation check counts those too.

use super::pingpong::round_trips;
use crate::support::event::{AutoResetEvent, EventFd};
use crate::support::partner::{pin_to, Partner};
use crate::support::repeat;
use anyhow::Result;
use concbench_core::{Meta, RunContext, RunOutput, SampleTimer, Staged};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const META: Meta = Meta {
    id: "switch.yield.thread",
    family: "switch",
    title: "Thread switch: sched_yield between two threads on one CPU",
    op: "one one-way switch (a thread calls sched_yield and the other runs)",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

/// The partner yields only while a sample runs, so it does not compete with the harness.
pub struct Gate {
    go: EventFd,
    active: AtomicBool,
    stop: AtomicBool,
}

/// Registered as `Stages<Yield>`: the state is the gate and the partner thread behind it.
pub struct Yield;

fn partner_loop(gate: &Gate) -> Result<()> {
    loop {
        gate.go.wait()?;
        if gate.stop.load(Ordering::Acquire) {
            return Ok(());
        }
        while gate.active.load(Ordering::Acquire) {
            concbench_sys::via_libc::sched_yield();
        }
    }
}

impl Staged for Yield {
    type State = (Arc<Gate>, Partner);

    fn meta(&self) -> &Meta {
        &META
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<Self::State> {
        let gate = Arc::new(Gate {
            go: EventFd::new()?,
            active: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        });
        let g = gate.clone();
        let cpu = ctx.partner_placement_cpu();
        let partner = Partner::spawn(
            "yield-partner",
            move || pin_to(cpu),
            move || partner_loop(&g),
        )?;
        Ok((gate, partner))
    }

    fn run(
        &mut self,
        (gate, _): &mut Self::State,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        gate.active.store(true, Ordering::Release);
        gate.go.set()?;
        timer.restart();
        // Each yield by this thread is a round trip: here -> partner -> here.
        repeat(ctx, round_trips(iterations), |_| {
            concbench_sys::via_libc::sched_yield();
            Ok(())
        })?;
        timer.stop();
        gate.active.store(false, Ordering::Release);
        Ok(RunOutput::default())
    }

    fn teardown(&mut self, (gate, partner): Self::State, _ctx: &RunContext) -> Result<()> {
        gate.active.store(false, Ordering::Release);
        gate.stop.store(true, Ordering::Release);
        gate.go.set()?;
        partner.join()
    }
}
