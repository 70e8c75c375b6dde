//! `concbench advise`: which way of running concurrent units costs least for a workload, on the
//! machine the measurements came from — with the arithmetic shown.
//!
//! The model is deliberately simple and every input is a measured median from the document:
//! * units in flight = rate x lifetime, lifetime = CPU per unit / (1 - blocked share)
//!   (Little's law);
//! * per-unit models pay one create+destroy per unit (`create.*`); pools pay none, but each unit
//!   is handed to a waiting pool worker, which is woken: one switch per unit (`switch.*`);
//! * a unit that blocks is switched out and back in: two more switches per unit;
//! * every unit in flight holds its memory (`memory.*`).
//!
//! The CPU overhead (creation + switches, CPU-seconds per second) ranks the models, memory
//! breaks ties. Models that cannot isolate units are excluded when isolation is needed.

use crate::published::convert;
use concbench_core::vocab::{id, key};
use concbench_core::{ResultDoc, ResultEntry};

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

/// The unit kind a model is built from; its costs are measured once per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Process,
    Thread,
    Coroutine,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Process, Kind::Thread, Kind::Coroutine];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Process => "process",
            Kind::Thread => "thread",
            Kind::Coroutine => "coroutine",
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
}

/// What one unit of each kind costs on the measured machine; `None` where not measured.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitCosts {
    pub kind: Kind,
    pub create_ns: Option<Cost>,
    pub switch_ns: Option<Cost>,
    pub memory_kib: Option<Cost>,
}

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
        Kind::Coroutine => &[
            (id::CREATE_COROUTINE, &[(key::STACK_ALLOC, "reused")]),
            (id::CREATE_COROUTINE, &[]),
            (id::CREATE_ASYNC_TASK, &[]),
        ],
    }
}

fn switch_sources(
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
        Kind::Coroutine => &[
            (id::SWITCH_COROUTINE, SAME),
            (id::SWITCH_COROUTINE, &[]),
            (id::SWITCH_ASYNC_TASK, &[]),
        ],
    }
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
    })
}

/// The number of units held at once that memory figures are quoted at (the `--quick` point and
/// the verdicts'): 100 units carry more of the fixed overhead, 10,000 are not always measured.
const MEMORY_UNITS: f64 = 1000.0;

/// Memory per unit: a `memory` result whose `model` param (or last id part) names the kind,
/// in KiB, MiB or B; the one held at [`MEMORY_UNITS`] when there is one, else the first.
fn memory_cost(doc: &ResultDoc, kind: Kind) -> Option<Cost> {
    let names_kind = |r: &ResultEntry| {
        r.params.get_str(key::MODEL) == Some(kind.name())
            || r.id.rsplit('.').next() == Some(kind.name())
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
            Some(Cost {
                value: r.summary.median * factor,
                interval: r.interval().map(|(lo, hi)| (lo * factor, hi * factor)),
                source: label(r),
            })
        })
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
        .map(|&kind| UnitCosts {
            kind,
            create_ns: find_first(doc, create_sources(kind)).and_then(time_cost),
            switch_ns: find_first(doc, switch_sources(kind)).and_then(time_cost),
            memory_kib: memory_cost(doc, kind),
        })
        .collect()
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
            "Many mostly idle connections: 20,000 per second, 20 µs of CPU each, 99% blocked",
            Workload { units_per_sec: 20_000.0, blocked_share: 0.99, cpu_us: 20.0, isolation: false },
        ),
        (
            "Untrusted or crash-prone jobs: 100 per second, 5 ms of CPU each, must be isolated",
            Workload { units_per_sec: 100.0, blocked_share: 0.2, cpu_us: 5_000.0, isolation: true },
        ),
    ]
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
}

