//! `switch.pipe.thread`: `switch.pipe.process` between two threads of one process — the same
//! kernel path, without the change of address space.

use super::pingpong::{self, ThreadPartner};
use super::setting::Sweep;
use crate::support::handover::{pipe_pair, PipeEnd};
use concbench_core::{Experiment, Meta};

const META: Meta = Meta {
    id: "switch.pipe.thread",
    family: "switch",
    title: "Thread switch: 1-byte token through two pipes",
    op: "one one-way hand-over (write 1 byte, the other thread wakes and reads it)",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

pub fn variants() -> Vec<Box<dyn Experiment>> {
    pingpong::variants::<PipeEnd, ThreadPartner>(
        &META,
        pipe_pair,
        Sweep {
            fifo: true,
            working_sets: true,
            quick_working_sets: false,
        },
    )
}
