//! What `concbench capacity` found: for each model of concurrency (process, thread, coroutine,
//! async task, goroutine, Java thread, PHP Fiber), how many idle units were held at once, the
//! limit that stopped it, what one more unit costs in memory and time, and how many fit in a
//! GiB here. Stored in the result document's `capacity` object (`concbench/result/v1`).

use serde::{Deserialize, Serialize};

/// The answer of one `capacity` command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capacity {
    /// The memory each model may take, and how it was chosen.
    pub budget: Budget,
    /// The control group the units were held in, or why there was none.
    pub cell: CellNote,
    /// The machine's limits on units, as read before the first model.
    pub limits: Vec<Limit>,
    /// One entry per model, in the order they ran.
    pub models: Vec<ModelCapacity>,
    /// The machine before the first model and after the last (absent when interrupted before
    /// the end): what a capacity run must leave as it found it.
    pub before: HostState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<HostState>,
    /// The most units any model was allowed (`--max-units`), when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_units: Option<u64>,
}

/// How much memory the units of one model may hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    pub bytes: u64,
    /// MemAvailable when the budget was set, KiB.
    pub mem_available_kib: u64,
    /// "25% of MemAvailable (the default)", "--memory-budget 2GiB".
    pub source: String,
}

/// The cell: a control group with memory and task limits that stops a runaway model inside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellNote {
    /// Its directories and limits, when one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made: Option<String>,
    /// Why none was made (then the budget and margins are kept by concbench's own readings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

/// A limit on how many units can exist, as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    /// "kernel.pid_max", "vm.max_map_count", "RLIMIT_NPROC", "pids.max".
    pub name: String,
    pub value: u64,
    /// What it counts: "tasks", "memory maps per process", "bytes".
    pub counts: String,
    /// "machine", "user", "process" or "cgroup": who shares it.
    pub scope: String,
    /// Where it is set and how it is changed: "/proc/sys/kernel/pid_max (sysctl kernel.pid_max)".
    pub set_at: String,
    /// How many more it allowed when read (for the machine- and user-wide ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free: Option<u64>,
}

/// What the machine had free, before and after.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HostState {
    pub mem_available_kib: u64,
    /// Tasks (processes and threads) on the whole machine.
    pub tasks: u64,
    /// Control groups of concbench's that exist (0 after a clean end).
    pub cells: u64,
}

/// One model's capacity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCapacity {
    /// "process", "thread", "coroutine", "tokio task", "goroutine", "Java platform thread",
    /// "Java virtual thread", "PHP Fiber".
    pub model: String,
    /// The runtime and its version ("go1.26.8 linux/amd64", "Rust (std::thread)").
    pub runtime: String,
    /// What one idle unit is: "a forked process in pause()", "a thread blocked on a futex, 8 MiB
    /// stack reserved".
    pub unit: String,
    /// Units held at once when it stopped.
    pub units: u64,
    /// Why it stopped (absent when the model was skipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<Stop>,
    /// Memory per unit, KiB: the slope of PSS over the units plus the kernel's share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kib_per_unit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kib_per_unit_ci95: Option<[f64; 2]>,
    /// Its PSS part (what the process tree holds, shared pages divided among their sharers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pss_kib_per_unit: Option<f64>,
    /// The kernel's part: the holder tree's page tables (`VmPTE`) and a kernel stack per task
    /// (the machine's `KernelStack` per task, 16 KiB on x86-64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_kib_per_unit: Option<f64>,
    /// What the cell was charged per unit (pages and, where the kernel accounts it, its own
    /// memory), beside the two above as a check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charge_kib_per_unit: Option<f64>,
    /// Time to create one unit and bring it to idle, ns (all units' time over their count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_ns_per_unit: Option<f64>,
    /// How many fit in 1 GiB at `kib_per_unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_gib: Option<u64>,
    /// The readings the slope is fitted on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// Why the model did not run here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Wall-clock seconds the model took.
    #[serde(default)]
    pub seconds: f64,
}

/// Why a model stopped where it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stop {
    pub kind: StopKind,
    /// The limit's name ("kernel.pid_max", "the memory budget", "vm.max_map_count").
    pub limit: String,
    /// Its value, as said ("32768", "5.6 GiB").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Where it is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_at: Option<String>,
    /// The sentence: what happened, and where the limit itself would be.
    pub detail: String,
}

/// How a model came to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// A limit refused the next unit (its own process's, or the cell's).
    Reached,
    /// concbench stopped short of a limit the whole machine or user shares, keeping some of it
    /// free for everything else.
    Margin,
    /// The units held the memory budget.
    Budget,
    /// `--max-units`.
    Cap,
    /// Creation failed and no limit read explains it (the error is in the detail).
    Failed,
    /// Ctrl-C.
    Interrupted,
}

impl StopKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StopKind::Reached => "reached",
            StopKind::Margin => "margin",
            StopKind::Budget => "budget",
            StopKind::Cap => "cap",
            StopKind::Failed => "failed",
            StopKind::Interrupted => "interrupted",
        }
    }
}

/// One reading: after creating units up to `units`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub units: u64,
    /// Creation time per unit of this step's new units, ns.
    pub create_ns_per_unit: f64,
    /// PSS of the holder's process tree, KiB.
    pub pss_kib: f64,
    /// The holder tree's page tables and kernel stacks, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_kib: Option<f64>,
    /// The cell's memory charge, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charge_kib: Option<f64>,
}
