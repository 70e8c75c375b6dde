//! How much more this process may create before a limit refuses: tasks (processes and threads
//! count alike), memory maps and memory. Read live, right before an experiment that creates
//! hundreds or thousands of units, so it can skip or cap itself with a reason instead of
//! running into the limit (and taking other programs of the same user down with it).

use concbench_core::Host;
use procfs::Current;
use std::fs;

/// One limit on how many more tasks can exist, and how many it still allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headroom {
    /// What limits, and how a user raises it ("RLIMIT_NPROC (ulimit -u)").
    pub limit: String,
    /// How many more units it allows now.
    pub free: u64,
}

fn read_u64(path: &str) -> Option<u64> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Tasks in the whole system (the second number of /proc/loadavg's "running/total").
pub fn system_tasks() -> Option<u64> {
    let text = fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace()
        .nth(3)?
        .split_once('/')?
        .1
        .parse()
        .ok()
}

/// Tasks (threads) owned by this real uid: what RLIMIT_NPROC counts.
pub fn own_user_tasks() -> Option<u64> {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let mut n = 0;
    for p in procfs::process::all_processes().ok()?.flatten() {
        if let Ok(s) = p.status() {
            if s.ruid == uid {
                n += s.threads;
            }
        }
    }
    Some(n)
}

/// The tightest `pids.max` over this process's groups (v1 or v2), with its count and where it
/// is set.
fn cgroup_pids() -> Option<(u64, u64, std::path::PathBuf)> {
    let found = crate::cgroup::limits::pids(&crate::cgroup::Hierarchy::live())?;
    Some((found.value.max, found.value.current, found.at))
}

/// Every task limit that applies, with what it still allows.
pub fn task_headroom(host: &Host) -> Vec<Headroom> {
    let mut out = Vec::new();
    let total = system_tasks();
    if let (Some(limit), false) = (host.rlimit_nproc, host.is_root) {
        if let Some(used) = own_user_tasks() {
            out.push(Headroom {
                limit: format!("RLIMIT_NPROC (ulimit -u) of {limit}"),
                free: limit.saturating_sub(used),
            });
        }
    }
    if let (Some(max), Some(used)) = (host.threads_max, total) {
        out.push(Headroom {
            limit: format!("kernel.threads-max of {max}"),
            free: max.saturating_sub(used),
        });
    }
    if let (Some(max), Some(used)) = (read_u64("/proc/sys/kernel/pid_max"), total) {
        out.push(Headroom {
            limit: format!("kernel.pid_max of {max}"),
            free: max.saturating_sub(used),
        });
    }
    if let Some((max, used, at)) = cgroup_pids() {
        out.push(Headroom {
            limit: format!("the cgroup's pids.max of {max} ({})", at.display()),
            free: max.saturating_sub(used),
        });
    }
    out
}

/// Memory maps this process may still create (vm.max_map_count minus its current maps); every
/// thread stack or coroutine stack with a guard page takes two.
pub fn map_headroom() -> Option<Headroom> {
    let max = read_u64("/proc/sys/vm/max_map_count")?;
    let used = fs::read_to_string("/proc/self/maps").ok()?.lines().count() as u64;
    Some(Headroom {
        limit: format!("vm.max_map_count of {max}"),
        free: max.saturating_sub(used),
    })
}

/// Memory available now (MemAvailable), KiB.
pub fn memory_available_kib() -> Option<u64> {
    procfs::Meminfo::current()
        .ok()?
        .mem_available
        .map(|b| b / 1024)
}

/// The tightest of `limits` after keeping `margin` of each free (a fraction, e.g. 0.1 keeps
/// 10% of what each allows, and at least 64 units, for everything else the user runs).
pub fn tightest(limits: &[Headroom], margin: f64) -> Option<Headroom> {
    limits
        .iter()
        .map(|h| {
            let keep = ((h.free as f64 * margin) as u64).max(64);
            Headroom {
                limit: h.limit.clone(),
                free: h.free.saturating_sub(keep),
            }
        })
        .min_by_key(|h| h.free)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_some_headroom() {
        let host = crate::host::collect();
        let limits = task_headroom(&host);
        assert!(
            !limits.is_empty(),
            "threads-max and pid_max are always readable"
        );
        assert!(limits.iter().all(|h| h.free > 0), "{limits:?}");
        assert!(map_headroom().unwrap().free > 0);
        assert!(memory_available_kib().unwrap() > 0);
    }

    #[test]
    fn tightest_keeps_a_margin_and_names_the_limit() {
        let limits = [
            Headroom {
                limit: "a".into(),
                free: 1000,
            },
            Headroom {
                limit: "b".into(),
                free: 500,
            },
            Headroom {
                limit: "c".into(),
                free: 30,
            },
        ];
        let t = tightest(&limits[..2], 0.1).unwrap();
        assert_eq!((t.limit.as_str(), t.free), ("b", 436));
        assert_eq!(tightest(&limits, 0.1).unwrap().free, 0);
        assert!(tightest(&[], 0.1).is_none());
    }
}
