//! The anatomy of a hand-over: what one switch is made of, layer by layer, from results that
//! differ by one factor each (family `anatomy`, `concbench run --only anatomy`).
//!
//! A stacked bar climbs levels, each a measured result, and each layer is the difference
//! between two neighbouring levels:
//!
//! 1. the system-call floor: two `syscall.getppid` (a hand-over makes two calls);
//! 2. the transport: the same two calls doing the hand-over's work in one thread
//!    (`anatomy.transport`; failing that, the ring's self-test of `switch.ring.thread`);
//! 3. the switch between threads (`switch.pipe.thread` / `switch.futex.thread`, same CPU);
//! 4. the extra for processes, an address-space change (`switch.pipe.process`, same CPU);
//! 5. either the indirect cost of a working set (`switch.pipe.process` with W KiB minus 0 KiB:
//!    cache and TLB refill), or the wake-up on another CPU (`switch.pipe.process` cross-CPU on a
//!    pair class minus same CPU) — one bar per working set and per pair class;
//! 6. the wake-up of a thread on another CPU per idle condition (`switch.wake.thread`: free to
//!    sleep, held awake by `/dev/cpu_dma_latency` or a `SCHED_IDLE` spinner, deeper states
//!    disabled) over the same-CPU switch between threads — one bar per condition, named with
//!    the idle-state entries per hand-over that explain it.
//!
//! A level the run lacks is skipped and its layer merges into the next ("transport + switch
//! between threads"). Each layer has an interval ([`difference_interval`]); a layer whose
//! interval includes zero is "not distinguishable here". [`side`] adds the victim's slowdown,
//! fork against the parent's size and the kernel's and CPU's evidence.

pub mod side;

use concbench_core::vocab::id;
use concbench_core::{ResultDoc, ResultEntry};
use concbench_stats::{median, median_interval};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A result's values by pass of the run: its rounds' values (net of a baseline it subtracts),
/// or, for a document written before rounds, its samples in order.
pub fn passes(r: &ResultEntry) -> BTreeMap<usize, f64> {
    if r.rounds.is_empty() {
        return r.samples.iter().copied().enumerate().collect();
    }
    let net = r.overhead.is_some();
    concbench_core::usable_rounds(&r.rounds)
        .into_iter()
        .map(|x| (x.pass, if net { x.net() } else { x.value }))
        .collect()
}

/// The 95% interval of the layer `upper - lower`: the difference is taken pass by pass (the
/// two results' rounds of one pass were measured in the same sweep of the run, so drift cancels)
/// and its median's distribution-free interval computed; `None` under six common passes. The
/// first layer (no lower level) is the upper level's own interval.
///
/// The one place layer intervals come from.
pub fn difference_interval(
    lower: Option<&BTreeMap<usize, f64>>,
    upper: &BTreeMap<usize, f64>,
) -> Option<(f64, f64)> {
    let diffs: Vec<f64> = match lower {
        None => upper.values().copied().collect(),
        Some(lower) => upper
            .iter()
            .filter_map(|(pass, u)| Some(u - lower.get(pass)?))
            .collect(),
    };
    median_interval(&diffs, 0.95)
}

/// One level of a stack: a result (or part of one) and its values by pass, in ns; none when the
/// run lacks it.
#[derive(Debug, Clone)]
pub struct Level {
    /// What the layer ending at this level adds ("switch between threads").
    pub adds: String,
    /// Where the level comes from ("switch.pipe.thread placement=same-cpu ...").
    pub source: String,
    pub values: BTreeMap<usize, f64>,
}

impl Level {
    fn of(adds: &str, r: Option<&ResultEntry>) -> Level {
        Level {
            adds: adds.to_string(),
            source: r.map_or_else(String::new, |r| format!("{} {}", r.id, r.params.compact())),
            values: r.map(passes).unwrap_or_default(),
        }
    }

