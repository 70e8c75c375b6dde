//! `report --format bencher`: the Bencher Metric Format (BMF), the JSON `bencher run --adapter
//! json` reads, so a team can keep concbench's history in a Bencher project and let its
//! thresholds alert on it.
//!
//! One benchmark per result, named `id/key=value/...` (the same names as the benchstat export),
//! with one measure: times as `latency` in nanoseconds and requests per second as `throughput`
//! (Bencher's built-in measures), every other unit as a measure of its own (`kib`,
//! `mib-per-s`). `value` is the result's median; `lower_value` and `upper_value` its 95%
//! interval when it has one.

use crate::Exporter;
use concbench_core::{human::seconds, ResultDoc, ResultEntry};
use serde_json::{json, Map, Value};

pub struct Bencher;

/// The benchmark name both exports give a result: its id, then each param as `/key=value`
/// (whitespace, which neither format allows in a name, as `_`).
pub fn benchmark_name(e: &ResultEntry) -> String {
    let mut name = e.id.clone();
    for (k, v) in &e.params.0 {
        let v = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        name.push_str(&format!("/{k}={v}"));
    }
    name.split_whitespace().collect::<Vec<_>>().join("_")
}

/// The BMF measure of `unit` and the factor that converts a value into it.
pub fn measure(unit: &str) -> (String, f64) {
    if let Some(s) = seconds(1.0, unit) {
        return ("latency".into(), s * 1e9);
    }
    if unit == "req/s" {
        return ("throughput".into(), 1.0);
    }
    let slug: String = unit
        .replace('/', "-per-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    (slug, 1.0)
}

impl Exporter for Bencher {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        let mut out = Map::new();
        // A figure that is not a number has no place in a metric (`value` must be one).
        for e in doc.results.iter().filter(|e| e.summary.median.is_finite()) {
            let (slug, factor) = measure(&e.unit);
            let mut metric = Map::new();
            metric.insert("value".into(), json!(e.summary.median * factor));
            if let Some([lo, hi]) = e.summary.ci95.filter(|c| c.iter().all(|v| v.is_finite())) {
                metric.insert("lower_value".into(), json!(lo * factor));
                metric.insert("upper_value".into(), json!(hi * factor));
            }
            let mut measures = Map::new();
            measures.insert(slug, Value::Object(metric));
            out.insert(benchmark_name(e), Value::Object(measures));
        }
        Ok(serde_json::to_string_pretty(&Value::Object(out))? + "\n")
    }
}
