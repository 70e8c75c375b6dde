//! Which charts a document gets: one or more per family present, chosen by what the family
//! measures (switch cost by placement and working set, the print workload's crossover curve, IO
//! throughput against threads, server throughput and tail latency by design, creation costs),
//! and a plain bar chart of every result for families without a dedicated one.
//!
//! Only unit conversions happen here (scaling ns to µs, MiB read / seconds): the numbers are the
//! document's medians and intervals.

use super::bars::{
    axis_unit, display_unit, label_with, one_id, shared_params, subtitle, telling_keys, tooltip,
    Bars, Reading,
};
use super::chart::{LineChart, Point, Series};
use crate::format;
use concbench_analysis::anatomy::Anatomy;
use concbench_core::vocab::{id, key};
use concbench_core::{ResultDoc, ResultEntry};
use serde::Serialize;
use std::collections::BTreeMap;

/// A chart ready for the page.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    pub family: String,
    /// What to read in it, one or two sentences.
    pub caption: String,
    pub svg: String,
}

/// Every chart for the document, family by family in document order; the anatomy's from the
/// answer's ([`concbench_analysis::answer::Answer::anatomy`]).
pub fn figures(doc: &ResultDoc, anatomy: Option<&Anatomy>) -> Vec<Figure> {
    let mut families: Vec<&str> = Vec::new();
    for r in &doc.results {
        if !families.contains(&r.family.as_str()) {
            families.push(&r.family);
        }
    }
    families
        .into_iter()
        .flat_map(|family| {
            let results: Vec<&ResultEntry> =
                doc.results.iter().filter(|r| r.family == family).collect();
            let mut out = match family {
                "create" => create(&results),
                "switch" => switch(&results),
                "workload" => workload(&results),
                "io" => io(&results),
                "server" => server(&results),
                "anatomy" => anatomy.map(super::anatomy::charts).unwrap_or_default(),
                _ => Vec::new(),
            };
            if out.is_empty() {
                out = generic(family, &results);
            }
            out.into_iter().map(move |(caption, svg)| Figure {
                family: family.to_string(),
                caption,
                svg,
            })
        })
        .collect()
}

type Chart = (String, String);

/// Whether `unit` is a time (its charts say "time", their axes the scaled unit).
fn is_time(unit: &str) -> bool {
    format::seconds(1.0, unit).is_some()
}

/// The median of each result, as bars: `title`, the axis "<unit> per operation".
fn median_bars(
    title: &str,
    results: &[&ResultEntry],
    hide: &[&str],
    series_of: &dyn Fn(&ResultEntry) -> String,
) -> String {
    let unit = quantity_unit(&results[0].unit);
    Bars {
        title,
        unit,
        axis: &|shown: &str| format!("{} (median, 95% CI)", axis_unit(shown, unit)),
        hide,
        series_of,
    }
    .svg(results.iter().map(|r| in_unit(r, unit)).collect())
}

/// The unit results are drawn in: every time in ns (one axis for ns, µs and ms results), any
/// other unit as it is.
fn quantity_unit(unit: &str) -> &str {
    if is_time(unit) {
        "ns"
    } else {
        unit
    }
}

/// The median of `r` and its interval in `unit` (its own, or ns for a time).
fn in_unit<'a>(r: &'a ResultEntry, unit: &str) -> Reading<'a> {
    let f = if unit == "ns" {
        format::seconds(1.0, &r.unit).map_or(1.0, |s| s * 1e9)
    } else {
        1.0
    };
    Reading {
        value: r.summary.median * f,
        ci: r.interval().map(|(lo, hi)| (lo * f, hi * f)),
        ..Reading::median(r)
    }
}

/// Results by the unit they are drawn in (times together), units in document order: bars of
/// different units share no axis.
fn by_unit<'a>(results: &[&'a ResultEntry]) -> Vec<(String, Vec<&'a ResultEntry>)> {
    let mut groups: Vec<(String, Vec<&ResultEntry>)> = Vec::new();
    for r in results {
        let unit = quantity_unit(&r.unit);
        match groups.iter_mut().find(|(u, _)| u == unit) {
            Some((_, rs)) => rs.push(r),
            None => groups.push((unit.to_string(), vec![r])),
        }
    }
    groups
}

