//! `share.memory.thread`: a message goes to another thread of the same process through a
//! channel (std::sync::mpsc): the sender allocates and fills a `Vec` (its one copy) and sends
//! it — only the pointer moves; the receiver checks it, frees it, and acknowledges through a
//! second channel.

use super::exchange::Link;
use super::message::intact;
use anyhow::{anyhow, ensure, Context, Result};
use concbench_core::Meta;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

const META: Meta = Meta {
    id: "share.memory.thread",
    family: "share",
    title: "Thread to thread through a channel (shared memory)",
    op: "copy a message of `bytes` into a new Vec, send it over a channel, wait for the \
         receiving thread's acknowledgement on a second channel",
    unit: "ns",
    expected_switches_per_op: None,
};

pub struct ChannelLink {
    data: Sender<Vec<u8>>,
    ack: Receiver<()>,
    receiver: JoinHandle<bool>,
}

/// The receiving thread: true when it ended because the sender hung up, false on a bad message.
fn receive(data: Receiver<Vec<u8>>, ack: Sender<()>, bytes: u64, cpu: Option<usize>) -> bool {
    if cpu.is_some_and(|c| concbench_sys::pin_current_thread(c).is_err()) {
        return false;
    }
    for m in data {
        if !intact(&m, bytes) {
            return false;
        }
        drop(m);
        if ack.send(()).is_err() {
            break;
        }
    }
    true
}

fn gone<E>(_: E) -> anyhow::Error {
    anyhow!("the receiving thread is gone")
}

impl Link for ChannelLink {
    fn meta() -> &'static Meta {
        &META
    }

    fn open(bytes: u64, cpu: Option<usize>) -> Result<Self> {
        let (data, data_rx) = channel();
        let (ack_tx, ack) = channel();
        let receiver = std::thread::Builder::new()
            .name("share-receiver".into())
            .spawn(move || receive(data_rx, ack_tx, bytes, cpu))
            .context("starting the receiving thread")?;
        Ok(Self {
            data,
            ack,
            receiver,
        })
    }

    fn exchange(&self, msg: &[u8]) -> Result<()> {
        self.data.send(msg.to_vec()).map_err(gone)?;
        self.ack.recv().map_err(gone)
    }

    fn partner_pid(&self) -> Option<i32> {
        None
    }

    fn close(self) -> Result<()> {
        drop(self.data);
        let clean = self
            .receiver
            .join()
            .map_err(|_| anyhow!("the receiving thread panicked"))?;
        ensure!(clean, "the receiving thread got a damaged message");
        Ok(())
    }
}
