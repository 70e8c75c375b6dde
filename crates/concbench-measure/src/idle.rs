//! The CPUs' idle states: the cpuidle driver and governor, each CPU's states (name, exit latency,
//! target residency, entries, time, disabled), and how many entries each state got across a
//! stretch of measuring.
//!
//! Why: a wake-up on another CPU costs what that CPU's idle state costs to leave — a few hundred
//! nanoseconds from a polling state, tens of microseconds from a deep C-state or from a halted
//! vCPU (a VM exit). Which state a round's partner CPU was in explains a bimodal switch figure.
//!
//! Everything is read below a root directory (`/` on a live machine, a recorded tree in tests),
//! and a file that cannot be read is left empty rather than guessed.

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A filesystem root the kernel's files are read below (`/` on a live machine).
#[derive(Debug, Clone)]
pub struct Root(PathBuf);

impl Default for Root {
    fn default() -> Self {
        Root(PathBuf::from("/"))
    }
}

impl Root {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Root(path.into())
    }

    /// The live machine's path of `rel` (`sys/...`, `proc/...`).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel.trim_start_matches('/'))
    }

    /// The trimmed contents of `rel`, `None` when missing, unreadable or empty.
    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path(rel))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// `rel` parsed as a number.
    pub fn number(&self, rel: &str) -> Option<u64> {
        self.read(rel)?.parse().ok()
    }

    /// The names in directory `rel`, sorted (empty when it is missing).
    pub fn list(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path(rel))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Whether `rel` exists.
    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }
}

/// One idle state of one CPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdleState {
    /// K in `cpuN/cpuidle/stateK`.
    pub index: usize,
    pub name: String,
    pub desc: Option<String>,
    /// Exit latency, µs.
    pub latency_us: u64,
    /// Target residency: the shortest stay worth entering the state for, µs.
    pub residency_us: u64,
    /// Entries since boot.
    pub usage: u64,
    /// Time spent in the state since boot, µs.
    pub time_us: u64,
    /// Disabled for this CPU (`disable` is 1).
    pub disabled: bool,
}

impl IdleState {
    /// A state that polls instead of stopping the CPU: leaving it costs nothing to speak of.
    pub fn is_poll(&self) -> bool {
        self.name.eq_ignore_ascii_case("POLL") || self.latency_us == 0
    }
}

/// The idle states of one CPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuIdle {
    pub cpu: usize,
    pub states: Vec<IdleState>,
}

/// The machine's idle setup.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IdleInfo {
    /// `cpuidle/current_driver` (`none`: the kernel's default idle, such as HLT).
    pub driver: Option<String>,
    /// `cpuidle/current_governor` (or `current_governor_ro`).
    pub governor: Option<String>,
    /// Each online CPU that publishes states.
    pub cpus: Vec<CpuIdle>,
    /// The haltpoll module's `guest_halt_poll_ns` (how long a guest vCPU polls before halting),
    /// when the module is present.
    pub guest_halt_poll_ns: Option<u64>,
    /// Every haltpoll module parameter, for the record.
    pub haltpoll_params: BTreeMap<String, String>,
    /// The kernel command line's idle-related words (`idle=`, `intel_idle.max_cstate=`,
    /// `processor.max_cstate=`, `cpuidle.off=`, `haltpoll.*`, `cpuidle_haltpoll.*`).
    pub cmdline: Vec<String>,
}

impl IdleInfo {
    /// Whether per-state counters exist (a cpuidle driver publishes states).
    pub fn has_states(&self) -> bool {
        self.cpus.iter().any(|c| !c.states.is_empty())
    }

    /// The states of the first CPU (they are the same on every CPU on all machines seen).
    pub fn states(&self) -> &[IdleState] {
        self.cpus.first().map(|c| &c.states[..]).unwrap_or(&[])
    }

    /// The deepest exit latency, µs, of the states enabled on some CPU.
    pub fn deepest_latency_us(&self) -> Option<u64> {
        self.cpus
            .iter()
            .flat_map(|c| c.states.iter().filter(|s| !s.disabled))
            .map(|s| s.latency_us)
            .max()
    }
}

const CPUIDLE: &str = "sys/devices/system/cpu/cpuidle";
const HALTPOLL: &str = "sys/module/haltpoll/parameters";

