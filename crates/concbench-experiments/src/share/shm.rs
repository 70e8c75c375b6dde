//! `share.shm.process`: a message goes to another process through shared memory: the sender
//! copies it into a MAP_SHARED region and bumps a counter the receiver sleeps on (futex); the
//! receiver checks it in place and bumps the acknowledgement counter the sender sleeps on.
//! Shared (not process-private) futexes, since two address spaces wait on the same page.

use super::exchange::Link;
use super::message::intact;
use super::region::{Region, STOP};
use anyhow::{Context, Result};
use concbench_core::Meta;
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

pub struct ShmLink {
    /// Declared before the region: dropped (killed and reaped) before the region is unmapped.
    receiver: Child,
    region: Region,
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

impl Link for ShmLink {
    fn meta() -> &'static Meta {
        &META
    }

    fn open(bytes: u64, cpu: Option<usize>) -> Result<Self> {
        let region = Region::new(bytes as usize)?;
        let receiver = concbench_sys::fork_child(|| receive(&region, bytes, cpu))?;
        Ok(Self { receiver, region })
    }

    fn exchange(&self, msg: &[u8]) -> Result<()> {
        let h = self.region.header();
        self.region.write(msg);
        h.len.store(msg.len() as u64, Ordering::Relaxed);
        let acked = h.acked.load(Ordering::Acquire);
        h.sent.fetch_add(1, Ordering::Release);
        futex::wake(&h.sent, futex::Flags::empty(), 1).context("futex wake")?;
        wait_change(&h.acked, acked);
        Ok(())
    }

    fn partner_pid(&self) -> Option<i32> {
        Some(self.receiver.pid())
    }

    /// Dropping the child kills and reaps it; then the region is unmapped.
    fn close(self) -> Result<()> {
        Ok(())
    }
}