fn generic(family: &str, results: &[&ResultEntry]) -> Vec<Chart> {
    by_unit(results)
        .into_iter()
        .map(|(unit, rs)| {
            let (title, caption) = if is_time(&unit) {
                (
                    format!("{family}: median time per operation"),
                    format!(
                        "Every {family} result measured as a time: median with its 95% interval."
                    ),
                )
            } else {
                (
                    format!("{family}: median per operation, in {unit}"),
                    format!("Every {family} result in {unit}: median with its 95% interval."),
                )
            };
            let placement =
                |r: &ResultEntry| r.params.get_str(key::PLACEMENT).unwrap_or("").to_string();
            (caption, median_bars(&title, &rs, &[], &placement))
        })
        .collect()
}

/// What a `create` result creates, for colouring.
fn unit_kind(id: &str) -> &'static str {
    if id.contains("coroutine") || id.contains("async") {
        "coroutine / task"
    } else if id.contains("thread") {
        "thread"
    } else {
        "process"
    }
}

fn create(results: &[&ResultEntry]) -> Vec<Chart> {
    by_unit(results)
        .into_iter()
        .map(|(_, rs)| {
            (
                "Create + run empty + destroy, one unit: the longer the bar, the dearer a unit. \
                 The scale is logarithmic when costs span decades."
                    .to_string(),
                median_bars(
                    "Create costs: one unit's whole life",
                    &rs,
                    &["placement"],
                    &|r| unit_kind(&r.id).to_string(),
                ),
            )
        })
        .collect()
}

/// The working set a switch result touched (0 when it has no such param).
fn working_set_kib(r: &ResultEntry) -> f64 {
    r.params.get_f64(key::WORKING_SET_KIB).unwrap_or(0.0)
}

fn switch(results: &[&ResultEntry]) -> Vec<Chart> {
    let mut out = Vec::new();
    // By placement: the plain variants (no working set, default policy), one bar per placement.
    let flat: Vec<&ResultEntry> = results
        .iter()
        .copied()
        .filter(|r| working_set_kib(r) == 0.0 && r.params.get_str(key::SCHED) != Some("fifo"))
        .collect();
    for (_, rs) in by_unit(&flat) {
        out.push((
            "One switch between two units, by where they run: same CPU, two CPUs, or wherever \
             the scheduler puts them. A wake-up across CPUs can cost many times a switch on one."
                .to_string(),
            median_bars("Switch cost by placement", &rs, &[], &|r| {
                r.params.get_str(key::PLACEMENT).unwrap_or("?").to_string()
            }),
        ));
    }
    // By working set: the sweep's points of the experiments that have one (same CPU, default
    // policy), their 0 KiB point included.
    let has_sweep = |id: &str| {
        results
            .iter()
            .any(|r| r.id == id && working_set_kib(r) > 0.0)
    };
    let swept: Vec<&ResultEntry> = results
        .iter()
        .copied()
        .filter(|r| has_sweep(&r.id) && r.params.get_f64(key::WORKING_SET_KIB).is_some())
        .filter(|r| {
            r.params.get_str(key::PLACEMENT) == Some("same-cpu")
                && r.params.get_str(key::SCHED) != Some("fifo")
        })
        .collect();
    if !swept.is_empty() {
        out.push((
            "Switch cost as each unit touches more memory between switches: the indirect cost \
             of cold caches and TLB refills."
                .to_string(),
            lines(
                "Switch cost by working set",
                &swept,
                "working set per unit (KiB)",
                |r| r.params.get_f64(key::WORKING_SET_KIB),
                series_names(&swept, &[key::WORKING_SET_KIB]),
            ),
        ));
    }
    out
}

