//! `switch.eventfd.thread`: seed S1's auto-reset-event hand-over between two threads, with the
//! event as a kernel object (an eventfd per direction), like the Windows event the seed used.

use super::pingpong::{self, ThreadPartner};
use super::setting::Sweep;
use crate::support::event::EventFd;
use crate::support::handover::{event_pair, EventEnd};
use concbench_core::{Experiment, Meta};

const META: Meta = Meta {
    id: "switch.eventfd.thread",
    family: "switch",
    title: "Thread switch: auto-reset event (eventfd)",
    op: "one one-way hand-over (set the other thread's eventfd; it returns from read)",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

pub fn variants() -> Vec<Box<dyn Experiment>> {
    pingpong::variants::<EventEnd<EventFd>, ThreadPartner>(
        &META,
        event_pair::<EventFd>,
        Sweep::PLACEMENTS_ONLY,
    )
}
