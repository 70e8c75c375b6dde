//! A run under a CPU limit (`run --cpus N`, `capacity --cpus N`): the limit and where it was
//! set, what each runtime sized itself for under it, and how often the quota throttled the run.
//! Stored in the result document's `container` object (`concbench/result/v1`); the limit itself
//! is also in `host` (`cpu_quota`, `cpus_allowed`), which keeps runs under different limits from
//! being pooled as one machine.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The CPU limit of a run and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Container {
    pub limit: CpuLimit,
    /// CPUs online on the machine.
    pub host_cpus: usize,
    /// What each runtime detected (every one found on the machine).
    pub runtimes: Vec<Detected>,
    /// The cell's throttling over the whole run (absent without a CPU group to read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttling: Option<Throttling>,
}

/// How the run's CPUs were limited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuLimit {
    /// "quota" (CPU time per period), "cpuset" (only some CPUs) or "none" (a group with no
    /// limit: the baseline beside a limited run).
    pub mode: String,
    /// The quota, in CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<f64>,
    /// The quota's period, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_us: Option<u64>,
    /// The CPUs a cpuset allows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpuset: Vec<usize>,
    /// "v1" or "v2".
    pub cgroup: String,
    /// The group directories.
    pub groups: Vec<String>,
    /// "concbench run --cpus 1" or "the group concbench ran in".
    pub set_by: String,
}

impl CpuLimit {
    /// How many CPUs' worth of work the limit allows at once: the quota rounded up, the
    /// cpuset's size, or every CPU.
    pub fn parallelism(&self, host_cpus: usize) -> usize {
        match self.mode.as_str() {
            "quota" => self.cpus.map_or(host_cpus, |c| {
                (c.ceil() as usize).clamp(1, host_cpus.max(1))
            }),
            "cpuset" if !self.cpuset.is_empty() => self.cpuset.len(),
            _ => host_cpus,
        }
    }

    /// "a quota of 1.00 CPU", "cpuset 1 (1 CPU)", "no limit".
    pub fn phrase(&self) -> String {
        match (self.mode.as_str(), self.cpus) {
            ("quota", Some(c)) => format!(
                "a quota of {c:.2} CPU{} per {} ms",
                if (c - 1.0).abs() < 1e-9 { "" } else { "s" },
                self.period_us.unwrap_or(100_000) / 1000
            ),
            ("cpuset", _) => format!(
                "a cpuset of {} CPU{} ({})",
                self.cpuset.len(),
                if self.cpuset.len() == 1 { "" } else { "s" },
                self.cpuset
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            _ => "no limit".into(),
        }
    }
}

/// What one runtime sized itself for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detected {
    /// "Go", "Java 17", "Java 25", "Python", "tokio", "Swoole", "PHP-FPM".
    pub runtime: String,
    /// The runtime's own version string, when it ran.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// What it sizes from: "GOMAXPROCS", "availableProcessors()", "os.cpu_count()",
    /// "worker threads", "worker_num", "pm.max_children".
    pub what: String,
    /// The value it picked (absent when it could not be asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// How it came to that value (its rule, from its own documentation).
    pub rule: String,
    /// Other numbers it reported (NumCPU, the heap it sized, the affinity it saw).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub facts: BTreeMap<String, f64>,
    /// The runtime sizes for more CPUs than the limit lets it use.
    #[serde(default)]
    pub oversized: bool,
    /// The comparison with the limit, in words.
    pub note: String,
}

/// The CPU controller's counters over the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Throttling {
    /// Enforcement periods with runnable tasks.
    pub periods: u64,
    /// Periods in which the quota ran out.
    pub throttled_periods: u64,
    /// Time the group was held back, seconds.
    pub throttled_s: f64,
}

impl Throttling {
    /// The share of periods that were throttled.
    pub fn share(&self) -> Option<f64> {
        (self.periods > 0).then(|| self.throttled_periods as f64 / self.periods as f64)
    }
}
