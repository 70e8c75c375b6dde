//! Which charts a document gets: one or more per family present, chosen by what the family
//! measures (switch cost by placement and working set, the print workload's crossover curve, IO
//! throughput against threads, server throughput and tail latency by design, creation costs),
//! and a plain bar chart of every result for families without a dedicated one.
//!
//! Only unit conversions happen here (scaling ns to µs, MiB read / seconds): the numbers are the
//! document's medians and intervals.

use super::chart::{Bar, BarChart, LineChart, Point, Series};
use crate::format;
use concbench_analysis::anatomy::anatomy;
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

/// Every chart for the document, family by family in document order.
pub fn figures(doc: &ResultDoc) -> Vec<Figure> {
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
                "anatomy" => super::anatomy::charts(&anatomy(doc)),
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

fn param_text(k: &str, v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("{k}={s}"),
        other => format!("{k}={other}"),
    }
}

/// Params with the same value in every result of a chart: said once, under its title.
fn shared_params(results: &[&ResultEntry]) -> Vec<(String, serde_json::Value)> {
    let Some(first) = results.first() else {
        return Vec::new();
    };
    first
        .params
        .0
        .iter()
        .filter(|(k, v)| results.iter().all(|r| r.params.get(k) == Some(v)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn subtitle(shared: &[(String, serde_json::Value)]) -> String {
    if shared.is_empty() {
        return String::new();
    }
    let all: Vec<String> = shared.iter().map(|(k, v)| param_text(k, v)).collect();
    format!("all: {}", all.join(" "))
}

/// The id (unless every bar has the same) and the params that tell the variants apart, without
/// the shared ones and those the chart shows otherwise (`hide`).
fn label(
    r: &ResultEntry,
    shared: &[(String, serde_json::Value)],
    one_id: bool,
    hide: &[&str],
) -> String {
    let params = r
        .params
        .0
        .iter()
        .filter(|(k, _)| !hide.contains(&k.as_str()) && !shared.iter().any(|(s, _)| s == *k))
        .map(|(k, v)| param_text(k, v));
    let parts: Vec<String> = (!one_id)
        .then(|| r.id.clone())
        .into_iter()
        .chain(params)
        .collect();
    if parts.is_empty() {
        r.id.clone()
    } else {
        parts.join(" ")
    }
}

fn one_id(results: &[&ResultEntry]) -> bool {
    results.iter().all(|r| r.id == results[0].id)
}

/// "µs per operation" for times, the unit itself otherwise (req/s, KiB, %).
fn axis_unit(unit: &str, original: &str) -> String {
    if format::seconds(1.0, original).is_some() {
        format!("{unit} per operation")
    } else {
        unit.to_string()
    }
}

fn tooltip(r: &ResultEntry) -> String {
    format!(
        "{} {}: median {} {} (95% CI), {} samples",
        r.id,
        r.params.compact(),
        format::value(r.summary.median, &r.unit),
        format::interval(r.summary.median, r.summary.ci95, &r.unit),
        r.samples.len()
    )
}

/// Bars of `results` (all in one unit) scaled to a readable unit, coloured by `series_of`.
fn bars(
    title: &str,
    results: &[&ResultEntry],
    hide: &[&str],
    series_of: impl Fn(&ResultEntry) -> String,
) -> String {
    let max = results.iter().map(|r| r.summary.median).fold(0.0, f64::max);
    let (factor, unit) = format::display_unit(max, &results[0].unit);
    let shared = shared_params(results);
    let single = one_id(results);
    let mut legend: Vec<String> = Vec::new();
    let bars = results
        .iter()
        .map(|r| {
            let s = series_of(r);
            let series = legend.iter().position(|l| *l == s).unwrap_or_else(|| {
                legend.push(s.clone());
                legend.len() - 1
            });
            Bar {
                label: label(r, &shared, single, hide),
                value: r.summary.median * factor,
                ci: r.interval().map(|(lo, hi)| (lo * factor, hi * factor)),
                series,
                tooltip: tooltip(r),
            }
        })
        .collect();
    BarChart {
        title: title.to_string(),
        subtitle: subtitle(&shared),
        axis_label: format!("{} (median, 95% CI)", axis_unit(&unit, &results[0].unit)),
        bars,
        legend,
    }
    .svg()
}

/// Results grouped by unit (one chart per unit: bars of different units share no axis).
fn by_unit<'a>(results: &[&'a ResultEntry]) -> BTreeMap<String, Vec<&'a ResultEntry>> {
    let mut m: BTreeMap<String, Vec<&ResultEntry>> = BTreeMap::new();
    for r in results {
        m.entry(r.unit.clone()).or_default().push(r);
    }
    m
}

