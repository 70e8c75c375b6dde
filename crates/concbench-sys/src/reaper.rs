//! A process that adopts its orphans: when a holder of thousands of forked processes is killed
//! (the kernel's out-of-memory killer, Ctrl-C), its children die with it (`PR_SET_PDEATHSIG`)
//! but are still zombies that hold their pids until some parent reaps them. Marked a child
//! subreaper, concbench becomes that parent instead of init (which, in a container, may not reap
//! at all) and reaps them itself.

use std::time::{Duration, Instant};

/// Make this process the reaper of its descendants' orphans (`PR_SET_CHILD_SUBREAPER`).
pub fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) changes only this process's attribute.
    match unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Reap every child that has ended, waiting up to `patience` for the ones still dying, until
/// this process has no child left. Returns how many were reaped.
///
/// Call it only when no child of this process is meant to outlive it (every `Child` handle is
/// gone): it reaps whatever child ends, which would take another handle's exit status.
pub fn reap_orphans(patience: Duration) -> usize {
    let deadline = Instant::now() + patience;
    let mut reaped = 0;
    loop {
        // SAFETY: waitpid with a null status pointer and WNOHANG only reaps an ended child.
        let rc = unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) };
        match rc {
            p if p > 0 => reaped += 1,
            // Children left, none ended yet: they are dying (SIGKILL takes a moment).
            0 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            // No child at all (ECHILD), or out of patience.
            _ => return reaped,
        }
    }
}
