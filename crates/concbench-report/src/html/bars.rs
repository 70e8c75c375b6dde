//! Results as bars: which params a chart states once (its subtitle), which a group of bars of one
//! id states once (the group's heading), and which tell bars apart (their labels) — so that a
//! label carries exactly what distinguishes its bar and is never cut — and the unit the axis is
//! drawn in.

use super::chart::{Bar, BarChart};
use crate::format;
use concbench_core::ResultEntry;

pub type Param = (String, serde_json::Value);

pub fn param_text(k: &str, v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("{k}={s}"),
        other => format!("{k}={other}"),
    }
}

/// Params with the same value in every one of `results`: said once, above them.
pub fn shared_params(results: &[&ResultEntry]) -> Vec<Param> {
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

/// "all: k=v k=v" under a chart's title, or nothing.
pub fn subtitle(shared: &[Param]) -> String {
    if shared.is_empty() {
        return String::new();
    }
    format!("all: {}", params_text(shared))
}

fn params_text(params: &[Param]) -> String {
    let all: Vec<String> = params.iter().map(|(k, v)| param_text(k, v)).collect();
    all.join(" ")
}

/// The id (unless `one_id`: every result has the same) and the params of `r` that are neither
/// in `shared` nor in `hide` (those the chart shows otherwise, e.g. on its x axis).
pub fn label(r: &ResultEntry, shared: &[Param], one_id: bool, hide: &[&str]) -> String {
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

/// The params that tell `results` apart: every key but `hide` and those in `shared`, less each
/// one whose removal still leaves every distinct result distinct — tried first, the keys only
/// some results have (a cross-CPU pair's class beside its placement), then in key order.
pub fn telling_keys(results: &[&ResultEntry], shared: &[Param], hide: &[&str]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for r in results {
        for k in r.params.0.keys() {
            let kept = !hide.contains(&k.as_str()) && !shared.iter().any(|(s, _)| s == k);
            if kept && !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    let partial = |k: &String| results.iter().any(|r| r.params.get(k).is_none());
    keys.sort_by_key(|k| (!partial(k), k.clone()));
    let distinct = |keys: &[String]| {
        let mut seen: Vec<String> = results.iter().map(|r| label_with(r, keys)).collect();
        seen.sort();
        seen.dedup();
        seen.len()
    };
    let needed = distinct(&keys);
    let mut kept = keys.clone();
    for k in &keys {
        let without: Vec<String> = kept.iter().filter(|x| *x != k).cloned().collect();
        if distinct(&without) == needed {
            kept = without;
        }
    }
    kept.sort();
    kept
}

/// `r`'s params among `keys`, as `k=v k=v` in key order.
pub fn label_with(r: &ResultEntry, keys: &[String]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .filter_map(|k| r.params.get(k).map(|v| param_text(k, v)))
        .collect();
    parts.join(" ")
}

pub fn one_id(results: &[&ResultEntry]) -> bool {
    results.iter().all(|r| r.id == results[0].id)
}

/// "median 2.60 µs [2.52, 2.68] (95% CI), 6 samples" with the result's id and params.
pub fn tooltip(r: &ResultEntry) -> String {
    format!(
        "{} {}: median {} {} (95% CI), {} samples",
        r.id,
        r.params.compact(),
        format::value(r.summary.median, &r.unit),
        format::interval(r.summary.median, r.summary.ci95, &r.unit),
        r.samples.len()
    )
}

/// The unit an axis over `values` (in `unit`) is drawn in, as `(factor, unit)`: on a log scale
/// (values spanning more than `log_ratio`, as `chart::Scale` decides) the unit of their
/// geometric middle, so that ticks read 0.1 .. 1000 µs rather than 0.0001 .. 1 ms; on a linear
/// one the unit of the largest.
pub fn display_unit(values: &[f64], unit: &str, log_ratio: f64) -> (f64, String) {
    let positive: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let max = values.iter().copied().fold(0.0, f64::max);
    let min = positive.iter().copied().fold(f64::INFINITY, f64::min);
    let all_positive = positive.len() == values.len() && !values.is_empty();
    let typical = if all_positive && max / min > log_ratio {
        (min * max).sqrt()
    } else {
        max
    };
    let (factor, shown) = format::display_unit(typical, unit);
    (factor, shown)
}

/// "µs per operation" for times, the unit itself otherwise (req/s, KiB, %).
pub fn axis_unit(unit: &str, original: &str) -> String {
    if format::seconds(1.0, original).is_some() {
        format!("{unit} per operation")
    } else {
        unit.to_string()
    }
}

/// What a bar shows of a result: its value and interval in the result's unit (or the unit the
/// chart is given), and the hover text.
pub struct Reading<'a> {
    pub entry: &'a ResultEntry,
    pub value: f64,
    pub ci: Option<(f64, f64)>,
    pub tooltip: String,
}

impl<'a> Reading<'a> {
    /// The result's median and interval.
    pub fn median(entry: &'a ResultEntry) -> Self {
        Reading {
            entry,
            value: entry.summary.median,
            ci: entry.interval(),
            tooltip: tooltip(entry),
        }
    }
}

/// A bar chart of `readings` (all in `unit`).
pub struct Bars<'a> {
    pub title: &'a str,
    pub unit: &'a str,
    /// The axis label, given the unit the axis is drawn in.
    pub axis: &'a dyn Fn(&str) -> String,
    /// Params the chart shows otherwise: left out of labels.
    pub hide: &'a [&'a str],
    /// The colour (legend entry) of a result.
    pub series_of: &'a dyn Fn(&ResultEntry) -> String,
}

impl Bars<'_> {
    /// The SVG. Results of one id stand together: with several ids, every id with more than one
    /// bar gets a heading (the id and what its bars share) and its bars are labelled by what
    /// differs between them.
    pub fn svg(&self, readings: Vec<Reading<'_>>) -> String {
        let readings = grouped_by_id(readings);
        let entries: Vec<&ResultEntry> = readings.iter().map(|r| r.entry).collect();
        let shared = shared_params(&entries);
        let single = one_id(&entries);
        let values: Vec<f64> = readings
            .iter()
            .flat_map(|r| [Some(r.value), r.ci.map(|c| c.0), r.ci.map(|c| c.1)])
            .flatten()
            .collect();
        let (factor, unit) = display_unit(&values, self.unit, 50.0);
        let mut legend: Vec<String> = Vec::new();
        let bars = readings
            .iter()
            .map(|reading| {
                let r = reading.entry;
                let s = (self.series_of)(r);
                let series = legend.iter().position(|l| *l == s).unwrap_or_else(|| {
                    legend.push(s.clone());
                    legend.len() - 1
                });
                let (group, label) = if single {
                    (None, self.label_among(r, &entries, &shared))
                } else {
                    self.group_and_label(r, &entries, &shared)
                };
                Bar {
                    label,
                    value: reading.value * factor,
                    ci: reading.ci.map(|(lo, hi)| (lo * factor, hi * factor)),
                    series,
                    tooltip: reading.tooltip.clone(),
                    group,
                }
            })
            .collect();
        if legend.len() == 1 {
            legend.clear();
        }
        BarChart {
            title: self.title.to_string(),
            subtitle: subtitle(&shared),
            axis_label: (self.axis)(&unit),
            bars,
            legend,
        }
        .svg()
    }

    /// The heading of `r`'s group (`None` when its id has one bar here) and its label.
    fn group_and_label(
        &self,
        r: &ResultEntry,
        all: &[&ResultEntry],
        shared: &[Param],
    ) -> (Option<String>, String) {
        let same_id: Vec<&ResultEntry> = all.iter().copied().filter(|o| o.id == r.id).collect();
        if same_id.len() < 2 {
            return (None, label(r, shared, false, self.hide));
        }
        let mut in_group = shared_params(&same_id);
        let own: Vec<Param> = in_group
            .iter()
            .filter(|(k, _)| {
                !shared.iter().any(|(s, _)| s == k) && !self.hide.contains(&k.as_str())
            })
            .cloned()
            .collect();
        let heading = if own.is_empty() {
            r.id.clone()
        } else {
            format!("{} · {}", r.id, params_text(&own))
        };
        in_group.extend(shared.iter().cloned());
        (Some(heading), self.label_among(r, &same_id, &in_group))
    }

    /// What tells `r` apart from the other `results` (which state `shared` once above them);
    /// when only hidden params do, every param not shared.
    fn label_among(&self, r: &ResultEntry, results: &[&ResultEntry], shared: &[Param]) -> String {
        let text = label_with(r, &telling_keys(results, shared, self.hide));
        if text.is_empty() {
            label(r, shared, true, &[])
        } else {
            text
        }
    }
}

