//! Every setting of a machine that bends concbench's figures, read for `concbench check`: its
//! value, whether it bends them here, why it matters and how to change it (as `pyperf system
//! show` does for Python benchmarks).
//!
//! Read below a [`Root`], so recorded trees (a bare-metal Intel, an AMD desktop, a haltpoll VM,
//! a container without cpuidle) test the same code a live machine runs. A file that cannot be
//! read makes its setting "unknown", never a guess.

use crate::idle::{self, IdleInfo, Root};
use concbench_core::RunMode;
use serde::Serialize;

/// What a setting does to the figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// As good as it gets for measuring.
    Fine,
    /// Worth knowing; does not move the figures by itself.
    Info,
    /// Limits what concbench can measure here (counters, policies), not the figures.
    Limits,
    /// Moves the figures from run to run or away from what the mechanism costs.
    Bends,
    /// Could not be read.
    Unknown,
}

/// One setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// Stable key for tools (`idle.driver`, `cpufreq.governor`, ...).
    pub key: &'static str,
    /// The value as the machine reports it, or a short description of it.
    pub value: String,
    pub effect: Effect,
    /// Why it matters, one sentence.
    pub why: String,
    /// How to change it (empty when there is nothing to change).
    pub how: String,
}

impl Setting {
    fn new(key: &'static str, value: impl Into<String>, effect: Effect) -> Self {
        Setting {
            key,
            value: value.into(),
            effect,
            why: String::new(),
            how: String::new(),
        }
    }

    fn why(mut self, why: impl Into<String>) -> Self {
        self.why = why.into();
        self
    }

    fn how(mut self, how: impl Into<String>) -> Self {
        self.how = how.into();
        self
    }
}

/// What is known about the reader: some files are root-only; the live machine's hypervisor
/// name comes from CPUID ([`crate::host::hypervisor`]), which no file holds.
#[derive(Debug, Clone, Default)]
pub struct Reader {
    pub is_root: bool,
    pub hypervisor: Option<String>,
}

/// Every setting, in the order `check` shows them.
pub fn read(root: &Root, reader: Reader) -> Vec<Setting> {
    let idle = idle::read(root);
    let virt = reader.hypervisor.clone().or_else(|| hypervisor(root));
    let mut out = idle_settings(root, &idle, virt.is_some());
    out.extend([
        pm_qos(root, &reader),
        cpufreq_governor(root, virt.is_some()),
        boost(root),
        smt(root),
        isolated(root),
        thp(root),
        perf_paranoid(root, &reader),
        pmu(root),
        aslr(root),
        irqbalance(root),
        steal(root),
        hypervisor_setting(virt),
        cpu_quota(root),
        memory_limit(root),
        swap(root),
    ]);
    // Commands to run as root, as this machine runs them (`sudo` only where it exists).
    for s in &mut out {
        s.how = concbench_sys::users::fit_root_commands(&s.how);
    }
    out
}

/// Whether any setting bends the figures (`check`'s exit code).
pub fn any_bends(settings: &[Setting]) -> bool {
    settings.iter().any(|s| s.effect == Effect::Bends)
}

/// A wake-up from an idle state whose exit latency passes this many µs is worth a line.
const DEEP_LATENCY_US: u64 = 10;

/// A run with `--hold-awake` and how long one takes: "`concbench run --quick --hold-awake`
/// (about a minute; without --quick a full run, about 9 minutes)".
fn hold_run(prefix: &str) -> String {
    let full_min = RunMode::Full.default_budget_s().div_ceil(60);
    format!(
        "`{prefix}concbench run --quick --hold-awake` (about a minute; without --quick a full run, \
         about {full_min} minutes)"
    )
}

/// How to hold the CPUs awake: a run with `--hold-awake` as root (which holds
/// /dev/cpu_dma_latency), or the machine's settings.
fn hold_how() -> String {
    format!(
        "hold the CPUs awake for a run: {}, which holds /dev/cpu_dma_latency at 0; for the \
         machine: `tuned-adm profile latency-performance`, or the kernel parameter idle=poll",
        hold_run("sudo ")
    )
}

