//! The limits on how many units can exist here, read (never raised), each with its value and
//! where it is set; how many more tasks the shared ones leave; and which of them stopped a model.
//!
//! Two kinds of limit, treated differently:
//! * **Shared** by the whole machine or user — `kernel.threads-max`, `kernel.pid_max`,
//!   `RLIMIT_NPROC`, a `pids.max` above concbench — are never reached: a model stops while a
//!   margin of each is still free for every other program (10% of what was free, at least 64;
//!   the cell's `pids.max` enforces it), and the answer says where the limit itself is.
//! * **The holder's own** — `vm.max_map_count` (per process), `RLIMIT_AS`, a runtime's heap, the
//!   cell's memory limit — are reached for real: only the holder process is refused.

use concbench_core::capacity::{Limit, Stop, StopKind};
use concbench_measure::headroom::{self, Headroom};

/// Share of a shared limit's free room a model leaves alone (as the experiments' own batches).
pub const MARGIN: f64 = 0.1;

/// The numbers the limits are made of, at one moment. Tests write them by hand.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Readings {
    pub threads_max: Option<u64>,
    pub pid_max: Option<u64>,
    /// Tasks (threads) on the whole machine now.
    pub system_tasks: Option<u64>,
    /// RLIMIT_NPROC's soft limit (`None`: unlimited).
    pub rlimit_nproc: Option<u64>,
    /// Tasks of this real user now (what RLIMIT_NPROC counts).
    pub user_tasks: Option<u64>,
    /// uid 0: RLIMIT_NPROC does not apply (the kernel exempts root).
    pub root: bool,
    /// The tightest `pids.max` over this process's own groups: (max, current, group).
    pub cgroup_pids: Option<(u64, u64, String)>,
    pub max_map_count: Option<u64>,
    /// RLIMIT_AS's soft limit, bytes.
    pub rlimit_as: Option<u64>,
    /// `vm.overcommit_memory` (0 heuristic, 1 always, 2 strict).
    pub overcommit: Option<u8>,
    /// CommitLimit and Committed_AS, KiB (they decide only in mode 2).
    pub commit: Option<(u64, u64)>,
    /// RLIMIT_STACK's soft limit: the stack a thread reserves by default, bytes.
    pub stack: Option<u64>,
    /// The tightest memory limit over this process's own groups: (bytes, group).
    pub cgroup_memory: Option<(u64, String)>,
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

pub use concbench_measure::headroom::system_tasks;
use concbench_measure::host::soft_limit;

fn meminfo_kib(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(name))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

impl Readings {
    /// Everything, read now.
    pub fn read() -> Readings {
        use concbench_measure::cgroup::{limits, Hierarchy};
        let h = Hierarchy::live();
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        Readings {
            threads_max: read_u64("/proc/sys/kernel/threads-max"),
            pid_max: read_u64("/proc/sys/kernel/pid_max"),
            system_tasks: system_tasks(),
            rlimit_nproc: soft_limit(libc::RLIMIT_NPROC),
            user_tasks: if root {
                None
            } else {
                headroom::own_user_tasks()
            },
            root,
            cgroup_pids: limits::pids(&h)
                .map(|f| (f.value.max, f.value.current, f.at.display().to_string())),
            max_map_count: read_u64("/proc/sys/vm/max_map_count"),
            rlimit_as: soft_limit(libc::RLIMIT_AS),
            overcommit: read_u64("/proc/sys/vm/overcommit_memory").map(|m| m as u8),
            commit: meminfo_kib("CommitLimit:").zip(meminfo_kib("Committed_AS:")),
            stack: soft_limit(libc::RLIMIT_STACK),
            cgroup_memory: limits::memory_max(&h).map(|f| (f.value, f.at.display().to_string())),
        }
    }

