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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fork_child, Child};

    /// CPU time, ns, of `who` (RUSAGE_SELF or RUSAGE_CHILDREN).
    fn cpu_ns(who: libc::c_int) -> u64 {
        // SAFETY: an all-zero rusage is valid; getrusage writes one into it, which lives across
        // the call.
        let ru = unsafe {
            let mut ru: libc::rusage = std::mem::zeroed();
            libc::getrusage(who, &mut ru);
            ru
        };
        let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
        ns(ru.ru_utime) + ns(ru.ru_stime)
    }

    /// The orphan's own CPU time before it exits.
    const BURN_NS: u64 = 200_000_000;

    #[test]
    fn an_adopted_orphans_cpu_time_reaches_the_reapers_children() {
        // Regression: a server killed with its children unreaped orphaned them to init, and
        // the CPU time they had used left the run's accounting (prefork rounds read 0.9 CPUs
        // of "other processes"). In a forked child, so the test process stays no reaper.
        let mut reaper = fork_child(|| {
            if become_subreaper().is_err() {
                return 2;
            }
            let before = cpu_ns(libc::RUSAGE_CHILDREN);
            // A parent that lets its child end, and exits without reaping it.
            let middle = fork_child(|| {
                let Ok(burner) = fork_child(|| {
                    while cpu_ns(libc::RUSAGE_SELF) < BURN_NS {
                        std::hint::black_box(0u64);
                    }
                    0
                }) else {
                    return 3;
                };
                let pid = burner.into_pid();
                // SAFETY: an all-zero siginfo_t is valid; waitid with WNOWAIT writes into it,
                // waits for the child to end and leaves it unreaped.
                unsafe {
                    let mut info: libc::siginfo_t = std::mem::zeroed();
                    libc::waitid(
                        libc::P_PID,
                        pid as libc::id_t,
                        &mut info,
                        libc::WEXITED | libc::WNOWAIT,
                    )
                };
                0
            });
            let Ok(mut middle) = middle else { return 4 };
            if !middle.wait().is_ok_and(Child::exited_ok) {
                return 5;
            }
            // The burner, a zombie now adopted by this process, is reaped here.
            if reap_orphans(Duration::from_secs(5)) != 1 {
                return 6;
            }
            let gained = cpu_ns(libc::RUSAGE_CHILDREN) - before;
            i32::from(gained < BURN_NS)
        })
        .unwrap();
        let status = reaper.wait().unwrap();
        assert!(
            Child::exited_ok(status),
            "status {}",
            libc::WEXITSTATUS(status)
        );
    }
}
