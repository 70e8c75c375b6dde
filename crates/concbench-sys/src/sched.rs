//! Scheduling policy: SCHED_FIFO for the real-time variants of seed S3 (root-only).

use anyhow::{bail, Result};

/// Switch the calling thread to SCHED_FIFO at `priority` (1..=99).
///
/// Fails with EPERM for ordinary users; callers detect that up front with [`can_use_fifo`] and
/// report the variant as skipped.
pub fn set_fifo(priority: i32) -> Result<()> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: sched_setscheduler reads a valid, initialised sched_param; pid 0 is the caller.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    if rc != 0 {
        bail!(
            "sched_setscheduler(SCHED_FIFO, {priority}): {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// Return the calling thread to SCHED_OTHER.
pub fn set_other() -> Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: as in set_fifo.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &param) };
    if rc != 0 {
        bail!(
            "sched_setscheduler(SCHED_OTHER): {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// Whether this process may use SCHED_FIFO: tried on a short-lived thread so the caller's own
/// policy is never touched.
pub fn can_use_fifo() -> bool {
    std::thread::spawn(|| set_fifo(1).is_ok())
        .join()
        .unwrap_or(false)
}
