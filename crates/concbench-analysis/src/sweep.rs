//! The crossover sweep checked against `advise` (issue 45): every measured point of
//! `server.crossover` beside the requests/s `advise`'s model predicts for it, the error between
//! them, and where each pair of designs crosses along the blocking-time axis — measured and
//! predicted.
//!
//! The prediction is `advise`'s own model ([`advice::advise`]), not a second one: a request is a
//! unit of work billed as its model bills it from this document's unit costs, and its rate is
//! the lower of the model's two limits ([`advice::Advice::rate_bounded`]): the CPUs the server
//! has, filled by the request's CPU and the model's overhead per request; and Little's law, with
//! at most N requests in flight — a pool's workers, one for an event loop that blocks in its
//! loop, every connection for coroutines — each for its blocking time plus its CPU. A request's
//! CPU is the sweep's plus its own I/O, which the unit costs do not hold: that is read from
//! scenario A's single epoll loop (`server.keepalive design=epoll`, server CPU per request), the
//! leanest server the document measured, so that a request of "0 µs" is billed what reading and
//! answering it costs.
//!
//! Nothing here reads a clock; the document's figures go in, the `crossover` object comes out.

use crate::advice::{self, Model, Workload};
use crate::crossover::{losing_edges, Edge, Standing};
use concbench_core::crossover::{Crossing, Crossover, ErrorSummary, Pair, PairRatio, SweepPoint};
use concbench_core::{human, ResultDoc, ResultEntry};

/// The sweep's result id.
pub const SWEEP_ID: &str = "server.crossover";
/// Where a request's own I/O CPU is read: scenario A, the single epoll loop.
const IO_ID: &str = "server.keepalive";
const IO_DESIGN: &str = "epoll";
const SERVER_CPU: &str = "server_cpu_us_per_req";
/// The request rate the bills are made at: a bill's overhead per request does not depend on it.
const BILLING_RATE: f64 = 1000.0;

/// How a design of the sweep is billed: `advise`'s model and Little's N (at most the
/// connections the load generator established).
#[derive(Debug, Clone, PartialEq)]
struct Billing {
    model: Model,
    /// At most this many requests in flight.
    concurrency: f64,
    /// The design as tables name it.
    label: String,
}

/// The sweep's designs: thread pools, process pools, the loop that blocks, coroutines.
fn billing(design: &str, workers: Option<u64>, connections: f64) -> Option<Billing> {
    // A pool serves one connection per worker: fewer connections than workers leave some idle.
    let pool = |model: Model, kind: &str| {
        let n = workers?;
        Some(Billing {
            model,
            concurrency: (n as f64).min(connections),
            label: format!("{kind} pool of {n}"),
        })
    };
    match design {
        d if d.starts_with("prethread") => pool(Model::ThreadPool, "thread"),
        d if d.starts_with("prefork") => pool(Model::ProcessPool, "process"),
        // The loop's callbacks are user-space units, as coroutines are; its blocking call stops
        // the loop, so one request is in flight at a time.
        "epoll-naive-blocking" => Some(Billing {
            model: Model::Coroutines,
            concurrency: 1.0,
            label: "event loop blocking in its loop".into(),
        }),
        d if d.starts_with("tokio") => Some(Billing {
            model: Model::Coroutines,
            concurrency: connections,
            label: "coroutines (tokio)".into(),
        }),
        _ => None,
    }
}

/// The label of coroutines, the reference of most pairs.
const COROUTINES: &str = "coroutines (tokio)";
const BLOCKING_LOOP: &str = "event loop blocking in its loop";

/// The `crossover` object of a document holding the sweep; `None` without one.
pub fn analyse(doc: &ResultDoc) -> Option<Crossover> {
    let measured: Vec<Measured<'_>> = doc
        .results
        .iter()
        .filter(|r| r.id == SWEEP_ID)
        .filter_map(Measured::of)
        .collect();
    if measured.is_empty() {
        return None;
    }
    let io = io_cpu(doc);
    let mut missing = Vec::new();
    if io.is_none() {
        missing.push(format!(
            "the CPU of a request's own I/O ({IO_ID} design={IO_DESIGN}: `concbench crossover` \
             measures it); points without CPU work are not predicted"
        ));
    }
    let io_us = io.as_ref().map_or(0.0, |(v, _)| *v);
    let mut points = Vec::new();
    for m in &measured {
        let (point, lacking) = m.point(doc, io_us);
        for l in lacking {
            if !missing.contains(&l) {
                missing.push(l);
            }
        }
        points.push(point);
    }
    let pairs = pairs(&points, &measured);
    Some(Crossover {
        model: model_lines(io.as_ref()),
        io_cpu_us: io.as_ref().map(|(v, _)| *v),
        io_source: io.map(|(_, s)| s),
        missing,
        error: error_summary(&points),
        points,
        pairs,
    })
}