/// The name of a result's line: its id when the lines are of several ids, and the params that
/// tell the lines apart (not `hide`: those the x axis shows).
fn series_names<'a>(
    results: &[&ResultEntry],
    hide: &'a [&'a str],
) -> impl Fn(&ResultEntry) -> String + 'a {
    let keys = telling_keys(results, &shared_params(results), hide);
    let with_id = !one_id(results);
    move |r: &ResultEntry| {
        let params = label_with(r, &keys);
        match (with_id, params.is_empty()) {
            (true, true) => r.id.clone(),
            (true, false) => format!("{} {params}", r.id),
            (false, true) => "all".to_string(),
            (false, false) => params,
        }
    }
}

/// A line chart of `results` with x from `x_of`, one series per `series_of`, y = the median
/// (scaled to a readable unit) with its interval.
fn lines(
    title: &str,
    results: &[&ResultEntry],
    x_label: &str,
    x_of: impl Fn(&ResultEntry) -> Option<f64>,
    series_of: impl Fn(&ResultEntry) -> String,
) -> String {
    let medians: Vec<f64> = results.iter().map(|r| r.summary.median).collect();
    let (factor, unit) = display_unit(&medians, &results[0].unit, 30.0);
    let mut series: Vec<Series> = Vec::new();
    for r in results {
        let Some(x) = x_of(r) else { continue };
        let name = series_of(r);
        let point = Point {
            x,
            y: r.summary.median * factor,
            ci: r.interval().map(|(lo, hi)| (lo * factor, hi * factor)),
            tooltip: tooltip(r),
        };
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name,
                points: vec![point],
            }),
        }
    }
    LineChart {
        title: title.to_string(),
        subtitle: subtitle(&shared_params(results)),
        x_label: x_label.to_string(),
        y_label: format!("{unit} (median, 95% CI)"),
        series,
        ..Default::default()
    }
    .svg()
}

fn workload(results: &[&ResultEntry]) -> Vec<Chart> {
    let print: Vec<&ResultEntry> = results
        .iter()
        .copied()
        .filter(|r| r.id == id::WORKLOAD_PRINT && r.params.get_f64(key::COUNT).is_some())
        .collect();
    if print.is_empty() {
        return Vec::new();
    }
    // The seed's curve: the most common worker count and line size, all COUNTs.
    let key = |r: &ResultEntry| {
        (
            r.params.get_f64(key::WORKERS).unwrap_or(0.0) as u64,
            r.params.get_f64(key::LINE_BYTES).unwrap_or(0.0) as u64,
        )
    };
    let mut groups: BTreeMap<(u64, u64), Vec<&ResultEntry>> = BTreeMap::new();
    for r in &print {
        groups.entry(key(r)).or_default().push(r);
    }
    let mut out = Vec::new();
    for ((workers, line_bytes), rs) in groups {
        let counts: std::collections::BTreeSet<u64> = rs
            .iter()
            .filter_map(|r| r.params.get_f64(key::COUNT))
            .map(|c| c as u64)
            .collect();
        if counts.len() < 2 {
            continue;
        }
        out.push((
            format!(
                "{workers} workers each print COUNT lines of {line_bytes} bytes: where the process \
                 and thread lines cross, the cheaper model changes (seed S0.print)."
            ),
            lines(
                &format!("Print workload: {workers} workers x COUNT lines of {line_bytes} B"),
                &rs,
                "COUNT (lines per worker)",
                |r| r.params.get_f64(key::COUNT),
                |r| {
                    // The stdio writer (printf's locked stream) is a series of its own.
                    let writer = match r.params.get_str(key::WRITER) {
                        Some(w) if w != "write" => format!(" {w}"),
                        _ => String::new(),
                    };
                    format!(
                        "{} {}{writer}",
                        r.params.get_str(key::MODEL).unwrap_or("?"),
                        r.params.get_str(key::PLACEMENT).unwrap_or("")
                    )
                },
            ),
        ));
    }
    out
}