    /// The limits that count tasks and are shared with other programs, with what each allows.
    fn shared_task_limits(&self) -> Vec<Headroom> {
        let mut out = Vec::new();
        let free = |max: u64, used: Option<u64>| used.map(|u| max.saturating_sub(u));
        if let Some((max, Some(f))) = self.threads_max.map(|m| (m, free(m, self.system_tasks))) {
            out.push(Headroom {
                limit: format!("kernel.threads-max {max}"),
                free: f,
            });
        }
        if let Some((max, Some(f))) = self.pid_max.map(|m| (m, free(m, self.system_tasks))) {
            out.push(Headroom {
                limit: format!("kernel.pid_max {max}"),
                free: f,
            });
        }
        if let (Some(max), false) = (self.rlimit_nproc, self.root) {
            if let Some(f) = free(max, self.user_tasks) {
                out.push(Headroom {
                    limit: format!("RLIMIT_NPROC {max}"),
                    free: f,
                });
            }
        }
        if let Some((max, current, _)) = &self.cgroup_pids {
            out.push(Headroom {
                limit: format!("pids.max {max}"),
                free: max.saturating_sub(*current),
            });
        }
        out
    }
}

/// How many more tasks a model may create, and the shared limit that decides it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRoom {
    pub units: u64,
    /// "kernel.pid_max 32768".
    pub limit: String,
    /// What it allowed before the margin.
    pub free: u64,
}

/// The room the tightest shared task limit leaves after its margin.
pub fn task_room(r: &Readings) -> Option<TaskRoom> {
    let limits = r.shared_task_limits();
    let tight = headroom::tightest(&limits, MARGIN)?;
    let free = limits.iter().find(|h| h.limit == tight.limit)?.free;
    Some(TaskRoom {
        units: tight.free,
        limit: tight.limit,
        free,
    })
}

/// Every limit read, for the document: value, what it counts, who shares it, where it is set.
pub fn table(r: &Readings) -> Vec<Limit> {
    let mut out = Vec::new();
    let free = |max: u64, used: Option<u64>| used.map(|u| max.saturating_sub(u));
    let mut push = |name: &str,
                    value: Option<u64>,
                    counts: &str,
                    scope: &str,
                    set_at: String,
                    free: Option<u64>| {
        if let Some(value) = value {
            out.push(Limit {
                name: name.into(),
                value,
                counts: counts.into(),
                scope: scope.into(),
                set_at,
                free,
            });
        }
    };
    push(
        "kernel.threads-max",
        r.threads_max,
        "tasks (processes and threads)",
        "machine",
        "/proc/sys/kernel/threads-max (sysctl kernel.threads-max)".into(),
        r.threads_max.and_then(|m| free(m, r.system_tasks)),
    );
    push(
        "kernel.pid_max",
        r.pid_max,
        "process and thread ids",
        "machine",
        "/proc/sys/kernel/pid_max (sysctl kernel.pid_max)".into(),
        r.pid_max.and_then(|m| free(m, r.system_tasks)),
    );
    push(
        "RLIMIT_NPROC",
        r.rlimit_nproc,
        "tasks of this user",
        "user",
        if r.root {
            "ulimit -u (soft; not enforced for root)".into()
        } else {
            "ulimit -u (soft), /etc/security/limits.conf".into()
        },
        r.rlimit_nproc.and_then(|m| free(m, r.user_tasks)),
    );
    if let Some((max, current, at)) = &r.cgroup_pids {
        push(
            "pids.max",
            Some(*max),
            "tasks in the group",
            "cgroup",
            format!("{at}/pids.max"),
            Some(max.saturating_sub(*current)),
        );
    }
    push(
        "vm.max_map_count",
        r.max_map_count,
        "memory maps per process (a thread or coroutine stack and its guard page take two)",
        "process",
        "/proc/sys/vm/max_map_count (sysctl vm.max_map_count)".into(),
        None,
    );
    push(
        "RLIMIT_STACK",
        r.stack,
        "bytes of stack a thread reserves by default (address space, not memory)",
        "process",
        "ulimit -s (soft)".into(),
        None,
    );
    push(
        "RLIMIT_AS",
        r.rlimit_as,
        "bytes of address space per process",
        "process",
        "ulimit -v (soft)".into(),
        None,
    );
    if r.overcommit == Some(2) {
        push(
            "CommitLimit",
            r.commit.map(|(limit, _)| limit * 1024),
            "bytes of memory committed (every stack reservation counts)",
            "machine",
            "vm.overcommit_memory = 2 with vm.overcommit_ratio (/proc/meminfo CommitLimit)".into(),
            r.commit.map(|(l, c)| l.saturating_sub(c) * 1024),
        );
    }
    if let Some((bytes, at)) = &r.cgroup_memory {
        push(
            "memory limit",
            Some(*bytes),
            "bytes of memory in the group",
            "cgroup",
            format!("{at} (memory.max or memory.limit_in_bytes)"),
            None,
        );
    }
    out
}

