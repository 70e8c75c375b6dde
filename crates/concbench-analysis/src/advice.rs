//! `concbench advise`: which way of running concurrent units costs least for a workload, on the
//! machine the measurements came from — with the arithmetic shown.
//!
//! The model is deliberately simple and every input is a measured median from the document:
//! * units in flight = rate x lifetime, lifetime = CPU per unit / (1 - blocked share)
//!   (Little's law);
//! * per-unit models pay one create+destroy per unit (`create.*`); pools pay none, but each unit
//!   is handed to a waiting pool worker, which is woken: one hand-over per unit;
//! * a unit that blocks is billed the same path in every model: the kernel's event notification
//!   (a blocked thread or process is woken by it; a coroutine runtime's reactor thread is woken
//!   by it, and then hands the event to the coroutine through the runtime), then the switch out
//!   when it blocks again;
//! * every unit in flight holds its memory: what it costs the machine, PSS plus the kernel's
//!   per-task share (stack, task structures, page tables) for processes and threads.
//!
//! Two switch figures are kept apart, because they are different things: a *hand-over* passes a
//! value and wakes the other unit (a pipe ping-pong for processes and threads, the runtime's
//! channel for coroutines and async tasks), and a *bare switch* is the switch alone (lmbench's
//! ping-pong less its transport; a coroutine resume; a task yield). Comparing one kind's
//! hand-over with another's bare switch would measure the methods, not the models.
//!
//! The CPU overhead (creation + switches, CPU-seconds per second) ranks the models, memory
//! breaks ties. Models that cannot isolate units are excluded when isolation is needed.

use crate::published::convert;
use concbench_core::vocab::{id, key};
use concbench_core::{human, ResultDoc, ResultEntry};

/// How units of work are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    ProcessPerUnit,
    ProcessPool,
    ThreadPerUnit,
    ThreadPool,
    Coroutines,
}

impl Model {
    pub const ALL: [Model; 5] = [
        Model::ProcessPerUnit,
        Model::ProcessPool,
        Model::ThreadPerUnit,
        Model::ThreadPool,
        Model::Coroutines,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Model::ProcessPerUnit => "a process per unit (fork)",
            Model::ProcessPool => "a process pool (prefork)",
            Model::ThreadPerUnit => "a thread per unit",
            Model::ThreadPool => "a thread pool",
            Model::Coroutines => "coroutines",
        }
    }

    fn kind(self) -> Kind {
        match self {
            Model::ProcessPerUnit | Model::ProcessPool => Kind::Process,
            Model::ThreadPerUnit | Model::ThreadPool => Kind::Thread,
            Model::Coroutines => Kind::Coroutine,
        }
    }

    /// The name in a narrow table: "thread pool", "fork per unit".
    pub fn short_name(self) -> &'static str {
        match self {
            Model::ProcessPerUnit => "fork per unit",
            Model::ProcessPool => "process pool",
            Model::ThreadPerUnit => "thread per unit",
            Model::ThreadPool => "thread pool",
            Model::Coroutines => "coroutines",
        }
    }

    /// Whether each unit is created (and destroyed) for its work rather than reused.
    fn creates_per_unit(self) -> bool {
        matches!(
            self,
            Model::ProcessPerUnit | Model::ThreadPerUnit | Model::Coroutines
        )
    }

    /// Whether a crash or a stray write in one unit leaves the others running.
    pub fn isolates(self) -> bool {
        self.kind() == Kind::Process
    }
}

/// The unit kind a model is built from; its costs are measured once per kind. Async tasks are
/// shown beside coroutines; the coroutine model is billed from them only where a coroutine cost
/// is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Process,
    Thread,
    Coroutine,
    AsyncTask,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Process,
        Kind::Thread,
        Kind::Coroutine,
        Kind::AsyncTask,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Process => "process",
            Kind::Thread => "thread",
            Kind::Coroutine => "coroutine",
            Kind::AsyncTask => "async task",
        }
    }

    /// The kind as the last part of a `memory.*` id and as a `model` param.
    fn id_part(self) -> &'static str {
        match self {
            Kind::AsyncTask => "async_task",
            other => other.name(),
        }
    }
}

/// One measured cost and the result it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    /// Nanoseconds for create and switch; KiB for memory.
    pub value: f64,
    /// The 95% interval of `value`, in its unit, when the result has one.
    pub interval: Option<(f64, f64)>,
    /// `id params` of the result.
    pub source: String,
    /// Which variant of the unit this is, when the kind has variants worth telling apart
    /// ("reused stack", "fresh stack").
    pub variant: Option<String>,
    /// False for a difference that cannot be told from zero (a bare switch whose transport is
    /// as slow as the hand-over): `value` is then bounded at zero and shown as "≤ upper end".
    pub distinguishable: bool,
}

/// What one unit of each kind costs on the measured machine; `None` where not measured.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitCosts {
    pub kind: Kind,
    /// The creation cost the advice bills.
    pub create_ns: Option<Cost>,
    /// The other way of creating this kind, when it costs at least [`VARIANTS_APART`] times more
    /// or less than `create_ns` (a coroutine on a fresh stack against a reused one): shown
    /// beside it, never billed.
    pub create_other_ns: Option<Cost>,
    /// A hand-over that wakes the other unit (pipe ping-pong; the runtime's channel).
    pub handover_ns: Option<Cost>,
    /// The switch alone, without the wake-up's transport.
    pub bare_switch_ns: Option<Cost>,
    /// What one idle unit costs the machine: PSS plus, for processes and threads, the kernel's
    /// per-task share that PSS cannot see.
    pub memory_kib: Option<Cost>,
    /// The PSS part of `memory_kib` (the whole of it for coroutines and async tasks).
    pub pss_kib: Option<Cost>,
}

/// How far apart two creation variants must be for both to be shown.
pub const VARIANTS_APART: f64 = 2.0;

/// Where each cost is looked for, first match wins: (id, required params).
fn create_sources(
    kind: Kind,
) -> &'static [(&'static str, &'static [(&'static str, &'static str)])] {
    match kind {
        Kind::Process => &[
            (id::CREATE_FORK, &[(key::PARENT, "single-threaded")]),
            (id::CREATE_FORK, &[]),
        ],
        Kind::Thread => &[
            (id::CREATE_THREAD, &[(key::STACK, "default")]),
            (id::CREATE_THREAD, &[]),
        ],
        // A reused stack is what coroutine runtimes do (they keep a pool of stacks).
        Kind::Coroutine => &[
            (id::CREATE_COROUTINE, &[(key::STACK_ALLOC, REUSED)]),
            (id::CREATE_COROUTINE, &[]),
        ],
        Kind::AsyncTask => &[(id::CREATE_ASYNC_TASK, &[])],
    }
}

const REUSED: &str = "reused";
const FRESH: &str = "fresh";