/// Read everything below `root`; never fails.
pub fn read(root: &Root) -> IdleInfo {
    let haltpoll_params: BTreeMap<String, String> = root
        .list(HALTPOLL)
        .into_iter()
        .filter_map(|p| {
            let v = root.read(&format!("{HALTPOLL}/{p}"))?;
            Some((p, v))
        })
        .collect();
    IdleInfo {
        driver: root.read(&format!("{CPUIDLE}/current_driver")),
        governor: root
            .read(&format!("{CPUIDLE}/current_governor"))
            .or_else(|| root.read(&format!("{CPUIDLE}/current_governor_ro"))),
        cpus: online(root)
            .into_iter()
            .map(|cpu| CpuIdle {
                cpu,
                states: states_of(root, cpu),
            })
            .filter(|c| !c.states.is_empty())
            .collect(),
        guest_halt_poll_ns: haltpoll_params
            .get("guest_halt_poll_ns")
            .and_then(|v| v.parse().ok()),
        haltpoll_params,
        cmdline: idle_cmdline(root),
    }
}

/// The online CPUs (`/sys/devices/system/cpu/online`, "0-3,6"), empty when unreadable.
pub fn online(root: &Root) -> Vec<usize> {
    root.read("sys/devices/system/cpu/online")
        .map(|l| parse_cpu_list(&l))
        .unwrap_or_default()
}

/// "0-3,6" -> [0, 1, 2, 3, 6]; malformed parts are skipped.
pub fn parse_cpu_list(list: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    out.extend(a..=b);
                }
            }
            None => out.extend(part.parse::<usize>().ok()),
        }
    }
    out
}

fn state_dir(cpu: usize, index: usize) -> String {
    format!("sys/devices/system/cpu/cpu{cpu}/cpuidle/state{index}")
}

/// The states of `cpu`, by index.
pub fn states_of(root: &Root, cpu: usize) -> Vec<IdleState> {
    let mut indices: Vec<usize> = root
        .list(&format!("sys/devices/system/cpu/cpu{cpu}/cpuidle"))
        .iter()
        .filter_map(|n| n.strip_prefix("state")?.parse().ok())
        .collect();
    indices.sort_unstable();
    indices
        .into_iter()
        .filter_map(|index| {
            let dir = state_dir(cpu, index);
            let num = |f: &str| root.number(&format!("{dir}/{f}")).unwrap_or(0);
            Some(IdleState {
                index,
                name: root.read(&format!("{dir}/name"))?,
                desc: root.read(&format!("{dir}/desc")),
                latency_us: num("latency"),
                residency_us: num("residency"),
                usage: num("usage"),
                time_us: num("time"),
                disabled: num("disable") == 1,
            })
        })
        .collect()
}

fn idle_cmdline(root: &Root) -> Vec<String> {
    let line = root.read("proc/cmdline").unwrap_or_default();
    // The init's own arguments follow `--`; they are not the kernel's.
    let kernel = line.split(" -- ").next().unwrap_or_default();
    kernel
        .split_whitespace()
        .filter(|w| {
            [
                "idle=",
                "intel_idle.",
                "processor.max_cstate",
                "cpuidle",
                "haltpoll",
            ]
            .iter()
            .any(|p| w.starts_with(p) || w.contains(".guest_halt_poll"))
        })
        .map(str::to_string)
        .collect()
}

/// Entries into each idle state of some CPUs, at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageSnapshot {
    /// (cpu, state name) -> entries since boot.
    entries: BTreeMap<(usize, String), u64>,
    /// (cpu, state name) -> µs spent since boot.
    time_us: BTreeMap<(usize, String), u64>,
}

/// Entries and time per state name over an interval, summed over the CPUs read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageDelta {
    /// State name -> (entries, µs).
    pub per_state: BTreeMap<String, (u64, u64)>,
}

impl UsageDelta {
    /// Entries into any state that stops the CPU (every state but polling ones).
    pub fn sleeping_entries(&self) -> u64 {
        self.per_state
            .iter()
            .filter(|(name, _)| !name.eq_ignore_ascii_case("POLL"))
            .map(|(_, (n, _))| n)
            .sum()
    }
}