/// Without a cpuidle driver the PM QoS limit never reaches the idle loop: any user's run holds
/// the CPUs with a spinner.
fn hold_how_no_driver() -> String {
    format!(
        "hold the CPUs awake for a run: {} (here a SCHED_IDLE spinner per CPU: without a cpuidle \
         driver /dev/cpu_dma_latency does not reach the idle loop); for the machine: the kernel \
         parameter idle=poll",
        hold_run("")
    )
}

fn idle_settings(root: &Root, info: &IdleInfo, virtualized: bool) -> Vec<Setting> {
    let driver = info.driver.clone();
    let why_wake = "waking a thread on another CPU costs what that CPU's idle state costs to \
                    leave, so cross-CPU and unpinned switch figures swing with how deeply the \
                    partner CPU slept";
    let mut out = Vec::new();
    let d = match driver.as_deref() {
        None => Setting::new("idle.driver", "no cpuidle (not published)", Effect::Unknown).why(
            "without cpuidle the kernel's default idle is used and no per-state counters exist",
        ),
        Some("none") if virtualized => Setting::new(
            "idle.driver",
            "none: idle vCPUs halt at once (HLT, a VM exit)",
            Effect::Bends,
        )
        .why(format!(
            "{why_wake}; a halted vCPU wakes through the hypervisor (tens of µs), an awake one in \
             a few µs"
        ))
        .how(format!(
            "{}; or load the cpuidle-haltpoll driver with guest_halt_poll_ns > 0 (polls \
             before halting)",
            hold_how_no_driver()
        )),
        Some("none") => Setting::new(
            "idle.driver",
            "none (the kernel's default idle)",
            Effect::Info,
        )
        .why("no cpuidle driver: no per-state counters; idle CPUs use the default halt"),
        Some(name) => {
            let deepest = info.deepest_latency_us().unwrap_or(0);
            let halts_at_once = name == "haltpoll" && info.guest_halt_poll_ns == Some(0);
            let bends = deepest > DEEP_LATENCY_US || halts_at_once;
            let value = match info.deepest_latency_us() {
                Some(l) => format!("{name} (deepest enabled state: {l} µs exit latency)"),
                None => name.to_string(),
            };
            let s = Setting::new(
                "idle.driver",
                value,
                if bends { Effect::Bends } else { Effect::Fine },
            )
            .why(why_wake);
            if bends {
                s.how(hold_how())
            } else {
                s
            }
        }
    };
    out.push(d);
    if let Some(g) = &info.governor {
        out.push(
            Setting::new("idle.governor", g.clone(), Effect::Info)
                .why("the governor picks the state from its guess of the idle time; menu and teo guess from recent wake-ups"),
        );
    }
    if info.has_states() {
        let states: Vec<String> = info
            .states()
            .iter()
            .map(|s| {
                format!(
                    "{} {}µs{}",
                    s.name,
                    s.latency_us,
                    if s.disabled { " (disabled)" } else { "" }
                )
            })
            .collect();
        out.push(
            Setting::new("idle.states", states.join(", "), Effect::Info)
                .why("exit latency of each state: the price of a wake-up from it")
                .how(
                    "disable a deep state for a test: echo 1 > /sys/devices/system/cpu/cpuN/cpuidle/stateK/disable (root)",
                ),
        );
    }
    if let Some(ns) = info.guest_halt_poll_ns {
        let active = driver.as_deref() == Some("haltpoll");
        let effect = match (active, ns) {
            (true, 0) => Effect::Bends,
            (true, _) => Effect::Fine,
            (false, _) => Effect::Info,
        };
        let value = if active {
            format!("guest_halt_poll_ns={ns}")
        } else {
            format!(
                "guest_halt_poll_ns={ns} (the haltpoll driver is not the one in use: {})",
                driver.as_deref().unwrap_or("none")
            )
        };
        let cmd = root.read("proc/cmdline").unwrap_or_default();
        let on_cmdline = cmd
            .split_whitespace()
            .find(|w| w.contains("guest_halt_poll_ns"))
            .map(|w| format!("; set on the kernel command line: {w}"))
            .unwrap_or_default();
        out.push(
            Setting::new("idle.halt_poll", format!("{value}{on_cmdline}"), effect)
                .why("how long an idle vCPU polls before it halts into the hypervisor; 0 halts at once, so every wake-up of an idle vCPU is a VM exit")
                .how("echo 200000 > /sys/module/haltpoll/parameters/guest_halt_poll_ns (root), or haltpoll.guest_halt_poll_ns= on the kernel command line"),
        );
    }
    if !info.cmdline.is_empty() {
        out.push(
            Setting::new("idle.cmdline", info.cmdline.join(" "), Effect::Info)
                .why("idle settings on the kernel command line hold for the whole boot"),
        );
    }
    out
}

