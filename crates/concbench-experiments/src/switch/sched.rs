//! The scheduling policy a switch experiment runs under: `other` (the default, CFS/EEVDF) or
//! `fifo` (SCHED_FIFO, as seed S3 intended). SCHED_FIFO needs root or CAP_SYS_NICE; without it
//! the variant is skipped with a reason.
//!
//! Only blocking hand-overs run under SCHED_FIFO: a real-time thread that spins or yields can
//! starve everything else on its CPU.

use anyhow::Result;
use concbench_core::{Host, Support};

/// The real-time priority used: the lowest, enough to run ahead of every SCHED_OTHER task.
pub const FIFO_PRIORITY: i32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sched {
    Other,
    Fifo,
}

impl Sched {
    /// The value of `params.sched`.
    pub fn as_str(self) -> &'static str {
        match self {
            Sched::Other => "other",
            Sched::Fifo => "fifo",
        }
    }

    pub fn supported(self, host: &Host) -> Support {
        match self {
            Sched::Fifo if !host.can_sched_fifo => Support::No(
                "needs root or CAP_SYS_NICE with an RLIMIT_RTPRIO above 0 to use SCHED_FIFO: \
                 run with sudo, or `sudo setcap cap_sys_nice+ep target/release/concbench`"
                    .to_string(),
            ),
            _ => Support::Yes,
        }
    }

    /// Put the calling thread under this policy.
    pub fn enter(self) -> Result<()> {
        match self {
            Sched::Other => Ok(()),
            Sched::Fifo => concbench_sys::sched::set_fifo(FIFO_PRIORITY),
        }
    }

    /// Return the calling thread to SCHED_OTHER if [`Sched::enter`] changed it.
    pub fn leave(self) -> Result<()> {
        match self {
            Sched::Other => Ok(()),
            Sched::Fifo => concbench_sys::sched::set_other(),
        }
    }
}
