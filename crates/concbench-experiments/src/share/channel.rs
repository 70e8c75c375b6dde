//! `share.memory.thread`: a message goes to another thread of the same process through a
//! channel (std::sync::mpsc): the sender allocates and fills a `Vec` (its one copy) and sends
//! it — only the pointer moves; the receiver checks it, frees it, and acknowledges through a
//! second channel.

use super::message::{self, intact};
use anyhow::{anyhow, Context, Result};
use concbench_core::{Experiment, Meta, Params, Placement, RunContext, RunOutput, SampleTimer};
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

struct Link {
    data: Sender<Vec<u8>>,
    ack: Receiver<()>,
    receiver: JoinHandle<bool>,
}

pub struct ChannelShare {
    bytes: u64,
    placement: Placement,
    msg: Vec<u8>,
    link: Option<Link>,
}

impl ChannelShare {
    pub fn new(bytes: u64, placement: Placement) -> Self {
        Self {
            bytes,
            placement,
            msg: Vec::new(),
            link: None,
        }
    }
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

impl Experiment for ChannelShare {
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
        let (data_tx, data_rx) = channel();
        let (ack_tx, ack_rx) = channel();
        let (bytes, cpu) = (self.bytes, ctx.partner_placement_cpu());
        let receiver = std::thread::Builder::new()
            .name("share-receiver".into())
            .spawn(move || receive(data_rx, ack_tx, bytes, cpu))
            .context("starting the receiving thread")?;
        self.link = Some(Link {
            data: data_tx,
            ack: ack_rx,
            receiver,
        });
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let link = self.link.as_ref().context("setup did not run")?;
        crate::support::repeat(ctx, iterations, |_| {
            link.data
                .send(self.msg.clone())
                .map_err(|_| anyhow!("the receiving thread is gone"))?;
            link.ack
                .recv()
                .map_err(|_| anyhow!("the receiving thread is gone"))
        })?;
        Ok(message::output(self.bytes))
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        if let Some(link) = self.link.take() {
            drop(link.data);
            let clean = link
                .receiver
                .join()
                .map_err(|_| anyhow!("the receiving thread panicked"))?;
            anyhow::ensure!(clean, "the receiving thread got a damaged message");
        }
        Ok(())
    }
}