fn pm_qos(root: &Root, reader: &Reader) -> Setting {
    let per_cpu: Vec<String> = idle::online(root)
        .into_iter()
        .filter_map(|c| {
            root.read(&format!(
                "sys/devices/system/cpu/cpu{c}/power/pm_qos_resume_latency_us"
            ))
            .filter(|v| v != "0" && v != "n/a")
            .map(|v| format!("cpu{c}={v}µs"))
        })
        .collect();
    let dma = if reader.is_root && root.exists("dev/cpu_dma_latency") {
        // The kernel's default, 2000 s, means no request is held.
        read_dma_latency(root)
            .filter(|&v| v < 2_000_000_000)
            .map(|v| format!("/dev/cpu_dma_latency={v}µs"))
    } else {
        None
    };
    let mut parts: Vec<String> = per_cpu;
    parts.extend(dma);
    let value = if parts.is_empty() {
        if reader.is_root {
            "no limit".to_string()
        } else {
            "no per-CPU limit (/dev/cpu_dma_latency is readable by root only)".to_string()
        }
    } else {
        parts.join(", ")
    };
    Setting::new("idle.pm_qos", value, Effect::Info)
        .why("a PM QoS latency limit keeps CPUs out of idle states slower to leave than it")
        .how("held by a process for as long as it keeps /dev/cpu_dma_latency open (concbench run --hold-awake does)")
}

/// `/dev/cpu_dma_latency` returns the current system-wide limit as a 4-byte integer (µs), or
/// as text in recorded trees.
fn read_dma_latency(root: &Root) -> Option<i64> {
    let bytes = std::fs::read(root.path("dev/cpu_dma_latency")).ok()?;
    if let Ok(b) = <[u8; 4]>::try_from(&bytes[..]) {
        return Some(i32::from_ne_bytes(b) as i64);
    }
    String::from_utf8(bytes).ok()?.trim().parse().ok()
}

fn cpufreq_governor(root: &Root, virtualized: bool) -> Setting {
    let key = "cpufreq.governor";
    let why = "a governor other than performance changes the clock with the load, so a short \
               sample can run at a lower frequency than the one before it";
    match root.read("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") {
        Some(g) if g == "performance" => Setting::new(key, g, Effect::Fine).why(why),
        Some(g) => {
            let driver = root
                .read("sys/devices/system/cpu/cpu0/cpufreq/scaling_driver")
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            Setting::new(key, format!("{g}{driver}"), Effect::Bends)
                .why(why)
                .how("sudo cpupower frequency-set -g performance")
        }
        None if virtualized => Setting::new(
            key,
            "not exposed (the hypervisor sets the clock)",
            Effect::Info,
        )
        .why(why),
        None => Setting::new(key, "not exposed (no cpufreq driver)", Effect::Unknown).why(why),
    }
}

