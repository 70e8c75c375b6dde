//! A process tree's counters from `/proc`: every descendant of a root process (a server and its
//! workers), their CPU time, context switches and proportional memory (PSS).
//!
//! CPU time comes from `/proc/<pid>/stat` in clock ticks (10 ms at USER_HZ=100), summed over
//! live processes plus the root's reaped children: fine for samples in which the tree burns
//! hundreds of milliseconds, too coarse for short ones (use [`crate::usage::children_usage`]
//! after reaping the root for microsecond totals). Context switches are summed over every
//! thread of every process (`/proc/<pid>/task/<tid>/status`); threads and processes that ended
//! take theirs with them.

use concbench_core::Usage;
use std::collections::HashMap;

/// `root` and every process descending from it, root first.
pub fn descendants(root: i32) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    if let Ok(all) = procfs::process::all_processes() {
        for p in all.flatten() {
            if let Ok(stat) = p.stat() {
                children.entry(stat.ppid).or_default().push(stat.pid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        if let Some(kids) = children.get(&out[i]) {
            out.extend(kids);
        }
        i += 1;
    }
    out
}

/// CPU time and context switches of the tree under `root` (see the module notes).
pub fn tree_usage(root: i32) -> Usage {
    let tick_ns = 1e9 / procfs::ticks_per_second() as f64;
    let mut total = Usage::default();
    for pid in descendants(root) {
        let Ok(p) = procfs::process::Process::new(pid) else {
            continue;
        };
        if let Ok(stat) = p.stat() {
            let mut user = stat.utime as f64;
            let mut sys = stat.stime as f64;
            if pid == root {
                user += stat.cutime as f64;
                sys += stat.cstime as f64;
            }
            total.user_ns += user * tick_ns;
            total.sys_ns += sys * tick_ns;
            total.minor_faults += stat.minflt as f64;
            total.major_faults += stat.majflt as f64;
        }
        if let Ok(tasks) = p.tasks() {
            for t in tasks.flatten() {
                if let Ok(status) = t.status() {
                    total.voluntary_switches += status.voluntary_ctxt_switches.unwrap_or(0) as f64;
                    total.involuntary_switches +=
                        status.nonvoluntary_ctxt_switches.unwrap_or(0) as f64;
                }
            }
        }
    }
    total
}

/// Proportional set size of the tree under `root`, KiB: each shared page is split among the
/// processes that map it, so the sum is the tree's real footprint (RSS would count a prefork
/// pool's shared pages once per child).
pub fn tree_pss_kib(root: i32) -> u64 {
    descendants(root).into_iter().filter_map(pss_kib).sum()
}

fn pss_kib(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forked_child_is_a_descendant_with_memory() {
        let me = std::process::id() as i32;
        let child = concbench_sys::fork_child(|| {
            std::thread::sleep(std::time::Duration::from_secs(5));
            0
        })
        .unwrap();
        let tree = descendants(me);
        assert_eq!(tree[0], me);
        assert!(tree.contains(&child.pid()));
        assert!(tree_pss_kib(me) > pss_kib(me).unwrap());
        assert!(tree_usage(me).voluntary_switches > 0.0);
    }
}