/// What was known when a model's holder refused, or died.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Refused {
    /// The runtime's own words ("Resource temporarily unavailable (os error 11)",
    /// "OutOfMemoryError: Java heap space"); empty when the holder died without a word.
    pub error: String,
    /// The holder died (no answer); `exit` says how.
    pub died: Option<String>,
    /// Memory maps of the holder process when it refused.
    pub maps: Option<u64>,
    /// Units and memory maps at the last step that succeeded, and the units the failed step
    /// asked for: where a holder that died had its maps heading.
    pub last_maps: Option<(u64, u64)>,
    pub asked: u64,
    /// The cell's `pids.max` and `pids.current`, when it has them.
    pub cell_pids: Option<(u64, u64)>,
    /// Out-of-memory kills in the cell during the model.
    pub cell_ooms: u64,
    /// The cell's memory limit, bytes.
    pub cell_memory: Option<u64>,
    /// The heap the runtime sized for itself, MiB (Java's -Xmx default).
    pub heap_mib: Option<f64>,
    /// The shared task limit the cell's `pids.max` stands for, and its margin.
    pub task_room: Option<TaskRoom>,
}

/// Why `vm.max_map_count` stopped the holder, when it did: it had (nearly) every map it may
/// have when creation failed, or it died in a step that, at its maps per unit so far, needed
/// more than that.
fn maps_exhausted(why: &Refused, max: Option<u64>) -> Option<String> {
    let max = max?;
    if let Some(maps) = why.maps.filter(|m| m + 8 >= max) {
        return Some(format!(
            "the holder had {maps} memory maps of {max} when creation failed ({}): each unit's \
             stack and guard page take two",
            why.error
        ));
    }
    let (units, maps) = why
        .last_maps
        .filter(|(u, _)| *u > 0 && why.died.is_some())?;
    let per_unit = maps as f64 / units as f64;
    (maps as f64 + per_unit * why.asked as f64 >= max as f64).then(|| {
        format!(
            "the holder died in a step that needed more memory maps than {max}: it had {maps} at \
             {units} units, {per_unit:.1} a unit, and the step asked for {} more units",
            why.asked
        )
    })
}

fn stop(
    kind: StopKind,
    limit: &str,
    value: Option<String>,
    set_at: Option<&str>,
    detail: String,
) -> Stop {
    Stop {
        kind,
        limit: limit.into(),
        value,
        set_at: set_at.map(str::to_string),
        detail,
    }
}

/// Which limit stopped a model that was refused a unit at `held` units (pure: the tests give
/// the readings). In order: the runtime's heap, the holder's memory maps, the cell's task limit
/// (concbench's margin under a shared limit), a shared limit left without room, the cell's
/// memory limit, strict overcommit; otherwise the error itself, unexplained.
pub fn attribute(held: u64, why: &Refused, after: &Readings) -> Stop {
    let mut s = attribute_to_limit(held, why, after);
    if let (Some(died), false) = (&why.died, s.kind == StopKind::Failed) {
        s.detail = format!("{} (the holder died: {died})", s.detail);
    }
    s
}