fn boost(root: &Root) -> Setting {
    let key = "cpufreq.boost";
    let why = "turbo/boost raises the clock while few cores are busy and the chip is cool, so \
               the same code runs at different speeds from run to run";
    let no_turbo = root.read("sys/devices/system/cpu/intel_pstate/no_turbo");
    let boost = root.read("sys/devices/system/cpu/cpufreq/boost");
    match (no_turbo, boost) {
        (Some(v), _) if v == "1" => {
            Setting::new(key, "turbo off (intel_pstate)", Effect::Fine).why(why)
        }
        (Some(_), _) => Setting::new(key, "turbo on (intel_pstate)", Effect::Bends)
            .why(why)
            .how("echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"),
        (None, Some(v)) if v == "0" => Setting::new(key, "boost off", Effect::Fine).why(why),
        (None, Some(_)) => Setting::new(key, "boost on", Effect::Bends)
            .why(why)
            .how("echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"),
        (None, None) => Setting::new(key, "not exposed", Effect::Unknown).why(why),
    }
}

fn smt(root: &Root) -> Setting {
    let why = "SMT siblings share one core's caches and execution units; concbench classifies \
               CPU pairs, but an unpinned partner may land on the sibling";
    let control = root.read("sys/devices/system/cpu/smt/control");
    let active = root.read("sys/devices/system/cpu/smt/active");
    let value = match (active.as_deref(), control.as_deref()) {
        (Some("1"), _) => "on".to_string(),
        (Some("0"), Some(c)) => format!("off ({c})"),
        (_, Some(c)) => c.to_string(),
        (Some(a), None) => a.to_string(),
        (None, None) => return Setting::new("smt", "not exposed", Effect::Unknown).why(why),
    };
    Setting::new("smt", value, Effect::Info)
        .why(why)
        .how("echo off | sudo tee /sys/devices/system/cpu/smt/control (until reboot), or nosmt on the kernel command line")
}

fn isolated(root: &Root) -> Setting {
    let iso = root
        .read("sys/devices/system/cpu/isolated")
        .unwrap_or_default();
    let nohz = root
        .read("sys/devices/system/cpu/nohz_full")
        .filter(|v| v != "(null)")
        .unwrap_or_default();
    let value = match (iso.is_empty(), nohz.is_empty()) {
        (true, true) => "none".to_string(),
        _ => format!(
            "isolated: {}, nohz_full: {}",
            if iso.is_empty() { "none" } else { &iso },
            if nohz.is_empty() { "none" } else { &nohz }
        ),
    };
    Setting::new("cpus.isolated", value, Effect::Info)
        .why("CPUs kept free of other tasks and of the timer tick measure with less noise; concbench does not require them (it waits for a quiet machine and measures in rounds)")
        .how("isolcpus= and nohz_full= on the kernel command line")
}

fn thp(root: &Root) -> Setting {
    let why = "transparent huge pages change what a page fault costs (one 2 MiB fault for 512 4 KiB ones), so memory and creation figures depend on alignment and khugepaged";
    let Some(v) = root.read("sys/kernel/mm/transparent_hugepage/enabled") else {
        return Setting::new("thp", "not exposed", Effect::Unknown).why(why);
    };
    let chosen = v
        .split_whitespace()
        .find(|w| w.starts_with('['))
        .map(|w| w.trim_matches(['[', ']']).to_string())
        .unwrap_or(v);
    let effect = if chosen == "always" {
        Effect::Bends
    } else {
        Effect::Fine
    };
    Setting::new("thp", chosen, effect)
        .why(why)
        .how("echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled")
}

fn perf_paranoid(root: &Root, reader: &Reader) -> Setting {
    let why = "above 1 an ordinary user cannot read scheduler tracepoints or per-CPU counters, so concbench skips its switch and cache-miss counters";
    match root.number("proc/sys/kernel/perf_event_paranoid") {
        Some(v) if v > 1 && !reader.is_root => {
            Setting::new("perf_event_paranoid", v.to_string(), Effect::Limits)
                .why(why)
                .how("sudo sysctl kernel.perf_event_paranoid=1, or run as root")
        }
        Some(v) => Setting::new("perf_event_paranoid", v.to_string(), Effect::Fine).why(why),
        None => Setting::new("perf_event_paranoid", "not exposed", Effect::Unknown).why(why),
    }
}

