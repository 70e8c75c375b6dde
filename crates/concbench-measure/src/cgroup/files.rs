//! The texts of the cgroup files concbench reads, parsed: `/proc/self/cgroup`, the cgroup lines
//! of `/proc/self/mountinfo`, and the controllers' interface files in both versions (v1's
//! `cpu.cfs_quota_us`, `memory.limit_in_bytes`; v2's `cpu.max`, `memory.max`; `pids.max`,
//! `cpuset.cpus` and `cpu.stat` in either). Pure functions over strings: the tests feed them the
//! kernel's own formats.

use serde::{Deserialize, Serialize};

/// One line of `/proc/self/cgroup`: `ID:CONTROLLERS:PATH` (v2's line is `0::PATH`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// The hierarchy id (0 for v2).
    pub id: u32,
    /// The controllers bound to the hierarchy (`cpu`, `cpuacct`; `name=systemd` for named ones);
    /// empty for v2.
    pub controllers: Vec<String>,
    /// The process's group, relative to the hierarchy's root (or its cgroup namespace's).
    pub path: String,
}

/// Every line of a `/proc/self/cgroup` text; malformed lines are skipped.
pub fn memberships(text: &str) -> Vec<Membership> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let id = parts.next()?.parse().ok()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            Some(Membership {
                id,
                controllers: controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect(),
                path: path.to_string(),
            })
        })
        .collect()
}

/// A cgroup file system mounted in this process's mount namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// `cgroup` (v1) or `cgroup2`.
    pub fstype: String,
    /// The group of the hierarchy that is mounted (`/` unless a container bind-mounts its own).
    pub root: String,
    /// Where it is mounted (`/sys/fs/cgroup/cpu`).
    pub point: String,
    /// The file system's own options: for v1, the controllers among them (`rw,cpu,cpuacct`).
    pub options: Vec<String>,
}

impl Mount {
    /// cgroup v2 (the unified hierarchy).
    pub fn is_v2(&self) -> bool {
        self.fstype == "cgroup2"
    }
}

/// The cgroup mounts of a `/proc/self/mountinfo` text, in order.
///
/// A line is `ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS`;
/// the optional fields end at the lone `-`.
pub fn cgroup_mounts(mountinfo: &str) -> Vec<Mount> {
    mountinfo
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let left: Vec<&str> = left.split(' ').collect();
            let right: Vec<&str> = right.split(' ').collect();
            let fstype = *right.first()?;
            if fstype != "cgroup" && fstype != "cgroup2" {
                return None;
            }
            Some(Mount {
                fstype: fstype.to_string(),
                root: unescape(left.get(3)?),
                point: unescape(left.get(4)?),
                options: right
                    .get(2)
                    .map(|o| o.split(',').map(str::to_string).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo` (octal).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).and_then(|d| {
            let s = std::str::from_utf8(d).ok()?;
            u8::from_str_radix(s, 8).ok()
        });
        match (bytes[i], octal) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A v2 `cpu.max` (`max 100000`, `150000 100000`): `(quota µs or None for no limit, period µs)`.
pub fn cpu_max(text: &str) -> Option<(Option<u64>, u64)> {
    let mut words = text.split_whitespace();
    let quota = words.next()?;
    let period = words.next().map_or(Some(100_000), |p| p.parse().ok())?;
    match quota {
        "max" => Some((None, period)),
        q => Some((Some(q.parse().ok()?), period)),
    }
}

/// v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us`: `(quota µs or None for -1, period µs)`.
pub fn cfs_quota(quota: &str, period: &str) -> Option<(Option<u64>, u64)> {
    let period: u64 = period.trim().parse().ok()?;
    let quota: i64 = quota.trim().parse().ok()?;
    Some(((quota >= 0).then_some(quota as u64), period))
}

/// A limit that may be `max` (v2's `memory.max`, `pids.max` in both versions): `None` for
/// no limit.
pub fn max_or_number(text: &str) -> Option<Option<u64>> {
    match text.trim() {
        "max" => Some(None),
        n => Some(Some(n.parse().ok()?)),
    }
}

/// v1's `memory.limit_in_bytes`: no limit is written as the largest page-aligned counter
/// (9223372036854771712 on 4 KiB pages), so anything from 2^62 up is read as none.
pub fn v1_memory_limit(text: &str) -> Option<Option<u64>> {
    let v: u64 = text.trim().parse().ok()?;
    Some((v < 1 << 62).then_some(v))
}

/// A CPU list (`0-3,6`, as `cpuset.cpus` and sysfs write them), ascending and without repeats.
pub fn cpu_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Some(cpus)
}

/// Ascending CPUs as the kernel writes lists: `0-2,5`.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        while i + 1 < cpus.len() && cpus[i + 1] == cpus[i] + 1 {
            i += 1;
        }
        parts.push(match cpus[i] {
            end if end == start => start.to_string(),
            end => format!("{start}-{end}"),
        });
        i += 1;
    }
    parts.join(",")
}