/// Throughput of one `io.read` configuration in MiB/s, from its bytes read and its time.
fn mib_per_s(r: &ResultEntry) -> Option<f64> {
    if r.unit == "MiB/s" {
        return Some(r.summary.median);
    }
    let mib = r.params.get_f64(key::FILES)? * r.params.get_f64(key::FILE_MIB)?;
    let seconds = crate::format::seconds(r.summary.median, &r.unit)?;
    (seconds > 0.0).then(|| mib / seconds)
}

/// Readers working at once: `threads` when given; else one for the sequential model and one
/// per file for the parallel ones (seed S4: "ten threads, one file each").
fn readers(r: &ResultEntry) -> Option<f64> {
    if let Some(t) = r.params.get_f64(key::THREADS) {
        return Some(t);
    }
    match r.params.get_str(key::MODEL) {
        Some("one-thread-sequential") => Some(1.0),
        _ => r.params.get_f64(key::FILES),
    }
}

fn io(results: &[&ResultEntry]) -> Vec<Chart> {
    let reads: Vec<&ResultEntry> = results
        .iter()
        .copied()
        .filter(|r| mib_per_s(r).is_some() && readers(r).is_some())
        .collect();
    if reads.is_empty() {
        return Vec::new();
    }
    let shared = shared_params(&reads);
    let io_series = series_names(&reads, &[key::FILES, key::THREADS]);
    let mut series: Vec<Series> = Vec::new();
    for r in &reads {
        let (Some(y), Some(x)) = (mib_per_s(r), readers(r)) else {
            continue;
        };
        // The interval of a time t maps to MiB/s as (bytes / t_high, bytes / t_low).
        let ci = {
            let f = y * r.summary.median;
            r.interval()
                .filter(|(lo, hi)| *hi > 0.0 && *lo > 0.0 && r.unit != "MiB/s")
                .map(|(lo, hi)| (f / hi, f / lo))
        };
        let name = io_series(r);
        let point = Point {
            x,
            y,
            ci,
            tooltip: format!("{:.1} MiB/s — {}", y, tooltip(r)),
        };
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name,
                points: vec![point],
            }),
        }
    }
    vec![(
        "Reading whole files: throughput against the number of readers (threads or processes). \
         Higher is better; a flat or falling line means more readers do not help (seed S4)."
            .to_string(),
        LineChart {
            title: "IO: MiB/s read vs readers".into(),
            subtitle: subtitle(&shared),
            x_label: "readers (threads or processes)".into(),
            y_label: "MiB/s".into(),
            series,
            ..Default::default()
        }
        .svg(),
    )]
}

/// The load generator's p99 latency (corrected for coordinated omission), in µs: the counter
/// `server/common.rs` records for every load-driven server result.
const P99_COUNTER: &str = "latency_p99_us";

/// A server chart's title and caption, by what its results measure.
fn server_text(results: &[&ResultEntry], unit: &str) -> (String, String) {
    let all = |id: &str| results.iter().all(|r| r.id == id);
    if all(id::SERVER_CRASH) {
        (
            "One worker crashes mid-run: requests lost".into(),
            "Requests lost when one worker of the server gets a real SIGSEGV mid-run (lower is \
             better): a process per worker loses what that worker held; a thread or an event \
             loop takes the whole server down."
                .into(),
        )
    } else if all(id::SERVER_STEVENS) {
        (
            "Stevens's servers: time per connection".into(),
            "Server time per connection by design, Stevens's protocol (a connection per request, \
             4000 bytes back; lower is better)."
                .into(),
        )
    } else if unit.ends_with("/s") {
        (
            "Servers by design: requests per second".into(),
            "Requests served per second by each server design (higher is better), per scenario."
                .into(),
        )
    } else if is_time(unit) {
        (
            "Servers by design: time per request".into(),
            "Server time per request by design (lower is better).".into(),
        )
    } else {
        (
            format!("Servers by design, in {unit}"),
            format!("Every server result in {unit}, by design."),
        )
    }
}