impl Advice {
    /// CPUs a model keeps busy: its overhead plus the work itself (rate x CPU per unit).
    pub fn cpus_needed(&self, bill: &Bill) -> Option<f64> {
        let work = self.workload.units_per_sec * self.workload.cpu_us / 1e6;
        bill.overhead_cpu.map(|o| o + work)
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
        .map(|&m| {
            let c = costs
                .iter()
                .find(|c| c.kind == m.kind())
                .expect("every kind");
            bill(m, c, &workload)
        })
        .collect();
    let best = bills
        .iter()
        .filter(|b| b.excluded.is_none())
        .filter_map(|b| {
            Some((
                b.model,
                b.overhead_cpu?,
                b.memory_kib.unwrap_or(f64::INFINITY),
            ))
        })
        .min_by(|x, y| x.1.total_cmp(&y.1).then(x.2.total_cmp(&y.2)))
        .map(|(m, _, _)| m);
    Advice {
        workload,
        bills,
        best,
        cpus: doc.host.logical_cpus,
    }
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
        num(rate),
        ns(cost.value),
        cost.source,
        share(cpu)
    );
    (cpu, line)
}

fn missing_cost(what: &str, kind: Kind) -> String {
    let family = family_of(what);
    format!(
        "{family} cost of a {} (run `concbench run --only {family}`)",
        kind.name()
    )
}

fn bill(model: Model, costs: &UnitCosts, w: &Workload) -> Bill {
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
            terms.push(("hand-off (wake a pool worker)", &costs.switch_ns, 1.0));
        }
    } else if rate > 0.0 {
        terms.push(("create", &costs.create_ns, 1.0));
    }
    if w.blocks() && rate > 0.0 {
        terms.push(("block (switch out and back in)", &costs.switch_ns, 2.0));
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
    let in_flight = w.in_flight().max(1.0);
    let memory_kib = match &costs.memory_kib {
        Some(c) => {
            let kib = in_flight * c.value;
            arithmetic.push(format!(
                "memory: {} units in flight ({} units/s x {} us lifetime, at least 1) x {} ({}) = {}",
                num(in_flight),
                num(rate),
                num(w.lifetime_us()),
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
    }
}

/// A number for people: integers without decimals, others with three significant digits.
fn num(v: f64) -> String {
    if (v.fract() == 0.0 && v.abs() < 1e15) || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn ns(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} ms", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.2} us", v / 1e3)
    } else {
        format!("{v:.0} ns")
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

/// KiB in the largest binary unit that keeps the number above 1.
pub fn kib_text(kib: f64) -> String {
    if kib >= 1024.0 * 1024.0 {
        format!("{:.2} GiB", kib / 1024.0 / 1024.0)
    } else if kib >= 1024.0 {
        format!("{:.1} MiB", kib / 1024.0)
    } else {
        format!("{kib:.0} KiB")
    }
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
    fn arithmetic_follows_littles_law_and_the_measured_costs() {
        let a = advise(&measured(), WEB);
        let fork = a
            .bills
            .iter()
            .find(|b| b.model == Model::ProcessPerUnit)
            .unwrap();
        // 1000/s x 100 us create + 1000/s x 2 x 3 us switch = 0.1 + 0.006 CPU.
        assert!((fork.overhead_cpu.unwrap() - 0.106).abs() < 1e-12);
        // A pool: no creation, one hand-off and two block switches: 1000 x 3 x 2.5 us.
        let pool = a
            .bills
            .iter()
            .find(|b| b.model == Model::ThreadPool)
            .unwrap();
        assert!((pool.overhead_cpu.unwrap() - 0.0075).abs() < 1e-12);
        // lifetime 200 us -> 0.2 units in flight, at least one unit: 400 KiB.
        assert_eq!(fork.memory_kib, Some(400.0));
        assert!(fork.arithmetic[0].contains("1000 units/s x 100.00 us (create.fork"));
        // Coroutines: 1000 x 200 ns + 1000 x 2 x 50 ns = 0.0003 CPU, the least.
        assert_eq!(a.best, Some(Model::Coroutines), "{a:#?}");
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
        // Coroutines: 50,000 x (200 + 2 x 50) ns = 0.015 CPU of overhead + 5 CPUs of work.
        assert!((a.cpus_needed(best).unwrap() - 5.015).abs() < 1e-9);
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
        d.results
            .retain(|r| !r.id.starts_with("switch.pipe.thread"));
        let a = advise(&d, w);
        // The thread models miss their switch cost and cannot be ranked; coroutines win.
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
