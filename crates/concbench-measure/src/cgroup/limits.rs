//! The limits this process's control groups set, each with the group that sets it: a limit on a
//! parent applies as much as one's own (Go before 1.25 and some JVMs read only their own group's,
//! and size themselves past a parent's quota), so each is the tightest over the process's group
//! and its ancestors up to the top of the mount.

use super::files::{self, CpuStat};
use super::hierarchy::{Hierarchy, Place, Version};
use super::Controller;
use std::path::{Path, PathBuf};

/// A limit and the group directory whose file sets it.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<T> {
    pub value: T,
    pub at: PathBuf,
}

/// A CPU bandwidth limit: `quota_us` of CPU time per `period_us`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quota {
    pub quota_us: u64,
    pub period_us: u64,
}

impl Quota {
    /// The limit in CPUs (1.5 = one and a half CPUs' worth of time per period).
    pub fn cpus(&self) -> f64 {
        self.quota_us as f64 / self.period_us.max(1) as f64
    }
}

/// How many more tasks a `pids.max` allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PidsRoom {
    pub max: u64,
    pub current: u64,
}

impl PidsRoom {
    pub fn free(&self) -> u64 {
        self.max.saturating_sub(self.current)
    }
}

fn read(dir: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(name))
        .ok()
        .map(|s| s.trim().to_string())
}

/// The quota one group sets, if any.
fn quota_of(dir: &Path, version: Version) -> Option<Quota> {
    let (quota, period) = match version {
        Version::V1 => files::cfs_quota(
            &read(dir, "cpu.cfs_quota_us")?,
            &read(dir, "cpu.cfs_period_us")?,
        )?,
        Version::V2 => files::cpu_max(&read(dir, "cpu.max")?)?,
    };
    Some(Quota {
        quota_us: quota?,
        period_us: period,
    })
}

/// The tightest of `each` over `place`'s group and its ancestors, by `key` (smaller is tighter).
fn tightest<T, K: PartialOrd>(
    place: &Place,
    each: impl Fn(&Path) -> Option<T>,
    key: impl Fn(&T) -> K,
) -> Option<Found<T>> {
    place
        .own_and_ancestors()
        .into_iter()
        .filter_map(|dir| {
            Some(Found {
                value: each(&dir)?,
                at: dir,
            })
        })
        .reduce(|a, b| if key(&b.value) < key(&a.value) { b } else { a })
}

/// The CPU quota that applies to this process: the tightest in CPUs.
pub fn cpu_quota(h: &Hierarchy) -> Option<Found<Quota>> {
    let place = h.place(Controller::Cpu)?;
    tightest(place, |d| quota_of(d, place.version), Quota::cpus)
}

/// The quota group `dir` itself sets (a cell's), in the given version.
pub fn own_quota(dir: &Path, version: Version) -> Option<Quota> {
    quota_of(dir, version)
}

/// The CPUs this process's cpuset allows (`cpuset.effective_cpus` in v1,
/// `cpuset.cpus.effective` in v2).
pub fn cpuset(h: &Hierarchy) -> Option<Found<Vec<usize>>> {
    let place = h.place(Controller::Cpuset)?;
    let name = match place.version {
        Version::V1 => "cpuset.effective_cpus",
        Version::V2 => "cpuset.cpus.effective",
    };
    let cpus = files::cpu_list(&read(&place.own, name)?)?;
    Some(Found {
        value: cpus,
        at: place.own.clone(),
    })
}

/// A memory limit one group sets, bytes.
fn memory_of(dir: &Path, version: Version) -> Option<u64> {
    match version {
        Version::V1 => files::v1_memory_limit(&read(dir, "memory.limit_in_bytes")?)?,
        Version::V2 => files::max_or_number(&read(dir, "memory.max")?)?,
    }
}

/// The memory limit that applies to this process, bytes: the tightest.
pub fn memory_max(h: &Hierarchy) -> Option<Found<u64>> {
    let place = h.place(Controller::Memory)?;
    tightest(place, |d| memory_of(d, place.version), |v| *v)
}

/// The tightest `pids.max` by the room it leaves (`max - current`).
pub fn pids(h: &Hierarchy) -> Option<Found<PidsRoom>> {
    let place = h.place(Controller::Pids)?;
    tightest(
        place,
        |d| {
            Some(PidsRoom {
                max: files::max_or_number(&read(d, "pids.max")?)??,
                current: read(d, "pids.current")?.parse().ok()?,
            })
        },
        PidsRoom::free,
    )
}

/// The throttling counters of group `dir` (`cpu.stat`).
pub fn cpu_stat(dir: &Path) -> Option<CpuStat> {
    files::cpu_stat(&read(dir, "cpu.stat")?)
}

/// What a group holds in memory, bytes (v1 `memory.usage_in_bytes`, v2 `memory.current`: pages
/// and, where the kernel accounts it, its own memory for the group's tasks).
pub fn memory_charge(dir: &Path, version: Version) -> Option<u64> {
    let name = match version {
        Version::V1 => "memory.usage_in_bytes",
        Version::V2 => "memory.current",
    };
    read(dir, name)?.parse().ok()
}

/// How many times the kernel's out-of-memory killer acted in group `dir`.
pub fn oom_kills(dir: &Path, version: Version) -> Option<u64> {
    let name = match version {
        Version::V1 => "memory.oom_control",
        Version::V2 => "memory.events",
    };
    files::oom_kills(&read(dir, name)?)
}
