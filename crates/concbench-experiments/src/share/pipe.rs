//! `share.pipe.process`: a message goes to another process through a pipe (the classic IPC); the
//! receiver reads all of it and acknowledges with one byte through a second pipe.

use super::exchange::Link;
use super::message::intact;
use crate::support::fd::{pipe, read_full, write_all};
use anyhow::{bail, Context, Result};
use concbench_core::Meta;
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

pub struct PipeLink {
    receiver: Child,
    data: OwnedFd,
    ack: OwnedFd,
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

impl Link for PipeLink {
    fn meta() -> &'static Meta {
        &META
    }

    fn open(bytes: u64, cpu: Option<usize>) -> Result<Self> {
        let (data_r, data) = pipe()?;
        let (ack, ack_w) = pipe()?;
        // The closure (and with it the parent's copies of the receiver's ends) is dropped here
        // once the child is forked.
        let receiver = concbench_sys::fork_child(move || receive(data_r, ack_w, bytes, cpu))?;
        Ok(Self {
            receiver,
            data,
            ack,
        })
    }

    fn exchange(&self, msg: &[u8]) -> Result<()> {
        write_all(self.data.as_fd(), msg).context("sending")?;
        if read_full(self.ack.as_fd(), &mut [0u8; 1])? != 1 {
            bail!("the receiving process is gone");
        }
        Ok(())
    }

    fn partner_pid(&self) -> Option<i32> {
        Some(self.receiver.pid())
    }

    /// Dropping the child kills and reaps it.
    fn close(self) -> Result<()> {
        Ok(())
    }
}