/// Requests/s in each window from the first request, one line per start of each server that
/// recorded its warm-up (the articles' systems: concbench's designs level within a second), one
/// chart per scenario: what the figures were taken after.
fn warmups(results: &[&ResultEntry]) -> Vec<Chart> {
    let mut out = Vec::new();
    for id in [id::SERVER_KEEPALIVE, id::SERVER_BLOCKING] {
        let mut series = Vec::new();
        for r in results.iter().filter(|r| r.id == id) {
            if r.params.get_str(key::RUNTIME).is_none() {
                continue;
            }
            let Some(server) = crate::s2::name(r) else {
                continue;
            };
            let starts = r.rounds.iter().filter_map(|round| round.warmup.as_ref());
            for (n, w) in starts.enumerate() {
                let steady = match w.steady_after_s {
                    Some(s) => format!("steady after {s:.0} s"),
                    None => w.not_steady.clone().unwrap_or_else(|| "not steady".into()),
                };
                let points = (w.rates.iter().enumerate())
                    .map(|(i, &rate)| Point {
                        x: (i + 1) as f64 * w.window_s,
                        y: rate,
                        ci: None,
                        tooltip: format!(
                            "{server}, start {}: {} req/s in the window ending at {} s \
                             ({steady})",
                            n + 1,
                            format::counter(Some(&rate)),
                            (i + 1) as f64 * w.window_s
                        ),
                    })
                    .collect();
                series.push(Series {
                    name: format!("{server}, start {} ({steady})", n + 1),
                    points,
                });
            }
        }
        if series.is_empty() {
            continue;
        }
        // No "10 ms" here: a time unit a chart names must be its axis's (tests/browser.rs).
        let scenario = if id == id::SERVER_BLOCKING {
            "with the blocking call"
        } else {
            "without blocking"
        };
        let chart = LineChart {
            title: format!("Warm-up {scenario}: requests/s from the first request"),
            subtitle: "each server start until its steady-state criterion held (its last point)"
                .into(),
            x_label: "time from the first request (s)".into(),
            y_label: "requests/s in the window".into(),
            series,
            ..Default::default()
        };
        out.push((
            format!(
                "The warm-up {scenario}: each server's requests per second, window by window from \
                 its first request, until it levelled (the criterion: the last windows within 10% \
                 of the ones before and of each other, the JIT idle, every connection answered; \
                 at most 60 s). Its rounds were measured after the last point."
            ),
            chart.svg(),
        ));
    }
    out
}

fn server(results: &[&ResultEntry]) -> Vec<Chart> {
    let design = |r: &ResultEntry| r.params.get_str(key::DESIGN).is_some();
    let by_id = |r: &ResultEntry| r.id.clone();
    let mut out = Vec::new();
    for (unit, rs) in by_unit(results) {
        let rs: Vec<&ResultEntry> = rs.into_iter().filter(|r| design(r)).collect();
        if rs.is_empty() {
            continue;
        }
        let (title, caption) = server_text(&rs, &unit);
        out.push((caption, median_bars(&title, &rs, &[], &by_id)));
    }
    // Tail latency, where the load generator reported it.
    let p99: Vec<Reading<'_>> = results
        .iter()
        .filter(|r| design(r))
        .filter_map(|r| {
            let v = *r.counters.get(P99_COUNTER)?;
            Some(Reading {
                entry: r,
                value: v,
                ci: None,
                tooltip: format!(
                    "{} {}: p99 {}",
                    r.id,
                    r.params.compact(),
                    format::value(v, "us")
                ),
            })
        })
        .collect();
    if !p99.is_empty() {
        out.push((
            "The slowest 1% of requests (99th percentile latency, corrected for coordinated \
             omission) by design: lower is better."
                .to_string(),
            Bars {
                title: "Servers by design: p99 latency",
                unit: "us",
                axis: &|unit: &str| format!("p99 latency ({unit})"),
                hide: &[],
                series_of: &by_id,
            }
            .svg(p99),
        ));
    }
    out.extend(warmups(results));
    out
}