impl UsageSnapshot {
    /// Read the usage counters of `cpus`' states. Empty when the machine has no cpuidle states.
    pub fn read(root: &Root, cpus: &[usize]) -> Self {
        let mut s = UsageSnapshot::default();
        for &cpu in cpus {
            for st in states_of(root, cpu) {
                s.entries.insert((cpu, st.name.clone()), st.usage);
                s.time_us.insert((cpu, st.name), st.time_us);
            }
        }
        s
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What happened between `self` (earlier) and `later`. A counter that went backwards (a CPU
    /// went offline and came back) counts as 0.
    pub fn delta(&self, later: &UsageSnapshot) -> UsageDelta {
        let mut d = UsageDelta::default();
        for (key, &after) in &later.entries {
            let before = self.entries.get(key).copied().unwrap_or(after);
            let t_after = later.time_us.get(key).copied().unwrap_or(0);
            let t_before = self.time_us.get(key).copied().unwrap_or(t_after);
            let e = d.per_state.entry(key.1.clone()).or_default();
            e.0 += after.saturating_sub(before);
            e.1 += t_after.saturating_sub(t_before);
        }
        d
    }
}

/// The metric names a sample's idle usage is reported under (see [`metrics_per_op`]).
pub const SLEEPS_PER_OP: &str = "idle_sleeps_per_op";

/// A sample's idle evidence as per-operation metrics: entries into sleeping states per
/// operation (`idle_sleeps_per_op`) and per state (`idle_<state>_per_op`, lowercase).
pub fn metrics_per_op(delta: &UsageDelta, ops: u64) -> Vec<(String, f64)> {
    if delta.per_state.is_empty() || ops == 0 {
        return Vec::new();
    }
    let ops = ops as f64;
    let mut out = vec![(
        SLEEPS_PER_OP.to_string(),
        delta.sleeping_entries() as f64 / ops,
    )];
    for (name, (n, _)) in &delta.per_state {
        let key: String = name
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        out.push((format!("idle_{key}_per_op"), *n as f64 / ops));
    }
    out
}

/// Whether this process may write `stateK/disable` of `cpu` (root, and the kernel allows it).
pub fn can_disable(root: &Root, cpu: usize, index: usize) -> bool {
    let p: &Path = &root.path(&format!("{}/disable", state_dir(cpu, index)));
    std::fs::OpenOptions::new().write(true).open(p).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_ranges_and_singles() {
        assert_eq!(parse_cpu_list("0-3,6"), vec![0, 1, 2, 3, 6]);
        assert_eq!(parse_cpu_list("1"), vec![1]);
        assert_eq!(parse_cpu_list(""), Vec::<usize>::new());
        assert_eq!(parse_cpu_list("x,2"), vec![2]);
    }

    #[test]
    fn deltas_sum_over_cpus_per_state_and_never_go_negative() {
        let snap = |v: &[(usize, &str, u64)]| UsageSnapshot {
            entries: v.iter().map(|&(c, n, u)| ((c, n.to_string()), u)).collect(),
            time_us: v
                .iter()
                .map(|&(c, n, u)| ((c, n.to_string()), u * 10))
                .collect(),
        };
        let a = snap(&[(0, "POLL", 5), (0, "C1", 10), (1, "C1", 100)]);
        let b = snap(&[(0, "POLL", 7), (0, "C1", 13), (1, "C1", 90)]);
        let d = a.delta(&b);
        assert_eq!(d.per_state["C1"], (3, 30));
        assert_eq!(d.per_state["POLL"], (2, 20));
        assert_eq!(d.sleeping_entries(), 3);
        let m = metrics_per_op(&d, 3);
        assert_eq!(m[0], (SLEEPS_PER_OP.to_string(), 1.0));
        assert!(m.contains(&("idle_poll_per_op".to_string(), 2.0 / 3.0)));
    }

    #[test]
    fn no_states_no_metrics() {
        assert!(metrics_per_op(&UsageDelta::default(), 10).is_empty());
    }

    #[test]
    fn the_live_machine_reads_without_failing() {
        let info = read(&Root::default());
        // Whatever the machine has, every state read has a name.
        assert!(info.states().iter().all(|s| !s.name.is_empty()));
    }
}
