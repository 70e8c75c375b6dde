//! `share.pipe.process`: a message goes to another process through a pipe (the classic IPC); the
//! receiver reads all of it and acknowledges with one byte through a second pipe.

use super::message::{self, intact};
use crate::support::fd::{pipe, read_full, write_all};
use anyhow::{bail, Context, Result};
use concbench_core::{Experiment, Meta, Params, Placement, RunContext, RunOutput, SampleTimer};
use concbench_sys::Child;
use rustix::fd::{AsFd, OwnedFd};

const META: Meta = Meta {
    id: "share.pipe.process",
    family: "share",
    title: "Process to process through a pipe",
    op: "write a message of `bytes` into a pipe, the receiving process reads it all and \
         acknowledges with 1 byte through a second pipe",
    unit: "ns",
    expected_switches_per_op: None,
};

pub struct PipeShare {
    bytes: u64,
    placement: Placement,
    msg: Vec<u8>,
    /// (receiver, data write end, ack read end)
    link: Option<(Child, OwnedFd, OwnedFd)>,
}

impl PipeShare {
    pub fn new(bytes: u64, placement: Placement) -> Self {
        Self {
            bytes,
            placement,
            msg: Vec::new(),
            link: None,
        }
    }
}

/// The receiving process: read whole messages, acknowledge each; exit code 2 on a bad message.
fn receive(data: OwnedFd, ack: OwnedFd, bytes: u64, cpu: Option<usize>) -> i32 {
    if cpu.is_some_and(|c| concbench_sys::pin_current_thread(c).is_err()) {
        return 1;
    }
    let mut buf = vec![0u8; bytes as usize];
    loop {
        match read_full(data.as_fd(), &mut buf) {
            Ok(0) => return 0,
            Ok(n) if n == buf.len() && intact(&buf, bytes) => {}
            _ => return 2,
        }
        if write_all(ack.as_fd(), b"k").is_err() {
            return 1;
        }
    }
}

impl Experiment for PipeShare {
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
        let (data_r, data_w) = pipe()?;
        let (ack_r, ack_w) = pipe()?;
        let (bytes, cpu) = (self.bytes, ctx.partner_placement_cpu());
        let child = concbench_sys::fork_child(move || receive(data_r, ack_w, bytes, cpu))?;
        self.link = Some((child, data_w, ack_r));
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let (child, data, ack) = self.link.as_ref().context("setup did not run")?;
        let before = concbench_measure::usage::pid_usage(child.pid());
        crate::support::repeat(ctx, iterations, |_| {
            write_all(data.as_fd(), &self.msg).context("sending")?;
            let mut k = [0u8; 1];
            if read_full(ack.as_fd(), &mut k)? != 1 {
                bail!("the receiving process is gone");
            }
            Ok(())
        })?;
        let after = concbench_measure::usage::pid_usage(child.pid());
        let mut out = message::output(self.bytes);
        out.extra_usage = before.zip(after).map(|(b, a)| a.since(&b));
        Ok(out)
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        // Dropping the child kills and reaps it.
        self.link = None;
        Ok(())
    }
}
