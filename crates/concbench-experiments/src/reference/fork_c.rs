//! `reference.fork_c`: `create.fork`'s operation — fork, the child `_exit(0)`s, the parent
//! `waitpid()`s it — in a plain C loop (`c/fork_loop.c`, -O2) called from the worker. The
//! experiment is `create::fork::Fork::c_loop()`: the same setup (heap trimmed), the same shape
//! counters, the same harness; only the loop around the fork is C's.

use anyhow::{bail, Result};
use concbench_core::Meta;

pub(crate) const META: Meta = Meta {
    id: "reference.fork_c",
    family: super::FAMILY,
    title: "C fork loop in the worker (the reference create.fork is paired with)",
    op: "fork(), child _exit(0), parent waitpid(), in a C loop",
    unit: "ns",
    expected_switches_per_op: None,
};

extern "C" {
    /// `c/fork_loop.c`: `n` forks, each reaped before the next; 0, or -1 with errno set.
    fn concbench_fork_loop(n: std::ffi::c_ulong) -> std::ffi::c_int;
}

/// `n` forks in the C loop.
pub(crate) fn forks_in_c(n: u64) -> Result<()> {
    let n = std::ffi::c_ulong::try_from(n)?;
    // SAFETY: the C loop's children call only _exit, which is async-signal-safe, so forking
    // from the worker (which may hold other threads) is sound; it touches no Rust state.
    if unsafe { concbench_fork_loop(n) } != 0 {
        bail!("fork/waitpid: {}", std::io::Error::last_os_error());
    }
    Ok(())
}
