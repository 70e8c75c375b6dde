//! A cell: a control group concbench creates for one command, with the limits it asks for (a CPU
//! quota or a cpuset, a memory limit, a task limit), that processes join and that is removed when
//! the command ends — also on an error or Ctrl-C (its drop), and after a `kill -9` by the next
//! command's [`sweep_leftovers`].
//!
//! In cgroup v1 a cell is one directory per hierarchy it needs (`/sys/fs/cgroup/cpu/concbench-…`,
//! `/sys/fs/cgroup/memory/<own group>/concbench-…`), each beside or below this process's own
//! group; in v2 it is one directory, under the nearest ancestor of this process's group that
//! delegates the controllers it needs (a v2 group with processes in it cannot have children
//! with controllers). Creating one needs root or a delegated subtree: when the machine does not
//! allow it, [`Cell::create`] says why ([`Refusal`]) and nothing is left.

use super::files::{self, CpuStat};
use super::hierarchy::{self, Hierarchy, Place, Version};
use super::limits::{self, Quota};
use super::Controller;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Every cell's directory name starts with this, then `<pid>-<start>-<purpose>` of its owner.
pub const PREFIX: &str = "concbench-";

/// The v1 and v2 period of a quota concbench sets (the kernel's default), µs.
pub const PERIOD_US: u64 = 100_000;

/// How the cell limits CPU.
#[derive(Debug, Clone, PartialEq)]
pub enum CpuLimit {
    /// CPU time per period worth this many CPUs, on any of the machine's CPUs.
    Quota(f64),
    /// Only these CPUs, as much as they can give.
    Cpuset(Vec<usize>),
    /// No limit: a group of its own all the same, whose `cpu.stat` is read (a baseline beside a
    /// limited run).
    Unlimited,
}

/// What a cell is for and what it limits.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CellSpec {
    /// A word for the directory's name (`run`, `capacity`).
    pub purpose: String,
    pub cpu: Option<CpuLimit>,
    pub memory_max: Option<u64>,
    pub pids_max: Option<u64>,
}

impl CellSpec {
    fn controllers(&self) -> Vec<Controller> {
        let mut out = Vec::new();
        match &self.cpu {
            Some(CpuLimit::Cpuset(_)) => out.push(Controller::Cpuset),
            Some(_) => out.push(Controller::Cpu),
            None => {}
        }
        if self.memory_max.is_some() {
            out.push(Controller::Memory);
        }
        if self.pids_max.is_some() {
            out.push(Controller::Pids);
        }
        out
    }
}

/// Why no cell could be made here, and what would make one possible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What stood in the way ("creating /sys/fs/cgroup/cpu/concbench-…: permission denied").
    pub reason: String,
    /// Whether running as root would have made it possible.
    pub needs_root: bool,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// One directory of a cell: a v1 hierarchy's (or the v2 one) and the controllers it holds.
#[derive(Debug, Clone, PartialEq)]
struct Group {
    version: Version,
    controllers: Vec<Controller>,
    dir: PathBuf,
    /// This process's own group in the same hierarchy, to return to after [`Cell::join_self`].
    home: PathBuf,
}

/// A control group of concbench's own, removed on drop.
#[derive(Debug)]
pub struct Cell {
    groups: Vec<Group>,
    spec: CellSpec,
    joined: bool,
    removed: bool,
}

fn errno_reason(dir: &Path, what: &str, e: &std::io::Error) -> Refusal {
    let needs_root = matches!(
        e.raw_os_error(),
        Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS)
    );
    let why = match e.raw_os_error() {
        Some(libc::EROFS) => {
            " (the cgroup file system is read-only here: a container without cgroup delegation)"
                .to_string()
        }
        Some(libc::EACCES) | Some(libc::EPERM) => format!(
            " (concbench runs as uid {}; making control groups needs root or a subtree delegated \
             to this user)",
            // SAFETY: geteuid has no preconditions.
            unsafe { libc::geteuid() }
        ),
        _ => String::new(),
    };
    Refusal {
        reason: format!("{what} {}: {e}{why}", dir.display()),
        needs_root,
    }
}

/// This process's name for a cell: `concbench-<pid>-<start>-<purpose>`.
fn cell_name(purpose: &str) -> String {
    let pid = std::process::id();
    format!("{PREFIX}{pid}-{}-{purpose}", start_ticks(pid).unwrap_or(0))
}