/// What the CPU controller counted: periods, throttled periods and time throttled. From v1's
/// `cpu.stat` (`nr_periods`, `nr_throttled`, `throttled_time` in ns) or v2's (`nr_periods`,
/// `nr_throttled`, `throttled_usec`; v2 adds `usage_usec`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuStat {
    /// Enforcement periods that had runnable tasks.
    pub periods: u64,
    /// Periods in which the group used up its quota and was stopped until the next.
    pub throttled_periods: u64,
    /// Time the group's tasks were held back, µs.
    pub throttled_us: u64,
    /// CPU time the group used, µs (v2 only; v1 keeps it in `cpuacct`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_us: Option<u64>,
}

impl CpuStat {
    /// `self - earlier`, each counter (a group's counters only grow).
    pub fn since(&self, earlier: &CpuStat) -> CpuStat {
        CpuStat {
            periods: self.periods.saturating_sub(earlier.periods),
            throttled_periods: self
                .throttled_periods
                .saturating_sub(earlier.throttled_periods),
            throttled_us: self.throttled_us.saturating_sub(earlier.throttled_us),
            usage_us: match (self.usage_us, earlier.usage_us) {
                (Some(a), Some(b)) => Some(a.saturating_sub(b)),
                _ => None,
            },
        }
    }
}

/// A `cpu.stat` text of either version; `None` when it has no period counter (the root group's
/// v2 `cpu.stat`, which has no quota to enforce, lacks them).
pub fn cpu_stat(text: &str) -> Option<CpuStat> {
    let field = |name: &str| -> Option<u64> {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(' ')?;
            (k == name).then(|| v.trim().parse().ok())?
        })
    };
    let throttled_us = match (field("throttled_usec"), field("throttled_time")) {
        (Some(us), _) => us,
        (None, Some(ns)) => ns / 1000,
        (None, None) => return None,
    };
    Some(CpuStat {
        periods: field("nr_periods")?,
        throttled_periods: field("nr_throttled")?,
        throttled_us,
        usage_us: field("usage_usec"),
    })
}