fn pmu(root: &Root) -> Setting {
    let why = "without a hardware PMU there are no cycle, instruction or cache-miss counts (many VMs hide it)";
    let devices = root.list("sys/bus/event_source/devices");
    let hw: Vec<&String> = devices
        .iter()
        .filter(|d| {
            *d == "cpu" || d.starts_with("cpu_") || d.starts_with("armv") || d.contains("pmu")
        })
        .collect();
    if devices.is_empty() {
        return Setting::new("pmu", "not exposed", Effect::Unknown).why(why);
    }
    if hw.is_empty() {
        Setting::new("pmu", "none (software events only)", Effect::Limits)
            .why(why)
            .how("on a VM: expose the PMU to the guest (KVM: -cpu host,pmu=on)")
    } else {
        let names: Vec<&str> = hw.iter().map(|s| s.as_str()).collect();
        Setting::new("pmu", names.join(", "), Effect::Fine).why(why)
    }
}

fn aslr(root: &Root) -> Setting {
    let why = "address randomisation moves stacks and heaps between runs, so cache-set and alignment effects differ per round; concbench's rounds average over it";
    match root.read("proc/sys/kernel/randomize_va_space") {
        Some(v) => Setting::new(
            "aslr",
            match v.as_str() {
                "0" => "off".to_string(),
                "1" => "partial (1)".to_string(),
                "2" => "full (2)".to_string(),
                o => o.to_string(),
            },
            Effect::Info,
        )
        .why(why)
        .how("kept on: rounds in fresh processes turn it into noise the interval covers"),
        None => Setting::new("aslr", "not exposed", Effect::Unknown).why(why),
    }
}

/// Whether a process named `name` runs (from `/proc/<pid>/comm`).
fn process_running(root: &Root, name: &str) -> bool {
    root.list("proc")
        .iter()
        .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
        .any(|p| root.read(&format!("proc/{p}/comm")).as_deref() == Some(name))
}

fn irqbalance(root: &Root) -> Setting {
    let why = "irqbalance moves interrupts between CPUs every few seconds; an interrupt landing on a measuring CPU stretches that sample";
    if process_running(root, "irqbalance") {
        let isolated = root
            .read("sys/devices/system/cpu/isolated")
            .is_some_and(|v| !v.is_empty());
        Setting::new(
            "irqbalance",
            "running",
            if isolated {
                Effect::Bends
            } else {
                Effect::Info
            },
        )
        .why(why)
        .how("sudo systemctl stop irqbalance (for the run)")
    } else {
        Setting::new("irqbalance", "not running", Effect::Fine).why(why)
    }
}

/// Share of CPU time stolen by the hypervisor since boot, from `/proc/stat`.
pub fn steal_share(root: &Root) -> Option<f64> {
    let stat = root.read("proc/stat")?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal [guest guest_nice] (guest is in user).
    let total: f64 = v.iter().take(8).sum();
    let steal = *v.get(7)?;
    (total > 0.0).then(|| steal / total)
}

fn steal(root: &Root) -> Setting {
    let why = "time the hypervisor gave this VM's CPUs to others: a sample it hits is longer by the stolen time; concbench records steal per round";
    match steal_share(root) {
        Some(s) if s >= 0.01 => Setting::new(
            "steal",
            format!("{:.1}% of CPU time since boot", s * 100.0),
            Effect::Bends,
        )
        .why(why)
        .how("a dedicated-core instance, or measure when the host is quiet"),
        Some(s) => Setting::new(
            "steal",
            format!("{:.2}% of CPU time since boot", s * 100.0),
            Effect::Fine,
        )
        .why(why),
        None => Setting::new("steal", "not exposed", Effect::Unknown).why(why),
    }
}

