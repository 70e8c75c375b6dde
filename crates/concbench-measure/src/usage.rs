//! Resource usage readings: getrusage for this process and its reaped children, `/proc` for
//! children still alive (which RUSAGE_CHILDREN cannot see yet), bytes read from storage devices
//! (`/proc/*/io`) and the machine's CPU time split (`/proc/stat`, for iowait).

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

/// Whose storage reads [`device_read_bytes`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoScope {
    /// The whole process: every thread, those that exited, and reaped children.
    Process,
    /// The calling thread only.
    Thread,
}

/// Bytes this process (or thread) caused to be fetched from a block device (`read_bytes` in
/// `/proc/<pid>/io`): page-cache hits do not count, so this tells a cold read from a warm one.
/// `None` when the kernel has no task IO accounting.
pub fn device_read_bytes(scope: IoScope) -> Option<u64> {
    // Parsed by hand: procfs's `Process::io` needs a pid, and `thread-self` has none.
    let path = match scope {
        IoScope::Process => "/proc/self/io",
        IoScope::Thread => "/proc/thread-self/io",
    };
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("read_bytes:"))
        .and_then(|v| v.trim().parse().ok())
}

/// The machine's CPU time since boot, in clock ticks, summed over CPUs (`/proc/stat`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SystemCpu {
    /// Time spent running anything: user, nice, system, irq, softirq.
    pub busy: u64,
    pub iowait: u64,
    /// Time the hypervisor ran something else while this guest wanted the CPU.
    pub steal: u64,
    pub total: u64,
}

impl SystemCpu {
    /// Share of CPU time spent idle with IO outstanding between two readings (0 when no tick
    /// passed).
    pub fn iowait_share_since(&self, earlier: &SystemCpu) -> f64 {
        let total = self.total.saturating_sub(earlier.total);
        if total == 0 {
            return 0.0;
        }
        self.iowait.saturating_sub(earlier.iowait) as f64 / total as f64
    }

    /// Share of CPU time stolen by the hypervisor between two readings (0 when no tick passed).
    pub fn steal_share_since(&self, earlier: &SystemCpu) -> f64 {
        let total = self.total.saturating_sub(earlier.total);
        if total == 0 {
            return 0.0;
        }
        self.steal.saturating_sub(earlier.steal) as f64 / total as f64
    }
}

/// Read `/proc/stat`'s aggregate `cpu` line; `None` when it is unreadable.
pub fn system_cpu() -> Option<SystemCpu> {
    use procfs::CurrentSI;
    let t = procfs::KernelStats::current().ok()?.total;
    let opt = |v: Option<u64>| v.unwrap_or(0);
    Some(SystemCpu {
        busy: t.user + t.nice + t.system + opt(t.irq) + opt(t.softirq),
        iowait: opt(t.iowait),
        steal: opt(t.steal),
        total: t.user
            + t.nice
            + t.system
            + t.idle
            + opt(t.iowait)
            + opt(t.irq)
            + opt(t.softirq)
            + opt(t.steal),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_share_is_the_stolen_fraction_of_elapsed_ticks() {
        let a = SystemCpu {
            busy: 0,
            iowait: 0,
            steal: 10,
            total: 1000,
        };
        let b = SystemCpu {
            busy: 0,
            iowait: 0,
            steal: 40,
            total: 1200,
        };
        assert!((b.steal_share_since(&a) - 0.15).abs() < 1e-12);
        assert_eq!(a.steal_share_since(&a), 0.0);
    }

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

    #[test]
    fn device_read_bytes_are_readable_and_never_decrease() {
        let before = device_read_bytes(IoScope::Thread);
        let _ = std::fs::read("/proc/self/status").unwrap();
        let after = device_read_bytes(IoScope::Thread);
        if let (Some(b), Some(a)) = (before, after) {
            assert!(a >= b);
        }
        assert!(device_read_bytes(IoScope::Process).is_some());
    }

    #[test]
    fn system_cpu_ticks_advance_and_iowait_share_is_a_fraction() {
        let a = system_cpu().expect("/proc/stat");
        std::thread::sleep(std::time::Duration::from_millis(30));
        let b = system_cpu().unwrap();
        assert!(b.total >= a.total);
        let share = b.iowait_share_since(&a);
        assert!((0.0..=1.0).contains(&share));
        assert_eq!(a.iowait_share_since(&a), 0.0);
    }
}