/// The sweep's check of `doc`: the stored one, or worked out from its results (a document from
/// `run --only server.crossover` written before the object was).
pub fn check(doc: &ResultDoc) -> Option<Crossover> {
    doc.crossover.clone().or_else(|| analyse(doc))
}

fn model_lines(io: Option<&(f64, String)>) -> Vec<String> {
    let io_line = match io {
        Some((us, source)) => format!(
            "a request's CPU is the sweep's plus its own I/O, {} ({source})",
            human::micros(*us)
        ),
        None => "a request's CPU is the sweep's alone (the document has no I/O cost)".into(),
    };
    vec![
        "requests/s = the lower of two limits of `advise`'s model: the server's CPUs / (a \
         request's CPU + its model's overhead per request), and Little's law, N / (the blocking \
         time + a request's CPU)"
            .into(),
        "N = a pool's workers; 1 for the event loop that blocks in its loop; every connection for \
         coroutines"
            .into(),
        io_line,
        "the overhead per request is `advise`'s bill of the model (thread pool, process pool, \
         coroutines; the blocking loop billed as coroutines) from this document's unit costs"
            .into(),
    ]
}

/// `server.keepalive design=epoll`'s server CPU per request, µs, and where it came from.
fn io_cpu(doc: &ResultDoc) -> Option<(f64, String)> {
    let r = doc
        .results
        .iter()
        .find(|r| r.id == IO_ID && r.params.get_str("design") == Some(IO_DESIGN))?;
    let us = *r.counters.get(SERVER_CPU)?;
    (us.is_finite() && us > 0.0).then(|| {
        (
            us,
            format!(
                "{IO_ID} design={IO_DESIGN}, the server's CPU per request over {} round(s)",
                r.rounds.len().max(1)
            ),
        )
    })
}

/// One sweep result, read.
struct Measured<'a> {
    entry: &'a ResultEntry,
    billing: Billing,
    workers: Option<u64>,
    block_us: f64,
    cpu_us: f64,
    rounds: Vec<f64>,
}

