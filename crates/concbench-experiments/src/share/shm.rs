//! `share.shm.process`: a message goes to another process through shared memory: the sender
//! copies it into a MAP_SHARED region and bumps a counter the receiver sleeps on (futex); the
//! receiver checks it in place and bumps the acknowledgement counter the sender sleeps on.
//! Shared (not process-private) futexes, since two address spaces wait on the same page.

use super::message::{self, intact};
use super::region::{Region, STOP};
use anyhow::{Context, Result};
use concbench_core::{Experiment, Meta, Params, Placement, RunContext, RunOutput, SampleTimer};
use concbench_sys::Child;
use rustix::thread::futex;
use std::sync::atomic::{AtomicU32, Ordering};

const META: Meta = Meta {
    id: "share.shm.process",
    family: "share",
    title: "Process to process through shared memory (futex hand-over)",
    op: "copy a message of `bytes` into a MAP_SHARED region, wake the receiving process (futex), \
         wait for its acknowledgement (futex)",
    unit: "ns",
    expected_switches_per_op: None,
};

pub struct ShmShare {
    bytes: u64,
    placement: Placement,
    msg: Vec<u8>,
    link: Option<(Child, Region)>,
}

impl ShmShare {
    pub fn new(bytes: u64, placement: Placement) -> Self {
        Self {
            bytes,
            placement,
            msg: Vec::new(),
            link: None,
        }
    }
}

/// Sleep until `word` no longer holds `seen`; returns the new value.
fn wait_change(word: &AtomicU32, seen: u32) -> u32 {
    loop {
        let now = word.load(Ordering::Acquire);
        if now != seen {
            return now;
        }
        // EAGAIN (changed meanwhile) and EINTR both just mean: look again.
        let _ = futex::wait(word, futex::Flags::empty(), seen, None);
    }
}

/// The receiving process: wait for each message, check it in place, acknowledge it.
fn receive(region: &Region, bytes: u64, cpu: Option<usize>) -> i32 {
    if cpu.is_some_and(|c| concbench_sys::pin_current_thread(c).is_err()) {
        return 1;
    }
    let h = region.header();
    let mut seen = 0;
    loop {
        seen = wait_change(&h.sent, seen);
        let len = h.len.load(Ordering::Acquire);
        if len == STOP {
            return 0;
        }
        if !intact(region.read(len as usize), bytes) {
            return 2;
        }
        h.acked.fetch_add(1, Ordering::Release);
        let _ = futex::wake(&h.acked, futex::Flags::empty(), 1);
    }
}

impl Experiment for ShmShare {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        message::params(self.bytes)
    }

    fn placement(&self) -> Placement {
        self.placement
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        self.msg = message::message(self.bytes);
        let region = Region::new(self.bytes as usize)?;
        let (bytes, cpu) = (self.bytes, ctx.partner_placement_cpu());
        let child = concbench_sys::fork_child(|| receive(&region, bytes, cpu))?;
        self.link = Some((child, region));
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let (child, region) = self.link.as_ref().context("setup did not run")?;
        let h = region.header();
        let before = concbench_measure::usage::pid_usage(child.pid());
        crate::support::repeat(ctx, iterations, |_| {
            region.write(&self.msg);
            h.len.store(self.bytes, Ordering::Relaxed);
            let acked = h.acked.load(Ordering::Acquire);
            h.sent.fetch_add(1, Ordering::Release);
            futex::wake(&h.sent, futex::Flags::empty(), 1).context("futex wake")?;
            wait_change(&h.acked, acked);
            Ok(())
        })?;
        let after = concbench_measure::usage::pid_usage(child.pid());
        let mut out = message::output(self.bytes);
        out.extra_usage = before.zip(after).map(|(b, a)| a.since(&b));
        Ok(out)
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        // Dropping the child kills and reaps it; then the region is unmapped.
        self.link = None;
        Ok(())
    }
}