/// `readings` with each id's results together, ids in order of first appearance.
fn grouped_by_id(readings: Vec<Reading<'_>>) -> Vec<Reading<'_>> {
    let mut ids: Vec<String> = Vec::new();
    for r in &readings {
        if !ids.contains(&r.entry.id) {
            ids.push(r.entry.id.clone());
        }
    }
    let mut readings = readings;
    readings.sort_by_key(|r| ids.iter().position(|i| *i == r.entry.id));
    readings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(params: &[(&str, &str)]) -> ResultEntry {
        let mut p = concbench_core::Params::new();
        for (k, v) in params {
            p.set(k, *v);
        }
        concbench_analysis::synthetic::entry_with("share.pipe.process", "ns", p, &[1.0; 6])
    }

    #[test]
    fn labels_keep_only_the_params_that_tell_bars_apart() {
        let rs = [
            entry(&[("bytes", "64"), ("placement", "same-cpu")]),
            entry(&[("bytes", "4096"), ("placement", "same-cpu")]),
            entry(&[
                ("bytes", "64"),
                ("placement", "cross-cpu"),
                ("pair_class", "same-llc"),
                ("numa_distance", "10"),
            ]),
        ];
        let refs: Vec<&ResultEntry> = rs.iter().collect();
        assert_eq!(telling_keys(&refs, &[], &[]), ["bytes", "placement"]);
        assert_eq!(
            label_with(&rs[2], &telling_keys(&refs, &[], &[])),
            "bytes=64 placement=cross-cpu"
        );
        // Nothing but a hidden param differs: no key tells them apart.
        assert!(telling_keys(&refs[..1], &[], &[]).is_empty());
    }

    #[test]
    fn a_log_axis_takes_the_unit_of_its_middle() {
        // 173 ns .. 1.89 ms in ns: the middle (18 µs) is in µs.
        let (f, u) = display_unit(&[173.0, 1.89e6], "ns", 50.0);
        assert_eq!(u, "µs");
        assert!((f - 1e-3).abs() < 1e-12);
        // A narrow range: the unit of the largest.
        assert_eq!(display_unit(&[900.0, 1900.0], "ns", 50.0).1, "µs");
        assert_eq!(display_unit(&[12.0, 40.0], "us", 50.0).1, "µs");
        assert_eq!(display_unit(&[12.0, 40.0], "KiB", 50.0).1, "KiB");
    }
}