/// The creation variant shown beside the billed one, where a kind has one.
fn other_create_sources(
    kind: Kind,
) -> &'static [(&'static str, &'static [(&'static str, &'static str)])] {
    match kind {
        Kind::Coroutine => &[(id::CREATE_COROUTINE, &[(key::STACK_ALLOC, FRESH)])],
        _ => &[],
    }
}

/// A hand-over that wakes the other unit, same CPU: the plain setting of each kind's ping-pong
/// (registered first), or the runtime's channel.
fn handover_sources(
    kind: Kind,
) -> &'static [(&'static str, &'static [(&'static str, &'static str)])] {
    const SAME: &[(&str, &str)] = &[(key::PLACEMENT, "same-cpu")];
    match kind {
        Kind::Process => &[
            (id::SWITCH_PIPE_PROCESS, SAME),
            (id::SWITCH_PIPE_PROCESS, &[]),
        ],
        Kind::Thread => &[
            (id::SWITCH_PIPE_THREAD, SAME),
            (id::SWITCH_FUTEX_THREAD, SAME),
            (id::SWITCH_PIPE_THREAD, &[]),
        ],
        Kind::Coroutine => &[(id::SWITCH_CHANNEL_COROUTINE, &[])],
        Kind::AsyncTask => &[(id::SWITCH_ASYNC_TASK, SAME), (id::SWITCH_ASYNC_TASK, &[])],
    }
}

/// The switch alone: lmbench's ping-pong less its transport for processes and threads, a
/// resume or suspend for a coroutine, a yield between two tasks for async tasks.
fn bare_switch_sources(
    kind: Kind,
) -> &'static [(&'static str, &'static [(&'static str, &'static str)])] {
    match kind {
        Kind::Process => &[(id::SWITCH_ALONE_PROCESS, &[])],
        Kind::Thread => &[(id::SWITCH_ALONE_THREAD, &[])],
        Kind::Coroutine => &[(id::SWITCH_COROUTINE, &[])],
        Kind::AsyncTask => &[(id::SWITCH_YIELD_ASYNC_TASK, &[])],
    }
}

/// Whether the answer's unit table or the advice reads the variant `id` with `params`: the
/// session gives these the rounds a verdict's variants get, so that every figure of the table
/// has an interval, in a quick run too.
pub fn reads_variant(id: &str, params: &concbench_core::Params) -> bool {
    let matches = |(want, required): &(&str, &[(&str, &str)])| {
        *want == id && required.iter().all(|(k, v)| params.get_str(k) == Some(*v))
    };
    let preferred = |sources: &[(&str, &[(&str, &str)])]| sources.first().is_some_and(matches);
    let memory = id.starts_with("memory.")
        && params.get_f64(key::UNITS) == Some(MEMORY_UNITS)
        && Kind::ALL.iter().any(|k| {
            id.rsplit('.').next() == Some(k.id_part())
                || params.get_str(key::MODEL) == Some(k.id_part())
        });
    memory
        || Kind::ALL.iter().any(|&k| {
            preferred(create_sources(k))
                || other_create_sources(k).iter().any(matches)
                || preferred(handover_sources(k))
                || preferred(bare_switch_sources(k))
        })
}

/// The selectors (`--only`) that measure each cost, for "missing" messages.
fn family_of(what: &str) -> &'static str {
    if what == "create" {
        "create"
    } else {
        "switch"
    }
}

fn find_first<'a>(
    doc: &'a ResultDoc,
    sources: &[(&str, &[(&str, &str)])],
) -> Option<&'a ResultEntry> {
    sources.iter().find_map(|(id, params)| {
        doc.results
            .iter()
            .find(|r| r.id == *id && params.iter().all(|(k, v)| r.params.get_str(k) == Some(*v)))
    })
}

fn time_cost(entry: &ResultEntry) -> Option<Cost> {
    let to_ns = |v: f64| convert(v, &entry.unit, "ns");
    Some(Cost {
        value: to_ns(entry.summary.median)?,
        interval: entry
            .interval()
            .and_then(|(lo, hi)| Some((to_ns(lo)?, to_ns(hi)?))),
        source: label(entry),
        variant: variant(entry),
        distinguishable: entry.distinguishable(),
    })
}

/// "reused stack" for a coroutine created on a reused stack; `None` for results without
/// variants worth naming.
fn variant(entry: &ResultEntry) -> Option<String> {
    entry
        .params
        .get_str(key::STACK_ALLOC)
        .map(|v| format!("{v} stack"))
}

/// The number of units held at once that memory figures are quoted at (the `--quick` point and
/// the verdicts'): 100 units carry more of the fixed overhead, 10,000 are not always measured.
const MEMORY_UNITS: f64 = 1000.0;

/// The kernel's memory per unit, KiB: a metric of the `memory.*` results of kernel tasks.
const KERNEL_KIB: &str = "kernel_kib_per_unit";

/// A `memory` result whose `model` param (or last id part) names the kind: the one held at
/// [`MEMORY_UNITS`] when there is one, else the first; with its KiB factor.
fn memory_entry(doc: &ResultDoc, kind: Kind) -> Option<(&ResultEntry, f64)> {
    let names_kind = |r: &ResultEntry| {
        r.params.get_str(key::MODEL) == Some(kind.id_part())
            || r.id.rsplit('.').next() == Some(kind.id_part())
    };
    let candidates = || {
        doc.results
            .iter()
            .filter(move |r| r.family == "memory" && names_kind(r))
    };
    candidates()
        .filter(|r| r.params.get_f64(key::UNITS) == Some(MEMORY_UNITS))
        .chain(candidates())
        .find_map(|r| {
            let factor = match r.unit.as_str() {
                "KiB" => 1.0,
                "MiB" => 1024.0,
                "B" | "bytes" => 1.0 / 1024.0,
                _ => return None,
            };
            Some((r, factor))
        })
}