/// The hypervisor's name when the machine is virtual (from the recorded or live files; the
/// live CPUID vendor is in [`crate::host`]).
fn hypervisor(root: &Root) -> Option<String> {
    let flagged = root
        .read("proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("flags"))
        .is_some_and(|l| l.split_whitespace().any(|f| f == "hypervisor"));
    let named = root
        .read("sys/hypervisor/type")
        .or_else(|| root.read("sys/class/dmi/id/sys_vendor").filter(|_| flagged));
    match (flagged, named) {
        (_, Some(n)) => Some(n),
        (true, None) => Some("unknown hypervisor".to_string()),
        (false, None) => None,
    }
}

fn hypervisor_setting(virt: Option<String>) -> Setting {
    let why = "on a VM a wake-up of an idle vCPU goes through the host's scheduler, and the host's other guests share the cores";
    match virt {
        Some(name) => {
            Setting::new("hypervisor", format!("virtualized ({name})"), Effect::Info).why(why)
        }
        None => Setting::new("hypervisor", "bare metal", Effect::Fine).why(why),
    }
}

fn cpu_quota(root: &Root) -> Setting {
    use crate::cgroup::{limits, Controller, Hierarchy, Version};
    let why = "a CPU quota throttles the whole group for the rest of a period once it is used up, so a sample that crosses the limit stalls for milliseconds";
    let h = Hierarchy::detect(root);
    let Some(place) = h.place(Controller::Cpu) else {
        return Setting::new("cgroup.cpu", "no cpu controller", Effect::Unknown).why(why);
    };
    let Some(q) = limits::cpu_quota(&h) else {
        return Setting::new("cgroup.cpu", "no quota", Effect::Fine).why(why);
    };
    let how = match place.version {
        Version::V1 => {
            "run outside the limited group, or raise cpu.cfs_quota_us (systemd: CPUQuota=)"
        }
        Version::V2 => "run outside the limited group, or raise cpu.max (systemd: CPUQuota=)",
    };
    Setting::new(
        "cgroup.cpu",
        format!(
            "{:.2} CPUs ({} µs per {} µs, cgroup {}, {})",
            q.value.cpus(),
            q.value.quota_us,
            q.value.period_us,
            place.version.as_str(),
            q.at.display()
        ),
        Effect::Bends,
    )
    .why(why)
    .how(how)
}

fn memory_limit(root: &Root) -> Setting {
    use crate::cgroup::{limits, Controller, Hierarchy};
    let why = "a memory limit bounds how many processes and threads the creation and memory experiments can start before reclaim or the OOM killer";
    let h = Hierarchy::detect(root);
    if h.place(Controller::Memory).is_none() {
        return Setting::new("cgroup.memory", "no memory controller", Effect::Unknown).why(why);
    }
    match limits::memory_max(&h) {
        Some(m) => Setting::new(
            "cgroup.memory",
            format!("{} MiB", m.value >> 20),
            Effect::Limits,
        )
        .why(why)
        .how(format!(
            "raise the limit of {} (v2 memory.max, v1 memory.limit_in_bytes; systemd: \
                 MemoryMax=)",
            m.at.display()
        )),
        None => Setting::new("cgroup.memory", "no limit", Effect::Fine).why(why),
    }
}

fn swap(root: &Root) -> Setting {
    let why =
        "with swap, a memory experiment near the limit measures the disk instead of the allocator";
    let Some(swaps) = root.read("proc/swaps") else {
        return Setting::new("swap", "not exposed", Effect::Unknown).why(why);
    };
    let devices = swaps
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .count();
    let swappiness = root
        .read("proc/sys/vm/swappiness")
        .map(|s| format!(", swappiness {s}"))
        .unwrap_or_default();
    if devices == 0 {
        Setting::new("swap", "off", Effect::Fine).why(why)
    } else {
        Setting::new(
            "swap",
            format!("{devices} device(s){swappiness}"),
            Effect::Info,
        )
        .why(why)
        .how("sudo swapoff -a (for the run)")
    }
}