    fn is_measured(&self) -> bool {
        !self.values.is_empty()
    }

    fn median(&self) -> f64 {
        median(&self.values.values().copied().collect::<Vec<f64>>())
    }
}

/// One layer of a stacked bar.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Layer {
    pub name: String,
    /// The two results it is the difference of ("A -> B"); the first layer starts from zero.
    pub from: Option<String>,
    pub to: String,
    /// ns per one-way hand-over, and its 95% interval, bounded at zero: a layer is a part of a
    /// time, which cannot be negative (an interval reaching below zero is "not distinguishable
    /// here", one wholly below it says the layering does not hold on this machine).
    pub median: f64,
    pub interval: Option<(f64, f64)>,
    /// The difference of the two levels' medians before bounding: the stack's layers add up to
    /// its top level with these.
    #[serde(skip)]
    pub difference: f64,
}

impl Layer {
    /// A layer from the difference of its levels' medians and the interval of the pass-by-pass
    /// differences, bounded at zero.
    pub fn bounded(
        name: String,
        from: Option<String>,
        to: String,
        difference: f64,
        interval: Option<(f64, f64)>,
    ) -> Layer {
        let below = interval.is_some_and(|(_, hi)| hi < 0.0);
        let (median, interval) = concbench_stats::bound_at_zero(difference, interval);
        Layer {
            name,
            from,
            to,
            median: if below { 0.0 } else { median },
            interval,
            difference,
        }
    }

    /// Whether its interval lies above zero; `None` without an interval.
    pub fn distinguishable(&self) -> Option<bool> {
        self.interval.map(|(lo, _)| lo > 0.0)
    }

    /// "not distinguishable here", "below zero: ...", "no interval", or nothing.
    pub fn note(&self) -> &'static str {
        match self.distinguishable() {
            Some(true) => "",
            Some(false) if self.difference < 0.0 && self.interval == Some((0.0, 0.0)) => {
                "below zero: the lower level costs more here, so this layering does not hold on \
                 this machine"
            }
            Some(false) => "not distinguishable here",
            None => "no interval",
        }
    }
}

/// The layers between consecutive measured levels (the first from zero); a level the run lacks
/// merges its layer into the next one's name ("transport + switch between threads"). Pure.
pub fn layers(levels: &[Level]) -> Vec<Layer> {
    let mut out: Vec<Layer> = Vec::new();
    let mut below: Option<&Level> = None;
    let mut pending: Vec<&str> = Vec::new();
    for level in levels {
        pending.push(&level.adds);
        if !level.is_measured() {
            continue;
        }
        let (median_below, interval) = match below {
            None => (0.0, difference_interval(None, &level.values)),
            Some(b) => (
                b.median(),
                difference_interval(Some(&b.values), &level.values),
            ),
        };
        out.push(Layer::bounded(
            pending.join(" + "),
            below.map(|b| b.source.clone()),
            level.source.clone(),
            level.median() - median_below,
            interval,
        ));
        pending.clear();
        below = Some(level);
    }
    out
}

/// One stacked bar: a name and its layers, bottom first.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stack {
    pub name: String,
    pub layers: Vec<Layer>,
}

impl Stack {
    /// The top of the bar: the last level's median.
    pub fn total(&self) -> f64 {
        self.layers.iter().map(|l| l.difference).sum()
    }
}

/// Everything the anatomy section shows.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Anatomy {
    pub stacks: Vec<Stack>,
    pub victim: Vec<side::VictimRow>,
    pub fork: Vec<side::ForkCurve>,
    pub threaded_fork: Vec<side::ThreadedFork>,
    pub evidence: Vec<side::EvidenceRow>,
    /// What could not be had, each said once ("hardware counters: unavailable (no PMU)").
    pub unavailable: Vec<String>,
}

impl Anatomy {
    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
            && self.victim.is_empty()
            && self.fork.is_empty()
            && self.evidence.is_empty()
    }
}

