//! `switch.pipe.process`: two processes pass a 1-byte token through two pipes (seed S3, and what
//! `perf bench sched pipe` does). The partner is a forked child; its context switches come from
//! `/proc/<pid>/status`, read outside the timed region, so switches per operation count both
//! sides.

use super::pingpong::{self, PartnerKind};
use super::setting::{Setting, Sweep};
use super::working_set::WorkingSet;
use crate::support::handover::{pipe_pair, PipeEnd};
use anyhow::Result;
use concbench_core::{Experiment, Meta, Usage};
use concbench_sys::{fork_child, Child};

const META: Meta = Meta {
    id: "switch.pipe.process",
    family: "switch",
    title: "Process switch: 1-byte token through two pipes",
    op: "one one-way hand-over (write 1 byte, the other process wakes and reads it)",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

/// The partner as a forked child process.
pub struct ProcessPartner {
    child: Child,
}

impl PartnerKind<PipeEnd> for ProcessPartner {
    fn start(end: PipeEnd, setting: Setting, cpu: Option<usize>) -> Result<Self> {
        // The child allocates its own working set after the fork: pages shared copy-on-write
        // with the parent's would be the same physical memory, evicting nothing.
        let child = fork_child(move || {
            let served = crate::support::partner::pin_to(cpu)
                .and_then(|()| setting.sched.enter())
                .and_then(|()| pingpong::serve(end, &WorkingSet::new(setting.working_set_kib)));
            i32::from(served.is_err())
        })?;
        Ok(Self { child })
    }

    fn live_usage(&self) -> Option<Usage> {
        concbench_measure::usage::pid_usage(self.child.pid())
    }

    fn stop(mut self) -> Result<()> {
        // The child also holds the parent's ends (inherited), so it would not see end-of-file:
        // kill and reap it.
        self.child.kill()
    }
}

pub fn variants() -> Vec<Box<dyn Experiment>> {
    pingpong::variants::<PipeEnd, ProcessPartner>(
        &META,
        pipe_pair,
        Sweep {
            fifo: true,
            working_sets: true,
            quick_working_sets: true,
        },
    )
}