/// Memory per unit: (what the unit costs the machine, its PSS part), in KiB. The machine's
/// figure adds the kernel's share round by round, so that its interval is over the same rounds
/// as its PSS part's, and a total is never below the part it includes.
///
/// Why rounds are left out: the kernel's share is read from machine-wide counters (kernel
/// stacks, page tables, slabs) before and after the units are made, and another process freeing
/// kernel memory meanwhile makes it come out below zero — which no share can be. Such a round's
/// total is left out (and so is its PSS part, so both figures rest on the same rounds): a
/// thread's "15.4 KiB [-1.75, 29.8]" came from one round whose kernel share read -11.6 KiB.
fn memory_costs(doc: &ResultDoc, kind: Kind) -> (Option<Cost>, Option<Cost>) {
    let Some((r, factor)) = memory_entry(doc, kind) else {
        return (None, None);
    };
    let pss = Cost {
        value: r.summary.median * factor,
        interval: r.interval().map(|(lo, hi)| (lo * factor, hi * factor)),
        source: label(r),
        variant: None,
        distinguishable: true,
    };
    let kernel = r.counters.get(KERNEL_KIB).copied().filter(|k| *k >= 0.0);
    let Some(kernel) = kernel else {
        return (Some(pss.clone()), Some(pss));
    };
    let usable = concbench_core::usable_rounds(&r.rounds);
    // The rounds are what the summary was computed from, unless the document was edited (a
    // scaled test fixture): then the kernel's median share is added to the PSS figures.
    let pss_rounds: Vec<f64> = usable.iter().map(|r| r.net() * factor).collect();
    let consistent = !pss_rounds.is_empty()
        && (concbench_stats::median(&pss_rounds) - pss.value).abs() <= 1e-9 * pss.value.abs();
    let paired: Vec<(f64, f64)> = usable
        .iter()
        .filter_map(|round| {
            let k = *round.counters.get(KERNEL_KIB)?;
            (k >= 0.0).then(|| (round.net() * factor, k))
        })
        .collect();
    let left_out = usable.len() - paired.len();
    let mut source = format!("{} + {KERNEL_KIB}", pss.source);
    if !consistent || paired.is_empty() {
        let machine = Cost {
            value: pss.value + kernel,
            interval: pss.interval.map(|(lo, hi)| (lo + kernel, hi + kernel)),
            source,
            variant: None,
            distinguishable: true,
        };
        return (Some(machine), Some(pss));
    }
    if left_out > 0 {
        source += &format!(
            " ({left_out} round(s) whose kernel share came out below zero left out of both)"
        );
    }
    let over = |values: Vec<f64>| {
        (
            concbench_stats::median(&values),
            concbench_stats::median_interval(&values, 0.95),
        )
    };
    let (total, total_ci) = over(paired.iter().map(|(p, k)| p + k).collect());
    let (part, part_ci) = over(paired.iter().map(|(p, _)| *p).collect());
    let machine = Cost {
        value: total,
        interval: total_ci,
        source,
        variant: None,
        distinguishable: true,
    };
    let pss = Cost {
        value: part,
        interval: part_ci,
        ..pss
    };
    (Some(machine), Some(pss))
}

fn label(r: &ResultEntry) -> String {
    let params = r.params.compact();
    if params.is_empty() {
        r.id.clone()
    } else {
        format!("{} {params}", r.id)
    }
}

/// The measured costs of each kind of unit.
pub fn unit_costs(doc: &ResultDoc) -> Vec<UnitCosts> {
    Kind::ALL
        .iter()
        .map(|&kind| {
            let create_ns = find_first(doc, create_sources(kind)).and_then(time_cost);
            let apart = |other: &Cost| {
                create_ns.as_ref().is_some_and(|c| {
                    let ratio = other.value.max(c.value) / other.value.min(c.value);
                    ratio >= VARIANTS_APART
                })
            };
            let (memory_kib, pss_kib) = memory_costs(doc, kind);
            UnitCosts {
                kind,
                create_other_ns: find_first(doc, other_create_sources(kind))
                    .and_then(time_cost)
                    .filter(apart),
                create_ns,
                handover_ns: find_first(doc, handover_sources(kind)).and_then(time_cost),
                bare_switch_ns: find_first(doc, bare_switch_sources(kind)).and_then(time_cost),
                memory_kib,
                pss_kib,
            }
        })
        .collect()
}

/// The costs a model is billed with: its kind's, and for coroutines an async task's where a
/// coroutine's is missing (both are user-space units switched without the kernel); with the
/// kernel's event notification its blocked units pay.
fn billed_costs(costs: &[UnitCosts], kind: Kind) -> Billed {
    let of = |k: Kind| {
        costs
            .iter()
            .find(|c| c.kind == k)
            .expect("every kind")
            .clone()
    };
    let mut own = of(kind);
    if kind == Kind::Coroutine {
        let stand_in = of(Kind::AsyncTask);
        own.create_ns = own.create_ns.or(stand_in.create_ns);
        own.handover_ns = own.handover_ns.or(stand_in.handover_ns);
        own.bare_switch_ns = own.bare_switch_ns.or(stand_in.bare_switch_ns);
        own.memory_kib = own.memory_kib.or(stand_in.memory_kib);
        own.pss_kib = own.pss_kib.or(stand_in.pss_kib);
    }
    // A blocked thread or process is woken by the kernel itself: its own hand-over. A
    // coroutine's event reaches the runtime's reactor thread the same way: a thread's hand-over
    // (an upper bound: a busy reactor collects several events per wake-up).
    let kernel_wake = match kind {
        Kind::Coroutine | Kind::AsyncTask => of(Kind::Thread).handover_ns,
        _ => own.handover_ns.clone(),
    };
    Billed {
        costs: own,
        kernel_wake,
    }
}

/// A model's costs and the kernel's wake-up its blocked units pay.
struct Billed {
    costs: UnitCosts,
    kernel_wake: Option<Cost>,
}

/// The workload to advise on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// Units (requests, tasks, connections) started per second.
    pub units_per_sec: f64,
    /// Share of a unit's life spent blocked, in [0, 1).
    pub blocked_share: f64,
    /// CPU time of a unit's own work, microseconds.
    pub cpu_us: f64,
    /// Units must be isolated from each other.
    pub isolation: bool,
}

impl Workload {
    /// A unit that runs `cpu_us` of CPU and besides is blocked for `blocked_us`, as the blocked
    /// share of its lifetime. `None` when it runs no CPU (its share would be 1: a lifetime of
    /// blocking alone, with no work to bill) or a time is negative or not finite.
    pub fn from_times(
        units_per_sec: f64,
        cpu_us: f64,
        blocked_us: f64,
        isolation: bool,
    ) -> Option<Workload> {
        let valid = |t: f64| t.is_finite() && t >= 0.0;
        (valid(cpu_us) && valid(blocked_us) && cpu_us > 0.0).then(|| Workload {
            units_per_sec,
            blocked_share: blocked_us / (cpu_us + blocked_us),
            cpu_us,
            isolation,
        })
    }

    /// A unit's lifetime in microseconds: its CPU time stretched by the time it is blocked.
    pub fn lifetime_us(&self) -> f64 {
        self.cpu_us / (1.0 - self.blocked_share)
    }

    /// Units in flight at once (Little's law).
    pub fn in_flight(&self) -> f64 {
        self.units_per_sec * self.lifetime_us() / 1e6
    }

    /// Whether units block (and so switch out and back in).
    fn blocks(&self) -> bool {
        self.blocked_share > 0.0
    }
}

