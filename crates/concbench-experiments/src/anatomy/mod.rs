//! Family `anatomy` (opt-in: runs only when named, `concbench run --only anatomy`): what a
//! switch and a fork are made of — no other benchmark tool shows the parts.
//!
//! * the anatomy of a hand-over, layer by layer, is computed by `concbench-analysis::anatomy`
//!   from results that differ by one factor: `syscall.getppid` (the system-call floor),
//!   `transport` (the hand-over's two system calls in one thread), `switch.pipe.thread` /
//!   `switch.futex.thread` (a switch between threads), `switch.pipe.process` (the extra for
//!   processes, the working-set sweep, and the wake-up on another CPU per pair class), and
//!   `switch.wake.thread` (the wake-up of a thread on another CPU per idle condition: free, held
//!   awake, deeper states disabled). Selecting this family selects those variants too
//!   ([`is_input`]);
//! * `victim`: what a preemption costs the work it interrupts;
//! * `parent`: fork, vfork and posix_spawn from parents of growing size, with and without
//!   transparent huge pages, and from a parent with many threads;
//! * `evidence`: the hand-over seen by the scheduler's tracepoints and the hardware counters.

mod evidence;
mod parent;
mod transport;
mod victim;

use concbench_core::{Experiment, Placement};

pub const FAMILY: &str = "anatomy";
/// `params` key: the kind of partner (`thread` or `process`).
pub const PARTNER: &str = "partner";

pub use evidence::{HW_COUNTERS, ID as HANDOVER, SCHED_TRACEPOINTS};
pub use parent::{ANON_HUGE_MIB, FORK, PARENT_MIB, PARENT_THREADS, POSIX_SPAWN, THP, VFORK};
pub use transport::{ID as TRANSPORT, MECHANISM};
pub use victim::{ID as VICTIM, PERIOD_US, PREEMPTIONS_PER_OP, WORKING_SET_KIB};

/// A partner unit: a thread of the measuring process, or a forked process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartnerKind {
    Thread,
    Process,
}

impl PartnerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PartnerKind::Thread => "thread",
            PartnerKind::Process => "process",
        }
    }
}

pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    v.extend(transport::variants());
    v.extend(victim::variants());
    v.extend(parent::variants());
    v.extend(evidence::variants());
    v
}

/// Whether a variant of another family is one of the anatomy's layers, so `--only anatomy`
/// measures it too (in the same run, interleaved with the rest when there are rounds): the
/// system-call floor, the plain same-CPU thread switches by pipe and futex, and the process
/// pipe switch — same CPU at every working set, and across CPUs on every pair class — and the
/// thread wake-up across CPUs under every idle condition this machine can make.
pub fn is_input(e: &dyn Experiment) -> bool {
    let p = e.params();
    let plain = p.get_str("sched") == Some("other");
    let same_cpu = e.placement() == Placement::SameCpu;
    let no_working_set = p.get_f64("working_set_kib") == Some(0.0);
    match e.meta().id {
        "syscall.getppid" | "switch.wake.thread" => true,
        "switch.pipe.thread" | "switch.futex.thread" => plain && same_cpu && no_working_set,
        "switch.pipe.process" => {
            plain && (same_cpu || (e.placement() == Placement::CrossCpu && no_working_set))
        }
        _ => false,
    }
}