/// The `oom_kill` count of v2's `memory.events` or v1's `memory.oom_control`.
pub fn oom_kills(text: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == "oom_kill").then(|| v.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_self_cgroup_of_a_v1_hybrid_and_of_v2() {
        // This development VM: v1 controllers, an empty v2 beside them.
        let hybrid = "9:name=systemd:/\n4:memory:/process_api/eaaa\n1:cpu,cpuacct:/\n0::/\n";
        let m = memberships(hybrid);
        assert_eq!(m.len(), 4);
        assert_eq!(m[1].controllers, ["memory"]);
        assert_eq!(m[1].path, "/process_api/eaaa");
        assert_eq!(m[2].controllers, ["cpu", "cpuacct"]);
        assert_eq!(m[3].id, 0);
        assert!(m[3].controllers.is_empty());
        let v2 = memberships("0::/user.slice/user-1000.slice/session-3.scope\n");
        assert_eq!(v2[0].path, "/user.slice/user-1000.slice/session-3.scope");
    }

    #[test]
    fn mountinfo_keeps_cgroup_mounts_with_their_controllers() {
        let text = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
50 40 0:40 /docker/ab /sys/fs/cgroup/a\\040b rw - cgroup2 cgroup2 rw,nsdelegate
";
        let m = cgroup_mounts(text);
        assert_eq!(m.len(), 4);
        assert_eq!(m[0].point, "/sys/fs/cgroup/cpu");
        assert!(m[0].options.contains(&"cpu".to_string()));
        assert!(!m[0].is_v2());
        assert_eq!(m[1].options, ["rw", "memory"], "optional fields skipped");
        assert!(m[2].is_v2());
        assert_eq!(m[3].root, "/docker/ab");
        assert_eq!(m[3].point, "/sys/fs/cgroup/a b", "octal escapes decoded");
    }

    #[test]
    fn cpu_quotas_of_both_versions() {
        assert_eq!(cpu_max("max 100000"), Some((None, 100_000)));
        assert_eq!(cpu_max("150000 100000\n"), Some((Some(150_000), 100_000)));
        assert_eq!(cpu_max("50000"), Some((Some(50_000), 100_000)));
        assert_eq!(cpu_max("x y"), None);
        assert_eq!(cfs_quota("-1\n", "100000\n"), Some((None, 100_000)));
        assert_eq!(
            cfs_quota("200000", "100000"),
            Some((Some(200_000), 100_000))
        );
    }

    #[test]
    fn memory_and_pids_limits() {
        assert_eq!(max_or_number("max\n"), Some(None));
        assert_eq!(max_or_number("4096"), Some(Some(4096)));
        assert_eq!(max_or_number("lots"), None);
        assert_eq!(v1_memory_limit("9223372036854771712\n"), Some(None));
        assert_eq!(v1_memory_limit("1073741824"), Some(Some(1 << 30)));
    }

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(cpu_list("0-3,6\n"), Some(vec![0, 1, 2, 3, 6]));
        assert_eq!(cpu_list(""), Some(vec![]));
        assert_eq!(cpu_list("3-1"), None);
        assert_eq!(format_cpu_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(format_cpu_list(&[1]), "1");
    }

    #[test]
    fn cpu_stat_of_both_versions() {
        let v1 = "nr_periods 120\nnr_throttled 30\nthrottled_time 2500000000\nnr_bursts 0\n";
        assert_eq!(
            cpu_stat(v1),
            Some(CpuStat {
                periods: 120,
                throttled_periods: 30,
                throttled_us: 2_500_000,
                usage_us: None
            })
        );
        let v2 = "usage_usec 9000\nuser_usec 6000\nsystem_usec 3000\nnr_periods 10\n\
                  nr_throttled 4\nthrottled_usec 1200\n";
        let s = cpu_stat(v2).unwrap();
        assert_eq!(
            (s.periods, s.throttled_periods, s.throttled_us),
            (10, 4, 1200)
        );
        assert_eq!(s.usage_us, Some(9000));
        // The v2 root group has no quota, so no period counters.
        assert_eq!(cpu_stat("usage_usec 5\nuser_usec 3\nsystem_usec 2\n"), None);
        let later = CpuStat {
            periods: 150,
            throttled_periods: 31,
            throttled_us: 2_600_000,
            usage_us: None,
        };
        assert_eq!(later.since(&cpu_stat(v1).unwrap()).throttled_periods, 1);
    }

    #[test]
    fn oom_kills_of_both_versions() {
        assert_eq!(
            oom_kills("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n"),
            Some(1)
        );
        assert_eq!(
            oom_kills("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n"),
            Some(2)
        );
        assert_eq!(oom_kills("nothing 1\n"), None);
    }
}