impl<'a> Measured<'a> {
    fn of(entry: &'a ResultEntry) -> Option<Measured<'a>> {
        let p = &entry.params;
        let workers = p.get_f64("workers").map(|n| n as u64);
        let connections = entry
            .counters
            .get("connections_established")
            .copied()
            .or_else(|| p.get_f64("connections"))?;
        Some(Measured {
            entry,
            billing: billing(p.get_str("design")?, workers, connections)?,
            workers,
            block_us: p.get_f64("block_us")?,
            cpu_us: p.get_f64("cpu_us")?,
            rounds: entry.round_values(),
        })
    }

    /// The server's CPUs as the rounds ran it (1 on a 2-CPU machine: the client has the other).
    fn server_cpus(&self) -> f64 {
        self.entry
            .counters
            .get("server_cpus")
            .copied()
            .filter(|c| *c >= 1.0)
            .unwrap_or(1.0)
    }

    /// Whether every round's server levelled.
    fn steady(&self) -> bool {
        let levelled = |c: &std::collections::BTreeMap<String, f64>| c.get("steady") != Some(&0.0);
        levelled(&self.entry.counters) && self.entry.rounds.iter().all(|r| levelled(&r.counters))
    }

    /// `advise`'s prediction, with the unit costs it lacked.
    fn predict(&self, doc: &ResultDoc, io_us: f64) -> (Option<(f64, advice::Limit)>, Vec<String>) {
        let Some(w) = Workload::from_times(BILLING_RATE, self.cpu_us + io_us, self.block_us, false)
        else {
            return (None, Vec::new());
        };
        let a = advice::advise(doc, w);
        let Some(bill) = a.bills.iter().find(|b| b.model == self.billing.model) else {
            return (None, Vec::new());
        };
        let lacking: Vec<String> = bill
            .missing
            .iter()
            .filter(|m| !m.starts_with("memory"))
            .cloned()
            .collect();
        let rate = a.rate_bounded(bill, self.server_cpus(), self.billing.concurrency);
        (rate, lacking)
    }

    fn point(&self, doc: &ResultDoc, io_us: f64) -> (SweepPoint, Vec<String>) {
        let e = self.entry;
        let (predicted, lacking) = self.predict(doc, io_us);
        let ci = e.interval().map(|(lo, hi)| [lo, hi]);
        let lo = self.rounds.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self
            .rounds
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let median = e.summary.median;
        let p = predicted.map(|(r, _)| r).filter(|r| *r > 0.0);
        let point = SweepPoint {
            design: e.params.get_str("design").unwrap_or_default().to_string(),
            label: self.billing.label.clone(),
            workers: self.workers,
            block_us: self.block_us,
            cpu_us: self.cpu_us,
            rounds: self.rounds.len(),
            measured_rps: median,
            measured_ci: ci,
            measured_range: if lo <= hi { [lo, hi] } else { [median, median] },
            steady: self.steady(),
            predicted_rps: p,
            limited_by: predicted.map(|(_, l)| l.as_str().to_string()),
            error: p.map(|p| median / p),
            error_ci: p.and_then(|p| ci.map(|[lo, hi]| [lo / p, hi / p])),
        };
        (point, lacking)
    }
}

/// The pairs the sweep compares: each thread pool against coroutines, the blocking loop against
/// coroutines, and a process pool against the thread pool of its size; at each CPU cost.
fn pairs(points: &[SweepPoint], measured: &[Measured<'_>]) -> Vec<Pair> {
    let mut labels: Vec<&str> = Vec::new();
    for p in points {
        if !labels.contains(&p.label.as_str()) {
            labels.push(&p.label);
        }
    }
    let mut wanted: Vec<(String, String)> = Vec::new();
    for l in &labels {
        if l.starts_with("thread pool") || *l == BLOCKING_LOOP {
            wanted.push((l.to_string(), COROUTINES.into()));
        }
        if let Some(n) = l.strip_prefix("process pool of ") {
            wanted.push((l.to_string(), format!("thread pool of {n}")));
        }
    }
    let mut cpus: Vec<f64> = points.iter().map(|p| p.cpu_us).collect();
    cpus.sort_by(f64::total_cmp);
    cpus.dedup();
    let mut out = Vec::new();
    for cpu in cpus {
        for (a, b) in &wanted {
            if let Some(pair) = pair(points, measured, a, b, cpu) {
                out.push(pair);
            }
        }
    }
    out
}

/// `a` against `b` at CPU cost `cpu`, over the blocking times both were measured at.
fn pair(
    points: &[SweepPoint],
    measured: &[Measured<'_>],
    a: &str,
    b: &str,
    cpu: f64,
) -> Option<Pair> {
    let at = |label: &str, block: f64| {
        let i = points
            .iter()
            .position(|p| p.label == label && p.cpu_us == cpu && p.block_us == block)?;
        Some((&points[i], &measured[i]))
    };
    let mut blocks: Vec<f64> = points
        .iter()
        .filter(|p| p.label == a && p.cpu_us == cpu)
        .map(|p| p.block_us)
        .collect();
    blocks.sort_by(f64::total_cmp);
    let mut ratios: Vec<PairRatio> = blocks
        .iter()
        .filter_map(|&x| {
            let ((pa, ma), (pb, mb)) = (at(a, x)?, at(b, x)?);
            Some(ratio_at(x, pa, pb, &ma.rounds, &mb.rounds))
        })
        .collect();
    if ratios.len() < 2 {
        return None;
    }
    let resolution = judge_predictions(&mut ratios);
    let measured_edges = losing_edges(&standings(&ratios, None).unwrap_or_default());
    let predicted_edges = standings(&ratios, Some(resolution))
        .map(|s| losing_edges(&s))
        .unwrap_or_default();
    let measured: Vec<Crossing> = measured_edges.iter().map(crossing).collect();
    let predicted: Vec<Crossing> = predicted_edges.iter().map(crossing).collect();
    let error = crossing_error(&measured, &predicted);
    let span = (blocks[0], blocks[blocks.len() - 1]);
    let predicted_known = ratios.iter().all(|r| r.predicted.is_some());
    let summary = pair_summary(
        a,
        b,
        cpu,
        &ratios,
        &measured,
        &predicted,
        predicted_known,
        span,
        error,
    );
    Some(Pair {
        challenger: a.into(),
        reference: b.into(),
        cpu_us: cpu,
        resolution,
        ratios,
        measured,
        predicted,
        error,
        summary,
    })
}

/// The pair's ratio at blocking time `x`: of the medians, with the Hodges-Lehmann interval over
/// the rounds; the measurement's resolution there ([`decisive_upper`] over the ratio of medians,
/// so that the ratio times it is that end), and with it whether the challenger was decisively
/// behind. The prediction's standing is set by the pair ([`judge_predictions`]).
fn ratio_at(x: f64, a: &SweepPoint, b: &SweepPoint, ra: &[f64], rb: &[f64]) -> PairRatio {
    let measured = a.measured_rps / b.measured_rps;
    let shift = concbench_stats::shift_ratio(rb, ra, 0.95);
    let ci = shift.as_ref().and_then(|s| s.ci).map(|(lo, hi)| [lo, hi]);
    let upper = decisive_upper(ci, ra, rb);
    PairRatio {
        block_us: x,
        measured,
        measured_ci: ci,
        behind: upper.is_some_and(|u| u < 1.0),
        resolution: upper.map(|u| u / measured),
        predicted: a.predicted_rps.zip(b.predicted_rps).map(|(pa, pb)| pa / pb),
        predicted_behind: None,
    }
}

/// The resolution the predictions are judged with: the median of the pair's measured ones. Why
/// one figure for the pair: the model's ratio is smooth (a pool 2% behind coroutines at every
/// blocking time until its workers run out), and judging each point with its own noise would put
/// the predicted crossing wherever the measurement happened to be tighter.
fn judge_predictions(ratios: &mut [PairRatio]) -> Option<f64> {
    let measured: Vec<f64> = ratios.iter().filter_map(|r| r.resolution).collect();
    let k = (!measured.is_empty()).then(|| concbench_stats::median(&measured));
    for r in ratios.iter_mut() {
        r.predicted_behind = r.predicted.map(|p| k.is_some_and(|k| p * k < 1.0));
    }
    k
}

/// The fewest rounds a side needs for "every round apart" to decide without an interval: at
/// three a side, all three below all three happens by chance once in twenty.
const APART_ROUNDS: usize = 3;

/// The end of the challenger's ratio that decides whether it is behind: its 95% interval's upper
/// end; with too few rounds for an interval (three a side), its highest round over the
/// reference's lowest (below 1: every round of it below every round of the other). `None` when
/// the rounds are too few for either (a smoke run's one).
pub fn decisive_upper(ci: Option<[f64; 2]>, a: &[f64], b: &[f64]) -> Option<f64> {
    match ci {
        Some([_, hi]) => Some(hi),
        None if a.len() >= APART_ROUNDS && b.len() >= APART_ROUNDS => {
            let max_a = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min_b = b.iter().copied().fold(f64::INFINITY, f64::min);
            (min_b > 0.0).then(|| max_a / min_b)
        }
        None => None,
    }
}

/// The standings along a pair's sweep for [`losing_edges`], measured or predicted: each side's
/// deciding end (the measured interval's upper end, the ratio times the point's resolution; the
/// prediction times the pair's `resolution`), behind where it lies below 1. A measured point the
/// rounds cannot decide is not behind, its ratio as it is.
fn standings(ratios: &[PairRatio], predicted: Option<Option<f64>>) -> Option<Vec<Standing>> {
    ratios
        .iter()
        .map(|r| {
            let (ratio, k, behind) = match predicted {
                Some(k) => (r.predicted?, k, r.predicted_behind?),
                None => (r.measured, r.resolution, r.behind),
            };
            Some(Standing {
                x: r.block_us,
                ratio: k.map_or(ratio, |k| ratio * k),
                behind,
            })
        })
        .collect()
}

fn crossing(e: &Edge) -> Crossing {
    Crossing {
        direction: if e.falls_behind {
            "falls behind"
        } else {
            "catches up"
        }
        .into(),
        low_us: e.low,
        high_us: e.high,
        at_us: e.at,
        bound: e.bound,
    }
}

/// measured / predicted blocking time of the first measured crossing and the first predicted
/// one in the same direction, when both lie above 0.
fn crossing_error(measured: &[Crossing], predicted: &[Crossing]) -> Option<f64> {
    let m = measured.first()?;
    let p = predicted.iter().find(|p| p.direction == m.direction)?;
    (m.at_us > 0.0 && p.at_us > 0.0).then(|| m.at_us / p.at_us)
}

/// Microseconds in words, `zero` for none (`human::micros` would say "0 ns").
fn us_text(us: f64, zero: &str) -> String {
    if us == 0.0 {
        zero.into()
    } else {
        human::micros(us)
    }
}

/// A blocking time in words: "0", "0.32 ms", "40 µs".
pub fn block_text(us: f64) -> String {
    us_text(us, "0")
}

/// A CPU cost in words: "0 µs", "100 µs".
pub fn cpu_text(us: f64) -> String {
    us_text(us, "0 µs")
}

/// "falls behind at 0.32 ms (between 0.1 and 1 ms)"; a bound says "by" (behind by then at the
/// latest) or "from" (not behind from then at the latest).
pub fn crossing_text(c: &Crossing) -> String {
    let at = match (c.bound, c.direction.as_str()) {
        (true, "falls behind") => format!("by {}", block_text(c.at_us)),
        (true, _) => format!("from {}", block_text(c.at_us)),
        (false, _) => format!("at {}", block_text(c.at_us)),
    };
    format!(
        "{} {at} (between {} and {})",
        c.direction,
        block_text(c.low_us),
        block_text(c.high_us)
    )
}

#[allow(clippy::too_many_arguments)]
fn pair_summary(
    a: &str,
    b: &str,
    cpu: f64,
    ratios: &[PairRatio],
    measured: &[Crossing],
    predicted: &[Crossing],
    predicted_known: bool,
    span: (f64, f64),
    error: Option<f64>,
) -> String {
    let none = |behind_everywhere: bool| {
        format!(
            "no crossing in {}–{} ({})",
            block_text(span.0),
            block_text(span.1),
            if behind_everywhere {
                "behind at every point"
            } else {
                "never behind"
            }
        )
    };
    let list = |cs: &[Crossing], all_behind: bool| {
        if cs.is_empty() {
            none(all_behind)
        } else {
            cs.iter().map(crossing_text).collect::<Vec<_>>().join("; ")
        }
    };
    let m = list(measured, ratios.iter().all(|r| r.behind));
    let p = if predicted_known {
        list(
            predicted,
            ratios.iter().all(|r| r.predicted_behind == Some(true)),
        )
    } else {
        "not predicted (unit costs missing)".into()
    };
    let err = error.map_or(String::new(), |e| {
        format!("; measured / predicted {}", human::sig3(e))
    });
    format!(
        "{a} against {b}, {} CPU per request: measured {m}; predicted {p}{err}",
        cpu_text(cpu)
    )
}

/// The error over every point a levelled server measured and the model predicted.
fn error_summary(points: &[SweepPoint]) -> Option<ErrorSummary> {
    let judged: Vec<(&SweepPoint, f64)> = points
        .iter()
        .filter(|p| p.steady)
        .filter_map(|p| Some((p, p.error.filter(|e| e.is_finite() && *e > 0.0)?)))
        .collect();
    if judged.is_empty() {
        return None;
    }
    let ratios: Vec<f64> = judged.iter().map(|(_, e)| *e).collect();
    let factor = |e: f64| e.max(1.0 / e);
    let factors: Vec<f64> = ratios.iter().map(|e| factor(*e)).collect();
    let (worst_point, worst) = judged
        .iter()
        .map(|(p, e)| (*p, factor(*e)))
        .max_by(|x, y| x.1.total_cmp(&y.1))?;
    Some(ErrorSummary {
        points: judged.len(),
        median_ratio: concbench_stats::median(&ratios),
        median_factor: concbench_stats::median(&factors),
        worst_factor: worst,
        worst_at: point_name(worst_point),
    })
}

/// "thread pool of 8, 100 µs CPU, 10 ms blocking".
pub fn point_name(p: &SweepPoint) -> String {
    format!(
        "{}, {} CPU, {} blocking",
        p.label,
        cpu_text(p.cpu_us),
        us_text(p.block_us, "no")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decisive_end_is_the_intervals_or_every_round_apart() {
        assert_eq!(decisive_upper(Some([0.5, 0.9]), &[], &[]), Some(0.9));
        // Three a side, no interval: highest challenger round over lowest reference round.
        assert_eq!(
            decisive_upper(None, &[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]),
            Some(0.75)
        );
        assert!(decisive_upper(None, &[1.0, 2.0, 4.5], &[4.0, 5.0, 6.0]).unwrap() > 1.0);
        // One round a side (a smoke run) decides nothing.
        assert_eq!(decisive_upper(None, &[1.0], &[4.0]), None);
    }

    #[test]
    fn the_error_pairs_crossings_of_one_direction_above_zero() {
        let c = |direction: &str, at_us: f64| Crossing {
            direction: direction.into(),
            low_us: 0.0,
            high_us: 1e4,
            at_us,
            bound: false,
        };
        let m = [c("falls behind", 400.0)];
        let p = [c("catches up", 10.0), c("falls behind", 100.0)];
        assert_eq!(crossing_error(&m, &p), Some(4.0));
        assert_eq!(crossing_error(&m, &[c("falls behind", 0.0)]), None);
        assert_eq!(crossing_error(&[], &p), None);
    }
}