/// Typical workloads the HTML report answers for, so a reader sees "which model, for what"
/// without choosing numbers: (name, workload).
pub fn typical_workloads() -> Vec<(&'static str, Workload)> {
    vec![
        (
            "Throwaway tasks: 50,000 per second, 2 µs of CPU each, never blocking",
            Workload { units_per_sec: 50_000.0, blocked_share: 0.0, cpu_us: 2.0, isolation: false },
        ),
        (
            "A web API: 2,000 requests per second, 100 µs of CPU each, 90% of the time waiting on a database",
            Workload { units_per_sec: 2_000.0, blocked_share: 0.9, cpu_us: 100.0, isolation: false },
        ),
        (
            "Idle connections: 20,000 per second, 20 µs of CPU each, 99% blocked",
            Workload { units_per_sec: 20_000.0, blocked_share: 0.99, cpu_us: 20.0, isolation: false },
        ),
        (
            "Untrusted jobs: 100 per second, 5 ms of CPU each, crash-prone, must be isolated",
            Workload { units_per_sec: 100.0, blocked_share: 0.2, cpu_us: 5_000.0, isolation: true },
        ),
    ]
}

/// Which of a model's limits sets its rate ([`Advice::rate_bounded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The CPUs: the units' work and the model's overhead fill them.
    Cpu,
    /// Little's law: every unit that may be in flight is, for its whole lifetime.
    Concurrency,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Cpu => "cpu",
            Limit::Concurrency => "concurrency",
        }
    }
}

/// One model's bill for the workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Bill {
    pub model: Model,
    /// CPU-seconds per second spent creating and switching units (overhead, not the work).
    pub overhead_cpu: Option<f64>,
    /// KiB held by the units in flight.
    pub memory_kib: Option<f64>,
    /// The arithmetic, one line per term.
    pub arithmetic: Vec<String>,
    /// Measurements this model needs that the document lacks.
    pub missing: Vec<String>,
    /// Why the model is ruled out (isolation), when it is.
    pub excluded: Option<String>,
    /// Its overhead per unit over the unit's own work (`None` without work or a full bill).
    pub share_of_work: Option<f64>,
    /// What it needs when the workload's rate takes more CPUs than the machine has.
    pub capacity_note: Option<String>,
}

/// The share of one CPU the first screen's cards ask about: how many units per second fit in a
/// tenth of one CPU, each unit's own work billed with the model's overhead for it.
pub const CPU_SHARE_ASKED: f64 = 0.1;

/// One model's answer to the cards' question.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    pub model: Model,
    /// Units per second within [`CPU_SHARE_ASKED`] of one CPU; `None` when a unit costs nothing
    /// (any rate fits).
    pub rate: Option<f64>,
}

/// What a workload's card says, computed here so that every page says the same: the cheapest
/// model's fit, its overhead as a share of the work, the next model's fit, and what the
/// cheapest needs when the workload's rate takes more CPUs than the machine has.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    /// The share of one CPU asked about ([`CPU_SHARE_ASKED`]).
    pub cpu_share: f64,
    pub best: Fit,
    pub next: Option<Fit>,
    /// The cheapest model's overhead per unit over the unit's own work; `None` without work.
    pub overhead_share: Option<f64>,
    /// "needs 2.3 CPUs (work + overhead), more than this machine's 2", at the workload's rate.
    pub capacity_note: Option<String>,
}

/// The advice: every model's bill, and the cheapest eligible one.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    pub workload: Workload,
    pub bills: Vec<Bill>,
    /// The model with the least overhead among the eligible, fully measured ones.
    pub best: Option<Model>,
    /// Logical CPUs of the machine the measurements come from.
    pub cpus: usize,
    /// The cards' figures; `None` when no model is fully measured.
    pub card: Option<Card>,
}

impl Advice {
    /// CPUs a model keeps busy: its overhead plus the work itself (rate x CPU per unit).
    pub fn cpus_needed(&self, bill: &Bill) -> Option<f64> {
        let work = self.workload.units_per_sec * self.workload.cpu_us / 1e6;
        bill.overhead_cpu.map(|o| o + work)
    }

    /// CPU-seconds one unit costs under a model: its own work plus the model's overhead for it
    /// (creating, handing over, switching). `None` when the bill is incomplete.
    pub fn cpu_per_unit(&self, bill: &Bill) -> Option<f64> {
        let overhead = self.overhead_per_unit(bill)?;
        Some(self.workload.cpu_us / 1e6 + overhead)
    }

    /// CPU-seconds of the model's overhead per unit (the bill's overhead over the rate).
    pub fn overhead_per_unit(&self, bill: &Bill) -> Option<f64> {
        let rate = self.workload.units_per_sec;
        bill.overhead_cpu
            .map(|o| if rate > 0.0 { o / rate } else { 0.0 })
    }

    /// Units per second that fit in `cpu` CPU-seconds per second, the units' own work billed
    /// with the model's overhead: 100 µs of work caps any model at 1,000/s in 10% of one CPU,
    /// whatever its overhead. `None` when the bill is incomplete or a unit costs nothing.
    ///
    /// Invariant: never above `cpu / (cpu_us / 1e6)`, the rate the work alone allows.
    pub fn rate_within(&self, bill: &Bill, cpu: f64) -> Option<f64> {
        let per_unit = self.cpu_per_unit(bill).filter(|c| *c > 0.0)?;
        Some(cpu / per_unit)
    }

    /// Units per second under both of the model's limits, and which one sets it: the CPUs
    /// ([`Advice::rate_within`] `cpus`) and Little's law with at most `concurrency` units in
    /// flight at once — a pool's workers, one loop — each for the unit's lifetime
    /// ([`Workload::in_flight`] = rate x lifetime, so rate <= concurrency / lifetime). `None`
    /// when the bill is incomplete or a unit costs nothing.
    ///
    /// Invariant: never above either limit; equal to the lower one.
    pub fn rate_bounded(&self, bill: &Bill, cpus: f64, concurrency: f64) -> Option<(f64, Limit)> {
        let by_cpu = self.rate_within(bill, cpus)?;
        let lifetime_s = self.workload.lifetime_us() / 1e6;
        let by_flight = if lifetime_s > 0.0 {
            concurrency / lifetime_s
        } else {
            f64::INFINITY
        };
        Some(if by_flight < by_cpu {
            (by_flight, Limit::Concurrency)
        } else {
            (by_cpu, Limit::Cpu)
        })
    }

    /// The model's overhead as a share of the units' own work (0.012: 1.2%); `None` when the
    /// bill is incomplete or the units do no work.
    pub fn overhead_share(&self, bill: &Bill) -> Option<f64> {
        let work = self.workload.cpu_us / 1e6;
        (work > 0.0).then_some(self.overhead_per_unit(bill)? / work)
    }