/// The anatomy of the document's hand-overs, victim, forks and evidence (empty parts left out).
pub fn anatomy(doc: &ResultDoc) -> Anatomy {
    let mut stacks = pipe_stacks(doc);
    stacks.extend(futex_stack(doc));
    stacks.extend(wake_stacks(doc));
    Anatomy {
        stacks,
        victim: side::victim_rows(doc),
        fork: side::fork_curves(doc),
        threaded_fork: side::threaded_forks(doc),
        evidence: side::evidence_rows(doc),
        unavailable: side::unavailable(doc),
    }
}

/// `params` a result must have, as (key, value) pairs.
fn find<'a>(doc: &'a ResultDoc, id: &str, params: &[(&str, Value)]) -> Option<&'a ResultEntry> {
    doc.results
        .iter()
        .find(|r| r.id == id && params.iter().all(|(k, v)| r.params.get(k) == Some(v)))
}

fn plain_same_cpu(working_set_kib: f64) -> [(&'static str, Value); 3] {
    [
        ("placement", json!("same-cpu")),
        ("sched", json!("other")),
        ("working_set_kib", json!(working_set_kib as u64)),
    ]
}

/// The system-call floor of a two-call hand-over.
fn floor(doc: &ResultDoc) -> Level {
    let r = doc.find(id::SYSCALL_GETPPID).next();
    Level {
        adds: "system-call floor (2 calls)".into(),
        source: r.map_or_else(String::new, |r| format!("2 x {}", r.id)),
        values: r.map_or_else(BTreeMap::new, |r| {
            passes(r).into_iter().map(|(p, v)| (p, 2.0 * v)).collect()
        }),
    }
}

fn transport(doc: &ResultDoc, mechanism: &str) -> Level {
    let adds = format!("transport: {mechanism} calls doing the work, one thread");
    let own = find(
        doc,
        id::ANATOMY_TRANSPORT,
        &[("mechanism", json!(mechanism))],
    );
    // The ring's self-test (a 10-byte token written and read back) is the pipe transport too.
    let ring = find(
        doc,
        id::SWITCH_RING_THREAD,
        &[("placement", json!("same-cpu"))],
    )
    .filter(|_| mechanism == "pipe")
    .and_then(|r| Some((r, r.overhead.as_ref()?)));
    match (own, ring) {
        (None, Some((ring, overhead))) => Level {
            adds,
            source: format!("{} self-test", ring.id),
            values: if ring.rounds.is_empty() {
                overhead.samples.iter().copied().enumerate().collect()
            } else {
                ring.rounds
                    .iter()
                    .filter_map(|x| Some((x.pass, x.baseline?)))
                    .collect()
            },
        },
        _ => Level::of(&adds, own),
    }
}

/// A stack when a switch was measured (a level above the floor and the transport) and one more
/// level under it; levels above the highest measured one are left out.
fn stack(name: String, mut levels: Vec<Level>) -> Option<Stack> {
    while levels.last().is_some_and(|l| !l.is_measured()) {
        levels.pop();
    }
    let measured = levels.iter().filter(|l| l.is_measured()).count();
    (measured >= 2 && levels.len() > 2).then(|| Stack {
        name,
        layers: layers(&levels),
    })
}

/// The base pipe levels (floor, transport, threads, processes) and one stack per extension.
fn pipe_stacks(doc: &ResultDoc) -> Vec<Stack> {
    let base = vec![
        floor(doc),
        transport(doc, "pipe"),
        Level::of(
            "switch between threads",
            find(doc, id::SWITCH_PIPE_THREAD, &plain_same_cpu(0.0)),
        ),
        Level::of(
            "extra for processes (address-space change)",
            find(doc, id::SWITCH_PIPE_PROCESS, &plain_same_cpu(0.0)),
        ),
    ];
    let Some(first) = stack("pipe hand-over, same CPU".into(), base.clone()) else {
        return Vec::new();
    };
    let mut stacks = vec![first];
    let with = |name: String, top: Level| stack(name, [base.clone(), vec![top]].concat());
    for r in doc.find(id::SWITCH_PIPE_PROCESS) {
        let p = &r.params;
        let kib = p.get_f64("working_set_kib").unwrap_or(0.0);
        let other = p.get_str("sched") == Some("other");
        let extra = match p.get_str("placement") {
            Some("same-cpu") if other && kib > 0.0 => with(
                format!("pipe hand-over, same CPU, {kib} KiB working set"),
                Level::of(
                    &format!("indirect cost of {kib} KiB (cache refill)"),
                    Some(r),
                ),
            ),
            Some("cross-cpu") if other && kib == 0.0 => {
                let class = p.get_str("pair_class").unwrap_or("another CPU");
                let distance = p
                    .get_f64("numa_distance")
                    .map(|d| format!(", NUMA distance {d}"))
                    .unwrap_or_default();
                with(
                    format!("pipe hand-over, CPUs {:?} ({class}{distance})", r.cpus),
                    Level::of(&format!("wake-up on another CPU ({class})"), Some(r)),
                )
            }
            _ => None,
        };
        stacks.extend(extra);
    }
    stacks
}

/// One bar per idle condition of `switch.wake.thread`: the thread levels, then the wake-up on
/// the other CPU under that condition. Why over the same-CPU thread switch: the two differ by
/// where the woken thread runs, so the layer is the wake-up and what the idle state adds to it.
fn wake_stacks(doc: &ResultDoc) -> Vec<Stack> {
    let base = vec![
        floor(doc),
        transport(doc, "pipe"),
        Level::of(
            "switch between threads",
            find(doc, "switch.pipe.thread", &plain_same_cpu(0.0)),
        ),
    ];
    doc.find("switch.wake.thread")
        .filter_map(|r| {
            let idle = r.params.get_str("idle").unwrap_or("free");
            let top = Level::of(&format!("wake-up on another CPU, idle={idle}"), Some(r));
            let name = format!(
                "pipe hand-over between threads, CPUs {:?}, idle={idle} ({})",
                r.cpus,
                idle_usage(r)
            );
            stack(name, [base.clone(), vec![top]].concat())
        })
        .collect()
}

/// "1.6 idle-state entries per hand-over (C1 1.2, C6 0.4)", or why there is no such figure.
fn idle_usage(r: &ResultEntry) -> String {
    let Some(sleeps) = r.counters.get("idle_sleeps_per_op") else {
        return "idle-state usage not read: no cpuidle driver publishes states here".into();
    };
    let per_state: Vec<String> = r
        .counters
        .iter()
        .filter_map(|(k, v)| {
            let name = k.strip_prefix("idle_")?.strip_suffix("_per_op")?;
            (name != "sleeps" && *v > 0.0).then(|| format!("{name} {v:.2}"))
        })
        .collect();
    let states = if per_state.is_empty() {
        String::new()
    } else {
        format!(": {}", per_state.join(", "))
    };
    format!("{sleeps:.2} idle-state entries per hand-over{states}")
}

fn futex_stack(doc: &ResultDoc) -> Option<Stack> {
    stack(
        "futex hand-over between threads, same CPU".into(),
        vec![
            floor(doc),
            transport(doc, "futex"),
            Level::of(
                "switch between threads",
                find(doc, id::SWITCH_FUTEX_THREAD, &plain_same_cpu(0.0)),
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{doc, entry, entry_with};
    use concbench_core::Params;

    fn level(adds: &str, samples: &[f64]) -> Level {
        // A level's source names it in the tests; one value per pass.
        Level {
            adds: adds.into(),
            source: adds.into(),
            values: samples.iter().copied().enumerate().collect(),
        }
    }

    #[test]
    fn layers_are_differences_of_neighbouring_levels() {
        let l = layers(&[
            level("floor", &[100.0, 101.0, 99.0, 100.0, 100.0, 100.0]),
            level("transport", &[300.0, 302.0, 298.0, 300.0, 301.0, 299.0]),
            level("switch", &[2000.0, 2010.0, 1990.0, 2005.0, 1995.0, 2000.0]),
        ]);
        assert_eq!(l.len(), 3);
        assert_eq!(l[0].median, 100.0);
        assert_eq!(l[1].median, 200.0);
        assert_eq!(l[2].median, 1700.0);
        assert_eq!(l[2].from.as_deref(), Some("transport"));
        assert!(
            l.iter().all(|x| x.distinguishable() == Some(true)),
            "{l:#?}"
        );
    }

    #[test]
    fn a_layer_whose_interval_includes_zero_is_not_distinguishable() {
        // Threads and processes overlap: the process layer straddles zero.
        let l = layers(&[
            level("threads", &[2000.0, 2100.0, 1900.0, 2050.0, 1950.0, 2000.0]),
            level(
                "processes",
                &[2010.0, 1920.0, 2080.0, 1990.0, 2040.0, 1980.0],
            ),
        ]);
        // Its interval reached below zero: bounded there (a part of a time is never negative).
        let (lo, hi) = l[1].interval.unwrap();
        assert!(lo == 0.0 && hi > 0.0, "({lo}, {hi})");
        assert!(l[1].median >= 0.0);
        assert_eq!(l[1].note(), "not distinguishable here");
        // The bar still adds up to its top level.
        let stack = Stack {
            name: "s".into(),
            layers: l.clone(),
        };
        assert!((stack.total() - 2000.0).abs() < 1e-9, "{}", stack.total());
        // Too few values for an interval: said, not guessed.
        let short = layers(&[level("a", &[1.0, 2.0]), level("b", &[5.0, 6.0])]);
        assert_eq!(short[1].note(), "no interval");
    }

    #[test]
    fn the_interval_pairs_passes_and_brackets_a_clear_difference() {
        let by_pass =
            |xs: &[f64]| -> BTreeMap<usize, f64> { xs.iter().copied().enumerate().collect() };
        // Drift moves both levels alike from pass to pass: the paired difference stays at 10.
        let a = by_pass(&[10.0, 15.0, 9.0, 12.5, 9.5, 11.0]);
        let b = by_pass(&[20.0, 25.5, 19.0, 22.0, 19.5, 21.0]);
        let i = difference_interval(Some(&a), &b).unwrap();
        assert_eq!(Some(i), difference_interval(Some(&a), &b));
        assert!(
            i.0 >= 9.5 && i.1 <= 10.5 && i.0 <= 10.0 && 10.0 <= i.1,
            "{i:?}"
        );
        // Passes the other level lacks are left out; under six common passes, no interval.
        let few = by_pass(&[10.0, 15.0]);
        assert!(difference_interval(Some(&few), &b).is_none());
    }

    fn switch(id: &str, placement: &str, kib: u64, samples: &[f64]) -> ResultEntry {
        let params = Params::new()
            .with("placement", placement)
            .with("sched", "other")
            .with("working_set_kib", kib);
        entry_with(id, "ns", params, samples)
    }

    fn around(v: f64) -> Vec<f64> {
        [0.99, 1.0, 1.01, 0.995, 1.005]
            .iter()
            .map(|f| v * f)
            .collect()
    }

    #[test]
    fn a_synthetic_run_gives_the_pipe_stack_and_one_bar_per_working_set_and_class() {
        let mut cross = switch("switch.pipe.process", "cross-cpu", 0, &around(6000.0));
        cross.params.set("pair_class", "same-llc");
        cross.cpus = vec![1, 0];
        let d = doc(vec![
            entry("syscall.getppid", &around(100.0)),
            entry_with(
                "anatomy.transport",
                "ns",
                Params::new()
                    .with("mechanism", "pipe")
                    .with("placement", "same-cpu"),
                &around(700.0),
            ),
            switch("switch.pipe.thread", "same-cpu", 0, &around(2500.0)),
            switch("switch.pipe.process", "same-cpu", 0, &around(2800.0)),
            switch("switch.pipe.process", "same-cpu", 4096, &around(9000.0)),
            cross,
        ]);
        let a = anatomy(&d);
        let names: Vec<&str> = a.stacks.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        let base = &a.stacks[0];
        let medians: Vec<f64> = base.layers.iter().map(|l| l.median.round()).collect();
        assert_eq!(medians, [200.0, 500.0, 1800.0, 300.0]);
        assert_eq!(base.total().round(), 2800.0);
        let ws = &a.stacks[1];
        assert_eq!(ws.layers.last().unwrap().median.round(), 6200.0);
        assert!(
            a.stacks[2].name.contains("same-llc"),
            "{}",
            a.stacks[2].name
        );
        assert_eq!(a.stacks[2].layers.last().unwrap().median.round(), 3200.0);
    }

    #[test]
    fn a_missing_level_merges_its_layer_into_the_next() {
        let d = doc(vec![
            entry("syscall.getppid", &around(100.0)),
            switch("switch.pipe.thread", "same-cpu", 0, &around(2500.0)),
        ]);
        let a = anatomy(&d);
        assert_eq!(a.stacks.len(), 1);
        let l = &a.stacks[0].layers;
        assert_eq!(l.len(), 2);
        assert_eq!(l[1].from.as_deref(), Some("2 x syscall.getppid"));
        assert_eq!(
            l[1].name,
            "transport: pipe calls doing the work, one thread + switch between threads"
        );
        assert_eq!(l[1].median.round(), 2300.0);
        assert!(anatomy(&doc(vec![])).is_empty());
    }
    #[test]
    fn the_wake_up_layer_gets_one_bar_per_idle_condition_with_its_idle_usage() {
        let same = Params::new()
            .with("placement", "same-cpu")
            .with("sched", "other")
            .with("working_set_kib", 0);
        let wake = |idle: &str, ns: f64, sleeps: Option<f64>| {
            let p = Params::new()
                .with("placement", "cross-cpu")
                .with("sched", "other")
                .with("working_set_kib", 0)
                .with("idle", idle);
            let mut e = entry_with("switch.wake.thread", "ns", p, &[ns; 6]);
            e.cpus = vec![0, 1];
            if let Some(s) = sleeps {
                e.counters.insert("idle_sleeps_per_op".into(), s);
                e.counters.insert("idle_c6_per_op".into(), s);
                e.counters.insert("idle_poll_per_op".into(), 0.0);
            }
            e
        };
        let d = doc(vec![
            entry("syscall.getppid", &[100.0; 6]),
            entry_with("switch.pipe.thread", "ns", same, &[2000.0; 6]),
            wake("free", 20000.0, Some(0.63)),
            wake("spinner", 3400.0, None),
        ]);
        let stacks = wake_stacks(&d);
        assert_eq!(stacks.len(), 2);
        let free = &stacks[0];
        assert!(free.name.contains("idle=free"), "{}", free.name);
        assert!(
            free.name
                .contains("0.63 idle-state entries per hand-over: c6 0.63"),
            "{}",
            free.name
        );
        let top = free.layers.last().unwrap();
        assert_eq!(top.name, "wake-up on another CPU, idle=free");
        assert_eq!(top.median, 18000.0);
        assert!(
            stacks[1].name.contains("no cpuidle driver"),
            "{}",
            stacks[1].name
        );
        assert_eq!(stacks[1].layers.last().unwrap().median, 1400.0);
        assert_eq!(
            anatomy(&d).stacks.len(),
            3,
            "the thread bar and the two wake-ups"
        );
    }
}