fn generic(family: &str, results: &[&ResultEntry]) -> Vec<Chart> {
    by_unit(results)
        .into_iter()
        .map(|(unit, rs)| {
            (
                format!("Every {family} result in {unit}, median with its 95% interval."),
                bars(
                    &format!("{family}: median per operation ({unit})"),
                    &rs,
                    &[],
                    |r| r.params.get_str(key::PLACEMENT).unwrap_or("").to_string(),
                ),
            )
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
        .into_values()
        .map(|rs| {
            (
                "Create + run empty + destroy, one unit: the longer the bar, the dearer a unit. \
                 The scale is logarithmic when costs span decades."
                    .to_string(),
                bars(
                    "Create costs: one unit's whole life",
                    &rs,
                    &["placement"],
                    |r| unit_kind(&r.id).to_string(),
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
    for rs in by_unit(&flat).into_values() {
        out.push((
            "One switch between two units, by where they run: same CPU, two CPUs, or wherever \
             the scheduler puts them. A wake-up across CPUs can cost many times a switch on one."
                .to_string(),
            bars("Switch cost by placement", &rs, &[], |r| {
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
                |r| {
                    label(
                        r,
                        &shared_params(&swept),
                        one_id(&swept),
                        &["working_set_kib"],
                    )
                },
            ),
        ));
    }
    out
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
    let max = results.iter().map(|r| r.summary.median).fold(0.0, f64::max);
    let (factor, unit) = format::display_unit(max, &results[0].unit);
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
        let name = label(r, &shared, true, &["files", "threads"]);
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
        }
        .svg(),
    )]
}

fn server(results: &[&ResultEntry]) -> Vec<Chart> {
    let mut out = Vec::new();
    let design = |r: &ResultEntry| r.params.get_str(key::DESIGN).map(str::to_string);
    for (unit, rs) in by_unit(results) {
        let rs: Vec<&ResultEntry> = rs.into_iter().filter(|r| design(r).is_some()).collect();
        if rs.is_empty() {
            continue;
        }
        let caption = if unit.contains("/s") {
            "Requests served per second by each server design (higher is better), per scenario."
        } else {
            "Server cost per connection by design (lower is better)."
        };
        out.push((
            caption.to_string(),
            bars(&format!("Servers by design ({unit})"), &rs, &[], |r| {
                r.id.clone()
            }),
        ));
    }
    // Tail latency, where the load generator reported it.
    let p99: Vec<(&ResultEntry, String, f64)> = results
        .iter()
        .filter(|r| design(r).is_some())
        .filter_map(|r| {
            let (k, v) = r.counters.iter().find(|(k, _)| k.contains("p99"))?;
            Some((*r, k.clone(), *v))
        })
        .collect();
    if let Some((_, key, _)) = p99.first() {
        let unit = key.rsplit('_').next().unwrap_or("").to_string();
        let rs: Vec<&ResultEntry> = p99
            .iter()
            .filter(|(_, k, _)| k == key)
            .map(|(r, _, _)| *r)
            .collect();
        let shared = shared_params(&rs);
        let mut legend: Vec<String> = Vec::new();
        let bars: Vec<Bar> = p99
            .iter()
            .filter(|(_, k, _)| k == key)
            .map(|(r, _, v)| {
                let series = legend.iter().position(|l| *l == r.id).unwrap_or_else(|| {
                    legend.push(r.id.clone());
                    legend.len() - 1
                });
                Bar {
                    label: label(r, &shared, false, &[]),
                    value: *v,
                    ci: None,
                    series,
                    tooltip: format!(
                        "{} {}: p99 {} {unit}",
                        r.id,
                        r.params.compact(),
                        format::sig3(*v)
                    ),
                }
            })
            .collect();
        out.push((
            "The slowest 1% of requests (99th percentile latency) by design: lower is better."
                .to_string(),
            BarChart {
                title: "Servers by design: p99 latency".into(),
                subtitle: subtitle(&shared),
                axis_label: format!("p99 latency ({unit})"),
                bars,
                legend,
            }
            .svg(),
        ));
    }
    out
}