    /// The cards' figures for this advice (see [`Card`]).
    fn card_of(&self) -> Option<Card> {
        let ranked = self.ranked();
        let fit = |b: &Bill| Fit {
            model: b.model,
            rate: self.rate_within(b, CPU_SHARE_ASKED),
        };
        let first = ranked.first()?;
        Some(Card {
            cpu_share: CPU_SHARE_ASKED,
            best: fit(first),
            next: ranked.get(1).map(|b| fit(b)),
            overhead_share: self.overhead_share(first),
            capacity_note: self.capacity_note(first),
        })
    }

    /// The eligible, fully measured models, cheapest first (the order that picks `best`).
    pub fn ranked(&self) -> Vec<&Bill> {
        let mut eligible: Vec<&Bill> = self
            .bills
            .iter()
            .filter(|b| b.excluded.is_none() && b.overhead_cpu.is_some())
            .collect();
        eligible.sort_by(|x, y| {
            let m = |b: &Bill| b.memory_kib.unwrap_or(f64::INFINITY);
            x.overhead_cpu
                .unwrap_or(f64::INFINITY)
                .total_cmp(&y.overhead_cpu.unwrap_or(f64::INFINITY))
                .then(m(x).total_cmp(&m(y)))
        });
        eligible
    }

    /// A note when a model needs more CPUs than the machine has.
    pub fn capacity_note(&self, bill: &Bill) -> Option<String> {
        let needed = self.cpus_needed(bill)?;
        (needed > self.cpus as f64).then(|| {
            format!(
                "needs {needed:.1} CPUs (work + overhead), more than this machine's {}",
                self.cpus
            )
        })
    }
}

/// Bill every model for `workload` from the document's measurements.
pub fn advise(doc: &ResultDoc, workload: Workload) -> Advice {
    let costs = unit_costs(doc);
    let bills: Vec<Bill> = Model::ALL
        .iter()
        .map(|&m| bill(m, &billed_costs(&costs, m.kind()), &workload))
        .collect();
    let mut advice = Advice {
        workload,
        bills,
        best: None,
        cpus: doc.host.logical_cpus,
        card: None,
    };
    // What every page says of each bill, computed once here (the renderers only format it).
    let figures: Vec<(Option<f64>, Option<String>)> = (advice.bills.iter())
        .map(|b| (advice.overhead_share(b), advice.capacity_note(b)))
        .collect();
    for (b, (share, note)) in advice.bills.iter_mut().zip(figures) {
        b.share_of_work = share;
        b.capacity_note = note;
    }
    advice.best = advice.ranked().first().map(|b| b.model);
    advice.card = advice.card_of();
    advice
}

/// One CPU term of a bill: `per_unit` events of `cost` for each unit started.
fn cpu_term(what: &str, cost: &Cost, rate: f64, per_unit: f64) -> (f64, String) {
    let cpu = rate * per_unit * cost.value / 1e9;
    let times = if per_unit == 1.0 {
        String::new()
    } else {
        format!("{per_unit} x ")
    };
    let line = format!(
        "{what}: {} units/s x {times}{} ({}) = {}",
        human::sig3(rate),
        human::nanos(cost.value),
        cost.source,
        share(cpu)
    );
    (cpu, line)
}

/// Which creation variant a bill uses, when the kind has variants, and what the other would
/// change: "create is billed for a reused stack; a fresh stack costs 10.8 µs (...): 0.54 CPUs
/// busy with it".
fn which_create(costs: &UnitCosts, rate: f64, overhead: f64) -> Option<String> {
    let billed = costs.create_ns.as_ref()?;
    let variant = billed.variant.as_deref()?;
    let mut line = format!("create is billed for a {variant}");
    if let Some(other) = &costs.create_other_ns {
        let with_other = overhead + rate * (other.value - billed.value) / 1e9;
        line += &format!(
            "; a {} costs {} ({}): {} with it",
            other.variant.as_deref().unwrap_or("other variant"),
            human::nanos(other.value),
            other.source,
            share(with_other)
        );
    }
    Some(line)
}

fn missing_cost(what: &str, kind: Kind) -> String {
    let family = family_of(what);
    format!(
        "{family} cost of a {} (run `concbench run --only {family}`)",
        kind.name()
    )
}

fn bill(model: Model, billed: &Billed, w: &Workload) -> Bill {
    let costs = &billed.costs;
    let mut arithmetic = Vec::new();
    let mut missing = Vec::new();
    let mut overhead = 0.0;
    let rate = w.units_per_sec;
    let mut terms: Vec<(&str, &Option<Cost>, f64)> = Vec::new();
    if !model.creates_per_unit() {
        arithmetic.push(format!(
            "create: none per unit (the pool's {} are created once, sized to the units in flight)",
            match model.kind() {
                Kind::Process => "processes",
                _ => "threads",
            }
        ));
        if rate > 0.0 {
            terms.push(("hand-off (wake a pool worker)", &costs.handover_ns, 1.0));
        }
    } else if rate > 0.0 {
        terms.push(("create", &costs.create_ns, 1.0));
    }
    if w.blocks() && rate > 0.0 {
        if model.kind() == Kind::Coroutine {
            terms.push((
                "block: the kernel wakes the reactor (a thread hand-over)",
                &billed.kernel_wake,
                1.0,
            ));
            terms.push((
                "block: the runtime hands the event over",
                &costs.handover_ns,
                1.0,
            ));
        } else {
            terms.push((
                "block: the kernel wakes the unit (a hand-over)",
                &billed.kernel_wake,
                1.0,
            ));
        }
        terms.push(("block: the switch out", &costs.bare_switch_ns, 1.0));
    }
    for (what, cost, per_unit) in terms {
        match cost {
            Some(c) => {
                let (cpu, line) = cpu_term(what, c, rate, per_unit);
                overhead += cpu;
                arithmetic.push(line);
            }
            // Two terms can need the same cost (a pool's hand-off and its blocking both switch):
            // it is missing once.
            None => {
                let m = missing_cost(what, costs.kind);
                if !missing.contains(&m) {
                    missing.push(m);
                }
            }
        }
    }
    // Memory is reported, not ranked: a missing memory figure does not block the CPU ranking.
    let cpu_complete = missing.is_empty();
    if model.creates_per_unit() && rate > 0.0 && cpu_complete {
        arithmetic.extend(which_create(costs, rate, overhead));
    }
    let in_flight = w.in_flight().max(1.0);
    let memory_kib = match &costs.memory_kib {
        Some(c) => {
            let kib = in_flight * c.value;
            arithmetic.push(format!(
                "memory: {} units in flight ({} units/s x {} lifetime, at least 1) x {} ({}) = {}",
                human::sig3(in_flight),
                human::sig3(rate),
                human::micros(w.lifetime_us()),
                kib_text(c.value),
                c.source,
                kib_text(kib)
            ));
            Some(kib)
        }
        None => {
            missing.push(format!(
                "memory per {} (run `concbench run --only memory`)",
                costs.kind.name()
            ));
            None
        }
    };
    let excluded = (w.isolation && !model.isolates()).then(|| {
        "no isolation: a crash or a stray write in one unit takes down every unit in the process"
            .to_string()
    });
    Bill {
        model,
        overhead_cpu: cpu_complete.then_some(overhead),
        memory_kib,
        arithmetic,
        missing,
        excluded,
        share_of_work: None,
        capacity_note: None,
    }
}

