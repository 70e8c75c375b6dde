//! `switch.condvar.thread`: seed S1's auto-reset-event hand-over between two threads, with the
//! event in user space (a `Mutex<bool>` and a `Condvar` per direction, futex-based).

use super::pingpong::{self, ThreadPartner};
use super::setting::Sweep;
use crate::support::event::CondvarEvent;
use crate::support::handover::{event_pair, EventEnd};
use concbench_core::{Experiment, Meta};

const META: Meta = Meta {
    id: "switch.condvar.thread",
    family: "switch",
    title: "Thread switch: auto-reset event (mutex + condvar)",
    op: "one one-way hand-over (set the other thread's flag and notify; it returns from wait)",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

pub fn variants() -> Vec<Box<dyn Experiment>> {
    pingpong::variants::<EventEnd<CondvarEvent>, ThreadPartner>(
        &META,
        event_pair::<CondvarEvent>,
        Sweep::PLACEMENTS_ONLY,
    )
}
