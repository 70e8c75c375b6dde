//! Resource usage readings: getrusage for this process and its reaped children, `/proc` for
//! children still alive (which RUSAGE_CHILDREN cannot see yet).

use concbench_core::Usage;

fn timeval_ns(tv: libc::timeval) -> f64 {
    tv.tv_sec as f64 * 1e9 + tv.tv_usec as f64 * 1e3
}

fn rusage(who: libc::c_int) -> Usage {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one rusage into the valid pointer; `who` is a RUSAGE_* constant.
    let rc = unsafe { libc::getrusage(who, &mut ru) };
    if rc != 0 {
        return Usage::default();
    }
    Usage {
        voluntary_switches: ru.ru_nvcsw as f64,
        involuntary_switches: ru.ru_nivcsw as f64,
        minor_faults: ru.ru_minflt as f64,
        major_faults: ru.ru_majflt as f64,
        user_ns: timeval_ns(ru.ru_utime),
        sys_ns: timeval_ns(ru.ru_stime),
    }
}

/// This process (all its threads) plus every child it has reaped.
pub fn process_usage() -> Usage {
    rusage(libc::RUSAGE_SELF).plus(&rusage(libc::RUSAGE_CHILDREN))
}

/// Reaped children only (with every descendant they reaped in turn): read around the reaping
/// of a child to get that child's whole tree's CPU time, at microsecond resolution.
pub fn children_usage() -> Usage {
    rusage(libc::RUSAGE_CHILDREN)
}

/// The calling thread only.
pub fn thread_usage() -> Usage {
    rusage(libc::RUSAGE_THREAD)
}

/// A live process's usage from `/proc/<pid>/stat` and `/proc/<pid>/status`, summed over its
/// threads for CPU time and faults; context switches are the main thread's (what the kernel
/// reports in `status`). `None` when the process is gone.
pub fn pid_usage(pid: i32) -> Option<Usage> {
    let p = procfs::process::Process::new(pid).ok()?;
    let stat = p.stat().ok()?;
    let status = p.status().ok()?;
    let tick_ns = 1e9 / procfs::ticks_per_second() as f64;
    Some(Usage {
        voluntary_switches: status.voluntary_ctxt_switches.unwrap_or(0) as f64,
        involuntary_switches: status.nonvoluntary_ctxt_switches.unwrap_or(0) as f64,
        minor_faults: stat.minflt as f64,
        major_faults: stat.majflt as f64,
        user_ns: stat.utime as f64 * tick_ns,
        sys_ns: stat.stime as f64 * tick_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeping_counts_a_voluntary_switch() {
        let before = thread_usage();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let after = thread_usage();
        assert!(after.since(&before).voluntary_switches >= 1.0);
    }

    #[test]
    fn own_pid_is_readable() {
        let u = pid_usage(std::process::id() as i32).expect("own /proc entry");
        assert!(u.voluntary_switches >= 0.0);
    }
}
