//! Family `share`: what moving data between units costs (seed S0.table, row "data sharing"):
//! processes through a pipe and through shared memory, threads through a channel; per-message
//! latency, with throughput derived from it.

mod channel;
mod exchange;
mod message;
mod pipe;
mod region;
mod shm;

use concbench_core::Experiment;
use exchange::Exchange;
use message::{PLACEMENTS, SIZES};

pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    for placement in PLACEMENTS {
        for bytes in SIZES {
            v.push(Box::new(Exchange::<pipe::PipeLink>::new(bytes, placement)));
            v.push(Box::new(Exchange::<shm::ShmLink>::new(bytes, placement)));
            v.push(Box::new(Exchange::<channel::ChannelLink>::new(
                bytes, placement,
            )));
        }
    }
    v
}
