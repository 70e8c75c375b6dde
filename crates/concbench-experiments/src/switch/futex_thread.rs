//! `switch.futex.thread`: two threads hand a turn over through one shared word with raw
//! `FUTEX_WAKE` / `FUTEX_WAIT` — the cheapest blocking hand-over Linux has, with no spinning
//! (so on one CPU every hand-over must block).

use super::pingpong::{self, ThreadPartner};
use super::setting::Sweep;
use crate::support::handover::{futex_pair, FutexEnd};
use concbench_core::{Experiment, Meta};

const META: Meta = Meta {
    id: "switch.futex.thread",
    family: "switch",
    title: "Thread switch: futex wait/wake",
    op: "one one-way hand-over (store the turn, FUTEX_WAKE; the other thread returns from FUTEX_WAIT)",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

pub fn variants() -> Vec<Box<dyn Experiment>> {
    pingpong::variants::<FutexEnd, ThreadPartner>(
        &META,
        futex_pair,
        Sweep {
            fifo: true,
            working_sets: false,
            quick_working_sets: false,
        },
    )
}