fn attribute_to_limit(held: u64, why: &Refused, after: &Readings) -> Stop {
    let words = format!("{} {}", why.error, why.died.as_deref().unwrap_or_default());
    let e = words.to_ascii_lowercase();
    let heap = e.contains("java heap space")
        || e.contains("gc overhead")
        || (e.contains("outofmemoryerror") && !e.contains("native thread"));
    if heap {
        return stop(
            StopKind::Reached,
            "the Java heap",
            why.heap_mib.map(|m| format!("{m:.0} MiB")),
            Some("-Xmx (the JVM's default: a quarter of the memory it sees)"),
            format!("{}: the heap was full at {held} units", why.error.trim()),
        );
    }
    if let Some(detail) = maps_exhausted(why, after.max_map_count) {
        let max = after.max_map_count.unwrap_or_default();
        return stop(
            StopKind::Reached,
            "vm.max_map_count",
            Some(max.to_string()),
            Some("/proc/sys/vm/max_map_count"),
            detail,
        );
    }
    if let (Some((max, current)), Some(room), None) = (why.cell_pids, &why.task_room, &why.died) {
        if current + 2 >= max {
            return stop(
                StopKind::Margin,
                &room.limit,
                None,
                Some("the cell's pids.max, set by concbench"),
                format!(
                    "stopped by the cell's pids.max of {max}: {} left {} free, of which concbench \
                     keeps {:.0}% (at least 64) for the machine's other programs; the limit itself \
                     would allow about {} units",
                    room.limit,
                    room.free,
                    MARGIN * 100.0,
                    held + room.free.saturating_sub(room.units)
                ),
            );
        }
    }
    let exhausted = after.shared_task_limits().into_iter().find(|h| h.free <= 2);
    if let Some(h) = exhausted {
        return stop(
            StopKind::Reached,
            &h.limit,
            None,
            None,
            format!("{} has no room left ({})", h.limit, why.error),
        );
    }
    if why.cell_ooms > 0 {
        return stop(
            StopKind::Budget,
            "the cell's memory limit",
            why.cell_memory.map(|b| format!("{} MiB", b >> 20)),
            Some("the cell's memory.max (the budget's backstop)"),
            format!(
                "the kernel's out-of-memory killer ended the holder at {held} units{}",
                why.died
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ),
        );
    }
    if after.overcommit == Some(2) {
        if let Some((limit, committed)) = after.commit {
            if committed * 100 >= limit * 95 {
                return stop(
                    StopKind::Reached,
                    "CommitLimit",
                    Some(format!("{} MiB", limit >> 10)),
                    Some("vm.overcommit_memory = 2"),
                    format!(
                        "strict overcommit: the commit charge is at its limit ({})",
                        why.error
                    ),
                );
            }
        }
    }
    let what = match (&why.died, why.error.is_empty()) {
        (Some(d), _) => format!("the holder died at {held} units: {d}"),
        (None, false) => format!("creation failed at {held} units: {}", why.error),
        (None, true) => format!("creation stopped at {held} units without an error"),
    };
    stop(
        StopKind::Failed,
        "an error no limit read explains",
        None,
        None,
        what,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_stop(s: &Stop, kind: StopKind, limit: &str) {
        assert_eq!((s.kind, s.limit.as_str()), (kind, limit), "{}", s.detail);
    }

    /// This development VM's numbers.
    fn vm() -> Readings {
        Readings {
            threads_max: Some(192_730),
            pid_max: Some(32_768),
            system_tasks: Some(900),
            rlimit_nproc: Some(96_365),
            user_tasks: None,
            root: true,
            cgroup_pids: None,
            max_map_count: Some(65_530),
            rlimit_as: None,
            overcommit: Some(0),
            commit: Some((12_000_000, 3_000_000)),
            stack: Some(8 << 20),
            cgroup_memory: None,
        }
    }

    #[test]
    fn pid_max_is_the_tightest_shared_limit_here_and_keeps_a_tenth_free() {
        let room = task_room(&vm()).unwrap();
        assert_eq!(room.limit, "kernel.pid_max 32768");
        assert_eq!(room.free, 31_868);
        assert_eq!(room.units, 31_868 - 3_186);
    }

    #[test]
    fn rlimit_nproc_counts_for_an_ordinary_user_only() {
        let mut r = vm();
        r.rlimit_nproc = Some(4096);
        assert_eq!(task_room(&r).unwrap().limit, "kernel.pid_max 32768");
        r.root = false;
        r.user_tasks = Some(96);
        let room = task_room(&r).unwrap();
        assert_eq!(
            (room.limit.as_str(), room.free),
            ("RLIMIT_NPROC 4096", 4000)
        );
        let table = table(&r);
        let nproc = table.iter().find(|l| l.name == "RLIMIT_NPROC").unwrap();
        assert_eq!((nproc.scope.as_str(), nproc.free), ("user", Some(4000)));
    }

    #[test]
    fn the_table_names_where_each_limit_is_set() {
        let t = table(&vm());
        let names: Vec<&str> = t.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "kernel.threads-max",
                "kernel.pid_max",
                "RLIMIT_NPROC",
                "vm.max_map_count",
                "RLIMIT_STACK"
            ]
        );
        assert!(t[1].set_at.contains("sysctl kernel.pid_max"));
        assert!(t[2].set_at.contains("not enforced for root"));
        // Strict overcommit adds the commit limit.
        let mut r = vm();
        r.overcommit = Some(2);
        assert!(table(&r).iter().any(|l| l.name == "CommitLimit"));
    }

    #[test]
    fn a_thread_refused_at_the_cells_pids_max_stopped_at_concbenchs_margin() {
        let r = vm();
        let why = Refused {
            error: "Resource temporarily unavailable (os error 11)".into(),
            cell_pids: Some((28_682, 28_681)),
            task_room: task_room(&r),
            maps: Some(57_000),
            ..Refused::default()
        };
        let s = attribute(28_670, &why, &r);
        assert_eq!(s.kind, StopKind::Margin);
        assert_eq!(s.limit, "kernel.pid_max 32768");
        assert!(s.detail.contains("31868 free"), "{}", s.detail);
    }

    #[test]
    fn the_holders_own_limits_are_reached_by_what_it_says_or_holds() {
        let cases = [
            // A coroutine's stack and guard page: two maps each.
            (
                Refused {
                    error: "Cannot allocate memory (os error 12)".into(),
                    maps: Some(65_526),
                    ..Refused::default()
                },
                "vm.max_map_count",
            ),
            (
                Refused {
                    error: "OutOfMemoryError: Java heap space".into(),
                    heap_mib: Some(1536.0),
                    ..Refused::default()
                },
                "the Java heap",
            ),
            // A JVM that could not even answer.
            (
                Refused {
                    died: Some(
                        "its stderr ends with: Exception: java.lang.OutOfMemoryError thrown \
                         from the UncaughtExceptionHandler in thread \"main\""
                            .into(),
                    ),
                    heap_mib: Some(1800.0),
                    ..Refused::default()
                },
                "the Java heap",
            ),
        ];
        for (why, limit) in cases {
            assert_stop(&attribute(32_700, &why, &vm()), StopKind::Reached, limit);
        }
    }

    #[test]
    fn an_oom_kill_in_the_cell_is_the_budgets_backstop_and_anything_else_is_unexplained() {
        let why = Refused {
            died: Some("it closed its output (signal: 9 (SIGKILL))".into()),
            cell_ooms: 1,
            cell_memory: Some(7 << 30),
            ..Refused::default()
        };
        assert_eq!(attribute(10, &why, &vm()).kind, StopKind::Budget);
        let why = Refused {
            error: "Operation not permitted".into(),
            ..Refused::default()
        };
        let s = attribute(10, &why, &vm());
        assert_eq!(s.kind, StopKind::Failed);
        assert!(s.detail.contains("Operation not permitted"));
    }

    #[test]
    fn a_holder_that_died_heading_past_max_map_count_is_said_to_have_reached_it() {
        let why = Refused {
            died: Some("it closed its output (signal: 6 (SIGABRT))".into()),
            last_maps: Some((8192, 33_000)),
            asked: 8192,
            ..Refused::default()
        };
        let s = attribute(8192, &why, &vm());
        assert_stop(&s, StopKind::Reached, "vm.max_map_count");
        assert!(s.detail.contains("4.0 a unit"), "{}", s.detail);
        assert!(
            s.detail.contains("the holder died: it closed its output"),
            "{}",
            s.detail
        );
        // A died holder's cell count says nothing: no margin is claimed from it.
        let why = Refused {
            died: Some("it closed its output (exit status: 134)".into()),
            cell_pids: Some((100, 99)),
            task_room: task_room(&vm()),
            ..Refused::default()
        };
        assert_eq!(attribute(50, &why, &vm()).kind, StopKind::Failed);
    }

    #[test]
    fn a_shared_limit_with_no_room_left_is_reached() {
        let mut r = vm();
        r.system_tasks = Some(32_767);
        let why = Refused {
            error: "Resource temporarily unavailable (os error 11)".into(),
            ..Refused::default()
        };
        assert_stop(
            &attribute(31_000, &why, &r),
            StopKind::Reached,
            "kernel.pid_max 32768",
        );
    }
}
