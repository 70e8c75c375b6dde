//! Facts about the machine a run happened on, and the confounders that can distort it.
//!
//! Collected by `concbench-measure::host`; stored in the result document's `host` object.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: String,
    /// A stable, anonymous id of the machine (or container host) that survives renames and
    /// reboots: `/etc/machine-id` hashed with a concbench-specific key (the raw id is never
    /// written); prefixed `host-` when it falls back to the hostname, `named-` when
    /// `$CONCBENCH_MACHINE_ID` names the machine (containers). `None` in documents from builds
    /// before fleets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_id: Option<String>,
    /// `uname -r`.
    pub kernel: String,
    /// `/etc/os-release` PRETTY_NAME, when readable.
    pub os: Option<String>,
    pub arch: String,
    /// `/proc/cpuinfo` model name.
    pub cpu_model: String,
    /// CPUs online.
    pub logical_cpus: usize,
    /// CPUs this process may run on (sched_getaffinity), ascending.
    pub cpus_allowed: Vec<usize>,
    /// Whether simultaneous multithreading siblings are active.
    pub smt: bool,
    /// True when running under a hypervisor.
    pub virtualized: bool,
    /// The hypervisor's name when visible (CPUID vendor, DMI, /sys/hypervisor).
    pub hypervisor: Option<String>,
    /// The kernel's clocksource (tsc is cheap; hpet or acpi_pm make every clock read costly).
    pub clocksource: String,
    /// CPU vulnerability -> mitigation status, from /sys/devices/system/cpu/vulnerabilities.
    pub mitigations: BTreeMap<String, String>,
    /// The cpufreq governor of CPU 0, when cpufreq is exposed.
    pub governor: Option<String>,
    /// A cgroup CPU quota in CPUs (cpu.max), when one is set.
    pub cpu_quota: Option<f64>,
    pub memory_total_kib: u64,
    pub memory_available_kib: u64,
    /// Load average (1, 5, 15 minutes) when the run started.
    pub load_average: [f64; 3],
    pub page_size: usize,
    /// Effective uid is 0.
    pub is_root: bool,
    /// Whether this process may switch to SCHED_FIFO (root or CAP_SYS_NICE with a real-time limit).
    pub can_sched_fifo: bool,
    /// /proc/sys/kernel/threads-max.
    pub threads_max: Option<u64>,
    /// RLIMIT_NPROC soft limit (None = unlimited).
    pub rlimit_nproc: Option<u64>,
    /// RLIMIT_NOFILE soft limit (None = unlimited).
    pub rlimit_nofile: Option<u64>,
    /// Default thread stack size (RLIMIT_STACK soft limit, what pthread uses), KiB.
    pub default_stack_kib: u64,
}

impl Host {
    /// The CPU limit the run was under, when there was one: "a quota of 1.00 CPUs", "1 of 2
    /// CPUs allowed" (a cpuset or affinity mask), or both. Runs under different limits measure
    /// different machines: they are never pooled, and a fleet shows them apart.
    pub fn cpu_limit(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(q) = self.cpu_quota.filter(|q| *q < self.logical_cpus as f64) {
            parts.push(format!("a quota of {q:.2} CPUs"));
        }
        let allowed = self.cpus_allowed.len();
        if allowed > 0 && allowed < self.logical_cpus {
            parts.push(format!("{allowed} of {} CPUs allowed", self.logical_cpus));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// The confounders worth a warning on every result (each says what to do).
    pub fn confounder_warnings(&self) -> Vec<crate::RunWarning> {
        // No warning from the load average: it is a one-minute mean that still says "busy" a
        // minute after a build has finished. The run measures what other processes use now,
        // waits for them to settle and records it per round (concbench-session).
        let mut w = Vec::new();
        if self.clocksource != "tsc" && !self.clocksource.is_empty() {
            w.push(crate::RunWarning::Clocksource {
                clocksource: self.clocksource.clone(),
            });
        }
        if let Some(q) = self.cpu_quota {
            if q < self.logical_cpus as f64 {
                w.push(crate::RunWarning::CpuQuota { cpus: q });
            }
        }
        w
    }
}
