//! A process tree's counters from `/proc`: every descendant of a root process (a server and its
//! workers), their CPU time, context switches and proportional memory (PSS).
//!
//! CPU time of each live process is the larger of two readings: its live threads'
//! `sum_exec_runtime` (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds), and its own
//! `utime + stime` (`/proc/<pid>/stat`, clock ticks), which also holds the threads that have
//! ended. Neither alone will do: the tick count is truncated to 10 ms a process, so a thousand
//! workers that each ran 0.3 ms would add up to nothing; the live threads lose every thread
//! that ended (a JVM's or a load generator's), so a server's CPU would seem to fall and the
//! run would count what it lost as another program's load (regression: rounds 2-3 of a
//! resident server were excluded as "interference" of 0.35-0.72 CPUs). To that is added every
//! process's reaped children (`cutime + cstime`): a child reaped by a process of the tree is
//! counted by its reaper until that reaper is reaped in turn, so nothing is counted twice. The
//! user/system split is the kernel's tick-sampled ratio applied to that total (all system time
//! when no tick was sampled: serving sockets is mostly kernel work). Context switches are
//! summed over the live threads (`status`); a thread that ended takes its switches with it (use
//! [`crate::usage::children_usage`] after reaping the root for a whole life's counts).

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
    let (mut run_ns, mut user_ticks, mut sys_ticks) = (0.0, 0.0, 0.0);
    for pid in descendants(root) {
        let Ok(p) = procfs::process::Process::new(pid) else {
            continue;
        };
        let mut ticks_ns = 0.0;
        if let Ok(stat) = p.stat() {
            // Reaped children exist only as these tick counts (`i64` in procfs, never negative).
            let (reaped_user, reaped_sys) = (stat.cutime.max(0) as f64, stat.cstime.max(0) as f64);
            user_ticks += stat.utime as f64 + reaped_user;
            sys_ticks += stat.stime as f64 + reaped_sys;
            ticks_ns = (stat.utime + stat.stime) as f64 * tick_ns;
            run_ns += (reaped_user + reaped_sys) * tick_ns;
            total.minor_faults += stat.minflt as f64;
            total.major_faults += stat.majflt as f64;
        }
        let mut threads_ns = 0.0;
        if let Ok(tasks) = p.tasks() {
            for t in tasks.flatten() {
                if let Ok(status) = t.status() {
                    total.voluntary_switches += status.voluntary_ctxt_switches.unwrap_or(0) as f64;
                    total.involuntary_switches +=
                        status.nonvoluntary_ctxt_switches.unwrap_or(0) as f64;
                }
                if let Ok(ss) = t.schedstat() {
                    threads_ns += ss.sum_exec_runtime as f64;
                }
            }
        }
        run_ns += threads_ns.max(ticks_ns);
    }
    let ticks = user_ticks + sys_ticks;
    let user_share = if ticks > 0.0 { user_ticks / ticks } else { 0.0 };
    total.user_ns = run_ns * user_share;
    total.sys_ns = run_ns - total.user_ns;
    total
}

/// Run time, in nanoseconds, of the threads of the tree under `root` whose name (`comm`, 15
/// bytes at most) starts with one of `names`: a JVM's JIT compiler threads ("C1 CompilerThre",
/// "C2 CompilerThre"), say. Read over a window, it is the share of a CPU they took.
pub fn named_threads_run_ns(root: i32, names: &[&str]) -> f64 {
    let mut run_ns = 0.0;
    for pid in descendants(root) {
        let Ok(tasks) = procfs::process::Process::new(pid).and_then(|p| p.tasks()) else {
            continue;
        };
        for t in tasks.flatten() {
            let named = t
                .stat()
                .is_ok_and(|st| names.iter().any(|n| st.comm.starts_with(n)));
            if named {
                if let Ok(ss) = t.schedstat() {
                    run_ns += ss.sum_exec_runtime as f64;
                }
            }
        }
    }
    run_ns
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

    /// CPU time the calling thread has used, ns.
    fn thread_cpu_ns() -> f64 {
        crate::usage::thread_usage().user_ns + crate::usage::thread_usage().sys_ns
    }

    #[test]
    fn a_thread_that_ended_keeps_its_cpu_time_in_the_tree() {
        // Regression: the tree summed its live threads only, so a resident server whose
        // threads ended seemed to use less CPU than before, and the run counted the
        // difference as another program's load.
        let me = std::process::id() as i32;
        let before = tree_usage(me);
        let burned = std::thread::spawn(|| {
            let mut x = 0u64;
            while thread_cpu_ns() < 300e6 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            thread_cpu_ns()
        })
        .join()
        .unwrap();
        let after = tree_usage(me);
        let gained = (after.user_ns + after.sys_ns) - (before.user_ns + before.sys_ns);
        // The ended thread's time, less at most two 10 ms ticks of truncation.
        assert!(
            gained >= burned - 20e6,
            "the tree gained {gained} ns, the ended thread ran {burned} ns"
        );
    }

    #[test]
    fn a_forked_child_is_a_descendant_with_memory() {
        // In a forked child, so no sibling test changes this process's PSS between the two
        // readings compared below (see forked_check).
        crate::forked_check::in_forked_child(|| {
            let me = std::process::id() as i32;
            // A sleep is a voluntary switch for certain: the tree's count below cannot be 0.
            std::thread::sleep(std::time::Duration::from_millis(1));
            let child = concbench_sys::fork_child(|| {
                std::thread::sleep(std::time::Duration::from_secs(5));
                0
            })
            .map_err(|e| format!("{e:#}"))?;
            let tree = descendants(me);
            let checks = [
                (tree[0] == me, "the tree starts at its root"),
                (tree.contains(&child.pid()), "the child is in the tree"),
                (
                    tree_pss_kib(me) > pss_kib(me).unwrap_or(u64::MAX),
                    "the tree holds more than its root",
                ),
                (
                    tree_usage(me).voluntary_switches > 0.0,
                    "the tree counted switches",
                ),
            ];
            match checks.iter().find(|(ok, _)| !ok) {
                None => Ok(()),
                Some((_, what)) => Err(format!("not true: {what} ({tree:?})")),
            }
        })
        .unwrap();
    }
}