/// When process `pid` started, clock ticks after boot.
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22; the command name (field 2) may hold spaces, so count after its `)`.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// Where a v2 cell goes: under this process's group when it is the top of the mount, else under
/// the nearest ancestor whose `cgroup.subtree_control` already delegates `needed`.
fn v2_parent(place: &Place, needed: &[Controller]) -> Result<PathBuf, Refusal> {
    let candidates: Vec<PathBuf> = place
        .own_and_ancestors()
        .into_iter()
        .filter(|d| *d != place.own || place.own == place.mount)
        .collect();
    let delegates = |d: &Path| {
        let on = hierarchy::words(&d.join("cgroup.subtree_control"));
        needed.iter().all(|c| on.contains(&c.name().to_string()))
    };
    candidates
        .iter()
        .find(|d| delegates(d))
        .cloned()
        .ok_or_else(|| {
            let names: Vec<&str> = needed.iter().map(|c| c.name()).collect();
            let top = candidates.last().unwrap_or(&place.mount);
            Refusal {
                reason: format!(
                    "no group above this process's ({}) delegates {} in cgroup v2; as root: echo \
                 '{}' > {}/cgroup.subtree_control",
                    place.own.display(),
                    names.join(" and "),
                    names
                        .iter()
                        .map(|n| format!("+{n}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    top.display()
                ),
                needs_root: false,
            }
        })
}

/// The directories a cell with `needed` controllers takes: one per v1 hierarchy, one for v2.
fn plan_groups(h: &Hierarchy, needed: &[Controller], name: &str) -> Result<Vec<Group>, Refusal> {
    let mut groups: Vec<Group> = Vec::new();
    for &c in needed {
        let place = h.place(c).ok_or_else(|| Refusal {
            reason: format!(
                "no cgroup hierarchy here has the {} controller ({} is mounted)",
                c.name(),
                h.describe()
            ),
            needs_root: false,
        })?;
        let parent = match place.version {
            Version::V1 => place.own.clone(),
            Version::V2 => v2_parent(place, needed)?,
        };
        let dir = parent.join(name);
        match groups.iter_mut().find(|g| g.dir == dir) {
            Some(g) => g.controllers.push(c),
            None => groups.push(Group {
                version: place.version,
                controllers: vec![c],
                dir,
                home: place.own.clone(),
            }),
        }
    }
    Ok(groups)
}

fn write(dir: &Path, file: &str, value: &str) -> Result<(), Refusal> {
    std::fs::write(dir.join(file), value)
        .map_err(|e| errno_reason(&dir.join(file), &format!("writing {value:?} to"), &e))
}

/// The quota to write for `cpus` CPUs, at least the kernel's minimum of 1 ms.
fn quota_for(cpus: f64) -> Quota {
    Quota {
        quota_us: ((cpus * PERIOD_US as f64).round() as u64).max(1000),
        period_us: PERIOD_US,
    }
}

impl Group {
    /// Write the spec's limits for this group's controllers.
    fn apply(&self, spec: &CellSpec) -> Result<(), Refusal> {
        let d = &self.dir;
        for c in &self.controllers {
            match (c, self.version) {
                (Controller::Cpu, v) => {
                    if let Some(CpuLimit::Quota(cpus)) = spec.cpu {
                        let q = quota_for(cpus);
                        match v {
                            Version::V1 => {
                                write(d, "cpu.cfs_period_us", &q.period_us.to_string())?;
                                write(d, "cpu.cfs_quota_us", &q.quota_us.to_string())?;
                            }
                            Version::V2 => {
                                write(d, "cpu.max", &format!("{} {}", q.quota_us, q.period_us))?
                            }
                        }
                    }
                }
                (Controller::Cpuset, v) => {
                    if let Some(CpuLimit::Cpuset(cpus)) = &spec.cpu {
                        if v == Version::V1 {
                            // A new v1 cpuset starts empty: memory nodes first, from its parent.
                            let parent = d.parent().unwrap_or(d);
                            let mems =
                                std::fs::read_to_string(parent.join("cpuset.effective_mems"))
                                    .or_else(|_| {
                                        std::fs::read_to_string(parent.join("cpuset.mems"))
                                    })
                                    .unwrap_or_else(|_| "0".into());
                            write(d, "cpuset.mems", mems.trim())?;
                        }
                        write(d, "cpuset.cpus", &files::format_cpu_list(cpus))?;
                    }
                }
                (Controller::Memory, v) => {
                    if let Some(bytes) = spec.memory_max {
                        let (limit, swap) = match v {
                            Version::V1 => ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"),
                            Version::V2 => ("memory.max", "memory.swap.max"),
                        };
                        write(d, limit, &bytes.to_string())?;
                        // No swap for the cell where the kernel lets it say so: a unit swapped
                        // out would not be memory it holds.
                        let no_swap = if v == Version::V1 {
                            bytes.to_string()
                        } else {
                            "0".into()
                        };
                        if d.join(swap).exists() {
                            let _ = std::fs::write(d.join(swap), no_swap);
                        }
                    }
                }
                (Controller::Pids, _) => {
                    if let Some(n) = spec.pids_max {
                        write(d, "pids.max", &n.to_string())?;
                    }
                }
            }
        }
        Ok(())
    }

    fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }
}

impl Cell {
    /// The directories a cell for `spec` would take here, or why it cannot be made (nothing is
    /// created).
    pub fn plan(h: &Hierarchy, spec: &CellSpec) -> Result<Vec<PathBuf>, Refusal> {
        let groups = plan_groups(h, &spec.controllers(), &cell_name(&spec.purpose))?;
        Ok(groups.into_iter().map(|g| g.dir).collect())
    }

    /// Make a cell as `spec` asks, in this process's hierarchy `h`; nothing is left when it
    /// fails.
    pub fn create(h: &Hierarchy, spec: &CellSpec) -> Result<Cell, Refusal> {
        let needed = spec.controllers();
        let name = cell_name(&spec.purpose);
        let groups = plan_groups(h, &needed, &name)?;
        let mut cell = Cell {
            groups: Vec::new(),
            spec: spec.clone(),
            joined: false,
            removed: false,
        };
        for g in groups {
            // A directory of this very name can only be this process's own (same pid and start).
            if g.dir.exists() {
                let _ = std::fs::remove_dir(&g.dir);
            }
            std::fs::create_dir(&g.dir).map_err(|e| errno_reason(&g.dir, "creating", &e))?;
            cell.groups.push(g.clone());
            g.apply(spec)?;
        }
        Ok(cell)
    }

    /// What the cell was made with.
    pub fn spec(&self) -> &CellSpec {
        &self.spec
    }

    /// The cgroup version its directories are in ("v1", "v2").
    pub fn version(&self) -> &'static str {
        match self.groups.first().map(|g| g.version) {
            Some(Version::V2) => "v2",
            _ => "v1",
        }
    }

    /// Its directories.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.groups.iter().map(|g| g.dir.clone()).collect()
    }

    /// The `cgroup.procs` files a process writes `0` into to join (before exec: see
    /// `concbench_sys::spawn_tied_in`).
    pub fn procs_files(&self) -> Vec<CString> {
        self.groups
            .iter()
            .filter_map(|g| CString::new(g.procs().into_os_string().into_encoded_bytes()).ok())
            .collect()
    }

    /// Move this whole process (every thread) into the cell; [`Cell::leave`] or the drop moves
    /// it back.
    pub fn join_self(&mut self) -> std::io::Result<()> {
        let pid = std::process::id().to_string();
        for g in &self.groups {
            std::fs::write(g.procs(), &pid)?;
        }
        self.joined = true;
        Ok(())
    }

    /// Move this process back to the groups it was in before [`Cell::join_self`].
    pub fn leave(&mut self) -> std::io::Result<()> {
        if !self.joined {
            return Ok(());
        }
        let pid = std::process::id().to_string();
        for g in &self.groups {
            std::fs::write(g.home.join("cgroup.procs"), &pid)?;
        }
        self.joined = false;
        Ok(())
    }

    /// Change the task limit (a new budget for the next model).
    pub fn set_pids_max(&mut self, n: u64) -> Result<(), Refusal> {
        self.spec.pids_max = Some(n);
        match self.group_of(Controller::Pids) {
            Some(g) => write(&g.dir, "pids.max", &n.to_string()),
            None => Ok(()),
        }
    }

    fn group_of(&self, c: Controller) -> Option<&Group> {
        self.groups.iter().find(|g| g.controllers.contains(&c))
    }

    /// Whether the cell limits `c` (it has a directory in `c`'s hierarchy).
    pub fn limits(&self, c: Controller) -> bool {
        self.group_of(c).is_some()
    }

    /// The quota the cell's CPU group sets, as the kernel holds it.
    pub fn quota(&self) -> Option<Quota> {
        let g = self.group_of(Controller::Cpu)?;
        limits::own_quota(&g.dir, g.version)
    }

    /// The CPU controller's throttling counters for the cell, when it has a CPU group.
    pub fn cpu_stat(&self) -> Option<CpuStat> {
        limits::cpu_stat(&self.group_of(Controller::Cpu)?.dir)
    }

    /// The memory the cell's tasks are charged, bytes.
    pub fn memory_charge(&self) -> Option<u64> {
        let g = self.group_of(Controller::Memory)?;
        limits::memory_charge(&g.dir, g.version)
    }

    /// Out-of-memory kills in the cell so far.
    pub fn oom_kills(&self) -> Option<u64> {
        let g = self.group_of(Controller::Memory)?;
        limits::oom_kills(&g.dir, g.version)
    }

    /// Tasks in the cell now (`pids.current`).
    pub fn pids_current(&self) -> Option<u64> {
        let g = self.group_of(Controller::Pids)?;
        std::fs::read_to_string(g.dir.join("pids.current"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Processes in the cell now (every group's `cgroup.procs`, without repeats).
    pub fn members(&self) -> Vec<i32> {
        let mut pids: Vec<i32> = self
            .groups
            .iter()
            .flat_map(|g| members_of(&g.dir))
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// "cgroup v1: /sys/fs/cgroup/cpu/concbench-12-34-run (cpu quota 1.00 CPU per 100 ms)".
    pub fn describe(&self) -> String {
        let mut what = Vec::new();
        match &self.spec.cpu {
            Some(CpuLimit::Quota(c)) => {
                what.push(format!("cpu quota {c:.2} CPU per {} ms", PERIOD_US / 1000))
            }
            Some(CpuLimit::Cpuset(cpus)) => {
                what.push(format!("cpuset {}", files::format_cpu_list(cpus)))
            }
            Some(CpuLimit::Unlimited) => what.push("no CPU limit".into()),
            None => {}
        }
        if let Some(m) = self.spec.memory_max {
            what.push(format!("memory {} MiB", m >> 20));
        }
        if let Some(p) = self.spec.pids_max {
            what.push(format!("pids.max {p}"));
        }
        let dirs: Vec<String> = self
            .dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        format!(
            "cgroup {}: {} ({})",
            self.version(),
            dirs.join(", "),
            what.join(", ")
        )
    }

    /// Kill what is left in the cell, move this process out, and remove the directories. Called
    /// by the drop; call it to see an error.
    pub fn remove(&mut self) -> std::io::Result<()> {
        if self.removed {
            return Ok(());
        }
        self.removed = true;
        let left = self.leave();
        for g in &self.groups {
            kill_members(&g.dir, g.version);
        }
        let mut first_error = left.err();
        for g in self.groups.iter().rev() {
            if let Err(e) = remove_dir_patiently(&g.dir) {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Cell {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

fn members_of(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// SIGKILL every process in group `dir` (never this one) until it is empty or five seconds
/// pass: v2's `cgroup.kill` where the kernel has it, else one by one.
fn kill_members(dir: &Path, version: Version) {
    let me = std::process::id() as i32;
    let deadline = Instant::now() + Duration::from_secs(5);
    let kill_file = dir.join("cgroup.kill");
    loop {
        let all = members_of(dir);
        let pids: Vec<i32> = all.iter().copied().filter(|&p| p != me).collect();
        if pids.is_empty() || Instant::now() > deadline {
            return;
        }
        if version == Version::V2 && kill_file.exists() && !all.contains(&me) {
            let _ = std::fs::write(&kill_file, "1");
        } else {
            for pid in pids {
                // SAFETY: kill sends a signal to a process listed in the cell concbench made;
                // no memory is involved.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `rmdir`, retried while dying tasks still hold the group (EBUSY), for up to five seconds.
fn remove_dir_patiently(dir: &Path) -> std::io::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => return Err(e),
        }
    }
}

/// The owner of a cell directory named `concbench-<pid>-<start>-<purpose>`, if it is one.
fn owner(name: &str) -> Option<(u32, u64)> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.splitn(3, '-');
    let pid = parts.next()?.parse().ok()?;
    let start = parts.next()?.parse().ok()?;
    parts.next()?;
    Some((pid, start))
}

/// Every cell directory (named `concbench-<pid>-<start>-<purpose>`) beside or above this
/// process's groups, in every hierarchy, whoever owns it.
pub fn existing(h: &Hierarchy) -> Vec<(PathBuf, Version)> {
    let mut parents: Vec<(PathBuf, Version)> = Vec::new();
    for c in Controller::ALL {
        if let Some(p) = h.place(c) {
            for dir in p.own_and_ancestors() {
                if !parents.iter().any(|(d, _)| *d == dir) {
                    parents.push((dir, p.version));
                }
            }
        }
    }
    let mut cells = Vec::new();
    for (parent, version) in parents {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if owner(&name).is_some() {
                cells.push((entry.path(), version));
            }
        }
    }
    cells
}

/// Remove the cells whose owner has ended (a `kill -9`, an out-of-memory kill of concbench
/// itself): their processes are killed and their directories removed. Returns what was removed.
pub fn sweep_leftovers(h: &Hierarchy) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for (dir, version) in existing(h) {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some((pid, start)) = owner(&name) else {
            continue;
        };
        if start_ticks(pid).is_some_and(|s| s == start) {
            continue;
        }
        kill_members(&dir, version);
        if remove_dir_patiently(&dir).is_ok() {
            removed.push(dir);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_names_carry_their_owner() {
        let name = cell_name("run");
        let (pid, start) = owner(&name).unwrap();
        assert_eq!(pid, std::process::id());
        assert_eq!(Some(start), start_ticks(pid));
        assert!(name.ends_with("-run"));
        assert_eq!(owner("concbench-io-data"), None);
        assert_eq!(owner("concbench-12-34"), None);
    }

    #[test]
    fn a_live_cell_holds_a_started_program_and_leaves_nothing() {
        let spec = CellSpec {
            purpose: "test-live".into(),
            cpu: Some(CpuLimit::Quota(0.5)),
            memory_max: Some(256 << 20),
            pids_max: Some(64),
        };
        let mut cell = match Cell::create(&Hierarchy::live(), &spec) {
            Ok(cell) => cell,
            Err(refusal) => {
                // An ordinary user, or a machine without these controllers: the refusal says so.
                assert!(!refusal.reason.is_empty());
                eprintln!("skipped: no cell here: {refusal}");
                return;
            }
        };
        let dirs = cell.dirs();
        assert!(dirs.iter().all(|d| d.is_dir()));
        let q = cell.quota().unwrap();
        assert_eq!((q.quota_us, q.period_us), (50_000, PERIOD_US));
        let out = concbench_sys::spawn_tied_in(
            std::process::Command::new("cat")
                .arg("/proc/self/cgroup")
                .stdout(std::process::Stdio::piped()),
            &[],
            &cell.procs_files(),
        )
        .unwrap()
        .wait_with_output()
        .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let name = dirs[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(text.contains(&name), "{text}");
        assert!(cell.cpu_stat().is_some());
        cell.remove().unwrap();
        assert!(dirs.iter().all(|d| !d.exists()), "{dirs:?}");
    }

    #[test]
    fn a_cell_whose_owner_is_gone_is_swept_and_a_living_ones_is_not() {
        let h = Hierarchy::live();
        let Some(place) = h.place(Controller::Cpu) else {
            eprintln!("skipped: no cpu controller here");
            return;
        };
        // pid_max is at most 2^22: no process has this pid.
        let dead = place.own.join(format!("{PREFIX}{}-1-test", 1 << 23));
        if std::fs::create_dir(&dead).is_err() {
            eprintln!("skipped: cannot make control groups here (not root)");
            return;
        }
        let mut alive = Cell::create(
            &h,
            &CellSpec {
                purpose: "test-sweep".into(),
                cpu: Some(CpuLimit::Unlimited),
                ..CellSpec::default()
            },
        )
        .unwrap();
        let removed = sweep_leftovers(&h);
        assert!(removed.contains(&dead), "{removed:?}");
        assert!(!dead.exists());
        assert!(
            alive.dirs().iter().all(|d| d.exists()),
            "this process's own cell stays"
        );
        alive.remove().unwrap();
    }

    #[test]
    fn a_quota_is_never_below_the_kernels_minimum() {
        assert_eq!(quota_for(1.0).quota_us, 100_000);
        assert_eq!(quota_for(0.25).quota_us, 25_000);
        assert_eq!(quota_for(0.001).quota_us, 1000);
        assert!((quota_for(1.5).cpus() - 1.5).abs() < 1e-9);
    }
}