/// CPU-seconds per second, as CPUs kept busy or as a share of one CPU.
pub fn share(cpu: f64) -> String {
    if cpu == 0.0 {
        "none".to_string()
    } else if cpu >= 0.1 {
        format!("{cpu:.2} CPUs busy")
    } else if cpu >= 0.001 {
        format!("{:.2}% of one CPU", cpu * 100.0)
    } else {
        format!("{:.4}% of one CPU", cpu * 100.0)
    }
}

/// KiB in the largest binary unit that keeps the number above 1 (the one size formatter).
pub fn kib_text(kib: f64) -> String {
    human::kib(kib)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{doc, entry};

    fn with(id: &str, median: f64, params: &[(&str, &str)], unit: &str) -> ResultEntry {
        let mut e = entry(id, &[median; 5]);
        for (k, v) in params {
            e.params.set(k, *v);
        }
        e.unit = unit.into();
        e
    }

    fn measured() -> ResultDoc {
        doc(vec![
            with(
                "create.fork",
                100_000.0,
                &[("parent", "single-threaded")],
                "ns",
            ),
            with("create.thread", 20_000.0, &[("stack", "default")], "ns"),
            with(
                "create.coroutine",
                200.0,
                &[("stack_alloc", "reused")],
                "ns",
            ),
            with("switch.pipe.process", 3000.0, &[], "ns"),
            with("switch.pipe.thread", 2500.0, &[], "ns"),
            with("switch.alone.process", 1500.0, &[], "ns"),
            with("switch.alone.thread", 1200.0, &[], "ns"),
            with("switch.channel.coroutine", 100.0, &[], "ns"),
            with("switch.coroutine", 50.0, &[], "ns"),
            with("memory.process", 400.0, &[], "KiB"),
            with("memory.thread", 64.0, &[], "KiB"),
            with("memory.coroutine", 8.0, &[], "KiB"),
        ])
    }

    const WEB: Workload = Workload {
        units_per_sec: 1000.0,
        blocked_share: 0.5,
        cpu_us: 100.0,
        isolation: false,
    };

    #[test]
    fn a_workload_from_times_has_their_share_and_needs_some_cpu() {
        let w = Workload::from_times(1000.0, 100.0, 900.0, false).unwrap();
        assert!((w.blocked_share - 0.9).abs() < 1e-12);
        assert!((w.lifetime_us() - 1000.0).abs() < 1e-9);
        assert_eq!(Workload::from_times(1000.0, 0.0, 900.0, false), None);
        assert_eq!(Workload::from_times(1000.0, 10.0, -1.0, false), None);
    }

    #[test]
    fn the_bounded_rate_is_the_lower_of_the_cpus_and_littles_law() {
        // A pool's bill here: 2.5 + 2.5 + 1.2 µs over 100 µs of work: 9,416/s on one CPU.
        let w = Workload::from_times(1000.0, 100.0, 10_000.0, false).unwrap();
        let a = advise(&measured(), w);
        let pool = a
            .bills
            .iter()
            .find(|b| b.model == Model::ThreadPool)
            .unwrap();
        let by_cpu = a.rate_within(pool, 1.0).unwrap();
        // 8 workers, each request in flight 10.1 ms: 792/s.
        let (rate, limit) = a.rate_bounded(pool, 1.0, 8.0).unwrap();
        assert_eq!(limit, Limit::Concurrency);
        assert!((rate - 8.0 / 10_100e-6).abs() < 1e-9);
        // 1000 workers never run out: the CPU binds.
        let (rate, limit) = a.rate_bounded(pool, 1.0, 1000.0).unwrap();
        assert_eq!((rate, limit), (by_cpu, Limit::Cpu));
    }

    #[test]
    fn arithmetic_follows_littles_law_and_the_measured_costs() {
        let a = advise(&measured(), WEB);
        let fork = a
            .bills
            .iter()
            .find(|b| b.model == Model::ProcessPerUnit)
            .unwrap();
        // 1000/s x 100 us create + 1000/s x (3 us wake-up + 1.5 us switch out) = 0.1045 CPU.
        assert!((fork.overhead_cpu.unwrap() - 0.1045).abs() < 1e-12);
        // A pool: no creation; a hand-off, a wake-up and a switch out: 1000 x (2.5 + 2.5 + 1.2)
        // us.
        let pool = a
            .bills
            .iter()
            .find(|b| b.model == Model::ThreadPool)
            .unwrap();
        assert!((pool.overhead_cpu.unwrap() - 0.0062).abs() < 1e-12);
        // lifetime 200 us -> 0.2 units in flight, at least one unit: 400 KiB.
        assert_eq!(fork.memory_kib, Some(400.0));
        assert!(fork.arithmetic[0].contains("1000 units/s x 100 µs (create.fork"));
        // Coroutines pay the same kernel wake-up (the reactor's, a thread hand-over), then the
        // runtime's hand-over and a switch out: 1000 x (200 + 2500 + 100 + 50) ns = 0.00285 CPU.
        let co = a
            .bills
            .iter()
            .find(|b| b.model == Model::Coroutines)
            .unwrap();
        assert!(
            (co.overhead_cpu.unwrap() - 0.00285).abs() < 1e-12,
            "{co:#?}"
        );
        assert!(co
            .arithmetic
            .iter()
            .any(|l| l.starts_with("block: the kernel wakes the reactor")
                && l.contains("(switch.pipe.thread")));
        assert_eq!(a.best, Some(Model::Coroutines), "{a:#?}");
        // 10% of one CPU holds 0.1 / (100 us of work + 2.85 us of coroutine overhead) per unit:
        // 972 units/s — never the 35,088/s the overhead alone would allow.
        assert_eq!(a.rate_within(co, 0.1).unwrap().round(), 972.0);
        assert!((a.overhead_share(co).unwrap() - 0.0285).abs() < 1e-12);
        // The card the pages format holds the same figures, for the cheapest model and the next.
        let card = a.card.as_ref().expect("a fully measured model");
        assert_eq!(card.cpu_share, CPU_SHARE_ASKED);
        assert_eq!(card.best.model, Model::Coroutines);
        assert_eq!(card.best.rate.unwrap().round(), 972.0);
        assert_eq!(card.overhead_share, co.share_of_work);
        let next = card.next.as_ref().expect("a second model");
        assert_eq!(Some(next.model), a.ranked().get(1).map(|b| b.model));
        assert!(next.rate.unwrap() <= card.best.rate.unwrap());
    }

    #[test]
    fn regression_a_card_with_100_us_of_work_claimed_47k_per_second_in_a_tenth_of_a_cpu() {
        // "A web API 2,000/s x 100 us, 90% blocked -> coroutines 47.4k/s": the card counted the
        // overhead alone. 10% of one CPU with 100 us of work per unit fits at most 1,000/s.
        let d = measured();
        for (name, w) in typical_workloads() {
            let a = advise(&d, w);
            for b in a.bills.iter().filter(|b| b.overhead_cpu.is_some()) {
                let rate = a.rate_within(b, 0.1).unwrap();
                let cap = 0.1 / (w.cpu_us / 1e6);
                assert!(rate <= cap, "{name}, {}: {rate} > {cap}", b.model.name());
            }
        }
    }

    #[test]
    fn each_typical_card_bills_the_work_with_the_overhead() {
        // Known inputs (`measured()`): each card's cheapest model and its units per second in
        // 10% of one CPU, by hand: 0.1 / (work + overhead per unit).
        let d = measured();
        let cards = typical_workloads();
        let per_unit_ns = |card: usize, model: Model| {
            let a = advise(&d, cards[card].1);
            let b = a.bills.iter().find(|b| b.model == model).unwrap();
            (
                a.overhead_per_unit(b).unwrap() * 1e9,
                a.rate_within(b, 0.1).unwrap(),
            )
        };
        // Throwaway tasks (2 us, never blocked): coroutines pay their creation, 200 ns.
        let (over, rate) = per_unit_ns(0, Model::Coroutines);
        assert!((over - 200.0).abs() < 1e-6, "{over}");
        assert!((rate - 0.1 / 2.2e-6).abs() < 1e-6, "{rate}");
        // A web API (100 us, 90% blocked): 200 ns create + 2.5 us kernel wake-up (a thread
        // hand-over) + 100 ns runtime hand-over + 50 ns switch out = 2.85 us.
        let (over, rate) = per_unit_ns(1, Model::Coroutines);
        assert!((over - 2850.0).abs() < 1e-6, "{over}");
        assert!((rate - 0.1 / 102.85e-6).abs() < 1e-6, "{rate}");
        // Idle connections (20 us, 99% blocked): the same overhead, a fifth of the work: the
        // card differs from the web API's.
        let (over, rate) = per_unit_ns(2, Model::Coroutines);
        assert!((over - 2850.0).abs() < 1e-6);
        assert!((rate - 0.1 / 22.85e-6).abs() < 1e-6, "{rate}");
        // Untrusted jobs (5 ms, isolated): a process pool, 3 us hand-off + 3 us wake-up + 1.5 us
        // switch out = 7.5 us.
        let (over, rate) = per_unit_ns(3, Model::ProcessPool);
        assert!((over - 7500.0).abs() < 1e-6, "{over}");
        assert!((rate - 0.1 / 5007.5e-6).abs() < 1e-6, "{rate}");
        let best: Vec<Option<Model>> = cards.iter().map(|(_, w)| advise(&d, *w).best).collect();
        assert_eq!(
            best,
            [
                Some(Model::Coroutines),
                Some(Model::Coroutines),
                Some(Model::Coroutines),
                Some(Model::ProcessPool)
            ]
        );
    }

    #[test]
    fn models_that_need_more_cpus_than_the_machine_has_say_so() {
        let mut d = measured();
        d.host.logical_cpus = 2;
        // 50,000 forks/s x 100 us = 5 CPUs of creation alone.
        let w = Workload {
            units_per_sec: 50_000.0,
            ..WEB
        };
        let a = advise(&d, w);
        let fork = a
            .bills
            .iter()
            .find(|b| b.model == Model::ProcessPerUnit)
            .unwrap();
        assert!(a
            .capacity_note(fork)
            .unwrap()
            .contains("more than this machine's 2"));
        let best = a.bills.iter().find(|b| Some(b.model) == a.best).unwrap();
        // Coroutines: 50,000 x (200 + 2500 + 100 + 50) ns = 0.1425 CPU of overhead + 5 CPUs
        // of work.
        assert!((a.cpus_needed(best).unwrap() - 5.1425).abs() < 1e-9);
    }

    #[test]
    fn isolation_leaves_only_processes() {
        let a = advise(
            &measured(),
            Workload {
                isolation: true,
                ..WEB
            },
        );
        assert_eq!(a.best, Some(Model::ProcessPool));
        let threads = a
            .bills
            .iter()
            .find(|b| b.model == Model::ThreadPool)
            .unwrap();
        assert!(threads.excluded.is_some());
    }

    #[test]
    fn cheap_creation_makes_coroutines_win_without_pools() {
        let w = Workload {
            units_per_sec: 10_000.0,
            blocked_share: 0.9,
            cpu_us: 50.0,
            isolation: false,
        };
        let mut d = measured();
        d.results.retain(|r| r.id != "switch.alone.thread");
        let a = advise(&d, w);
        // The thread models miss their switch-out cost and cannot be ranked; coroutines win.
        assert_eq!(a.best, Some(Model::Coroutines));
        let t = a
            .bills
            .iter()
            .find(|b| b.model == Model::ThreadPool)
            .unwrap();
        assert!(t.overhead_cpu.is_none());
        assert!(t.missing[0].contains("--only switch"), "{:?}", t.missing);
    }

    #[test]
    fn equal_cpu_overhead_is_decided_by_memory() {
        let mut d = measured();
        // Make process and thread switches cost the same: the pools tie on CPU.
        d.results
            .retain(|r| r.id != "switch.pipe.process" && !r.id.contains("coroutine"));
        d.results
            .push(with("switch.pipe.process", 2500.0, &[], "ns"));
        let w = Workload {
            units_per_sec: 100.0,
            blocked_share: 0.0,
            cpu_us: 10.0,
            isolation: false,
        };
        let a = advise(&d, w);
        assert_eq!(a.best, Some(Model::ThreadPool), "threads hold less memory");
    }

    #[test]
    fn a_cost_two_terms_need_is_missing_once() {
        let mut d = measured();
        d.results.retain(|r| !r.id.starts_with("switch."));
        let a = advise(&d, WEB);
        for b in &a.bills {
            let switch: Vec<&String> = b.missing.iter().filter(|m| m.contains("switch")).collect();
            assert!(switch.len() <= 1, "{}: {:?}", b.model.name(), b.missing);
        }
        let pool = a
            .bills
            .iter()
            .find(|b| b.model == Model::ThreadPool)
            .unwrap();
        assert_eq!(pool.missing.len(), 1, "{:?}", pool.missing);
    }

    fn coroutine_create(d: &ResultDoc) -> UnitCosts {
        unit_costs(d)
            .into_iter()
            .find(|c| c.kind == Kind::Coroutine)
            .unwrap()
    }

    #[test]
    fn coroutines_are_billed_for_a_reused_stack_with_a_far_dearer_fresh_one_beside() {
        let mut d = measured();
        d.results.push(with(
            "create.coroutine",
            10_800.0,
            &[("stack_alloc", "fresh")],
            "ns",
        ));
        let c = coroutine_create(&d);
        let billed = c.create_ns.unwrap();
        assert_eq!(billed.value, 200.0);
        assert_eq!(billed.variant.as_deref(), Some("reused stack"));
        let other = c.create_other_ns.unwrap();
        assert_eq!(other.variant.as_deref(), Some("fresh stack"));
        let a = advise(&d, WEB);
        let co = a
            .bills
            .iter()
            .find(|b| b.model == Model::Coroutines)
            .unwrap();
        // 1000/s x (10.8 us - 200 ns) more than the billed 0.00285 CPU.
        let line = co
            .arithmetic
            .iter()
            .find(|l| l.starts_with("create is billed for a reused stack"))
            .unwrap();
        assert!(
            line.contains("a fresh stack costs 10.8 µs (create.coroutine "),
            "{line}"
        );
        assert!(line.ends_with("1.34% of one CPU with it"), "{line}");
    }

    #[test]
    fn variants_close_to_each_other_show_only_the_billed_one() {
        let mut d = measured();
        d.results.push(with(
            "create.coroutine",
            300.0,
            &[("stack_alloc", "fresh")],
            "ns",
        ));
        assert_eq!(coroutine_create(&d).create_other_ns, None);
    }

    #[test]
    fn async_tasks_have_their_own_costs_and_stand_in_for_missing_coroutines() {
        let mut d = measured();
        d.results.retain(|r| !r.id.ends_with("coroutine"));
        d.results.push(with("create.async_task", 900.0, &[], "ns"));
        d.results.push(with("memory.async_task", 0.5, &[], "KiB"));
        let costs = unit_costs(&d);
        let task = costs.iter().find(|c| c.kind == Kind::AsyncTask).unwrap();
        assert_eq!(task.create_ns.as_ref().unwrap().value, 900.0);
        assert_eq!(task.memory_kib.as_ref().unwrap().value, 0.5);
        let coroutine = costs.iter().find(|c| c.kind == Kind::Coroutine).unwrap();
        assert_eq!(coroutine.create_ns, None, "no coroutine was measured");
        let a = advise(&d, WEB);
        let co = a
            .bills
            .iter()
            .find(|b| b.model == Model::Coroutines)
            .unwrap();
        assert!(
            co.arithmetic[0].contains("900 ns (create.async_task"),
            "{co:?}"
        );
    }

    /// `d`'s thread memory result.
    fn thread_memory(d: &mut ResultDoc) -> &mut ResultEntry {
        d.results
            .iter_mut()
            .find(|r| r.id == "memory.thread")
            .unwrap()
    }

    #[test]
    fn memory_is_what_a_unit_costs_the_machine_with_pss_beside() {
        let mut d = measured();
        let thread = thread_memory(&mut d);
        for (i, round) in thread.rounds.iter_mut().enumerate() {
            round
                .counters
                .insert(KERNEL_KIB.into(), 19.0 + i as f64 * 0.1);
        }
        thread.counters.insert(KERNEL_KIB.into(), 19.2);
        let costs = unit_costs(&d);
        let t = costs.iter().find(|c| c.kind == Kind::Thread).unwrap();
        // PSS 64 KiB in every round, plus the kernel's 19.0..19.4: median 83.2.
        let machine = t.memory_kib.as_ref().unwrap();
        assert!((machine.value - 83.2).abs() < 1e-9, "{machine:?}");
        assert!(machine.source.ends_with("+ kernel_kib_per_unit"));
        assert_eq!(t.pss_kib.as_ref().unwrap().value, 64.0);
        // A coroutine is no kernel task: its machine cost is its PSS.
        let c = costs.iter().find(|c| c.kind == Kind::Coroutine).unwrap();
        assert_eq!(c.memory_kib, c.pss_kib);
    }

    #[test]
    fn regression_a_thread_total_below_its_own_pss() {
        // "15.4 KiB [-1.75, 29.8]" beside a PSS of 9.90 KiB: one round's kernel share, read
        // from machine-wide counters while another process freed kernel memory, came out below
        // zero. Rounds: PSS 9.9 KiB each, kernel 20 KiB but -11.6 in one and -4.7 in another.
        let mut d = measured();
        let thread = thread_memory(&mut d);
        let kernel = [20.0, -11.6, 19.5, 20.2, -4.7, 19.8, 20.1, 20.0, 20.3];
        *thread = {
            let mut e = entry("memory.thread", &[9.9; 9]);
            e.unit = "KiB".into();
            e
        };
        for (round, k) in thread.rounds.iter_mut().zip(kernel) {
            round.counters.insert(KERNEL_KIB.into(), k);
        }
        thread.counters.insert(KERNEL_KIB.into(), 19.8);
        let costs = unit_costs(&d);
        let t = costs.iter().find(|c| c.kind == Kind::Thread).unwrap();
        let (machine, pss) = (t.memory_kib.as_ref().unwrap(), t.pss_kib.as_ref().unwrap());
        let (lo, _) = machine.interval.unwrap();
        let (pss_lo, _) = pss.interval.unwrap();
        assert!(lo >= pss_lo && lo >= pss.value, "{machine:?} {pss:?}");
        assert!(machine.value >= pss.value);
        assert!((machine.value - (9.9 + 20.0)).abs() < 1e-9, "{machine:?}");
        assert!(machine
            .source
            .contains("2 round(s) whose kernel share came out below zero"));
    }

    #[test]
    fn the_headline_variants_are_the_ones_read() {
        use concbench_core::Params;
        let same = Params::new().with("placement", "same-cpu");
        assert!(reads_variant("switch.pipe.thread", &same));
        assert!(reads_variant("switch.channel.coroutine", &Params::new()));
        assert!(reads_variant(
            "create.coroutine",
            &Params::new().with("stack_alloc", "fresh")
        ));
        assert!(reads_variant(
            "memory.thread",
            &Params::new().with("units", 1000u64)
        ));
        assert!(!reads_variant(
            "memory.thread",
            &Params::new().with("units", 100u64)
        ));
        assert!(!reads_variant(
            "switch.pipe.thread",
            &Params::new().with("placement", "cross-cpu")
        ));
    }

    #[test]
    fn an_empty_document_names_every_missing_measurement() {
        let a = advise(&doc(vec![]), WEB);
        assert_eq!(a.best, None);
        let fork = &a.bills[0];
        assert!(fork
            .missing
            .iter()
            .any(|m| m.contains("create cost of a process")));
        assert!(fork
            .missing
            .iter()
            .any(|m| m.contains("memory per process")));
    }
}
