//! Result documents built by hand for the judges' tests.

use concbench_core::{Host, Params, ResultDoc, ResultEntry, Summary, Tool};
use serde_json::Value;
use std::collections::BTreeMap;

/// A result with these params, samples and counters (statistics computed from the samples).
pub fn entry(
    id: &str,
    params: &[(&str, Value)],
    samples: &[f64],
    counters: &[(&str, f64)],
) -> ResultEntry {
    let s = concbench_stats::summarize(samples);
    let mut p = Params::new();
    for (k, v) in params {
        p.set(k, v.clone());
    }
    ResultEntry {
        id: id.to_string(),
        family: id.split('.').next().unwrap_or_default().to_string(),
        title: id.to_string(),
        op: "op".to_string(),
        unit: "ns".to_string(),
        params: p,
        cpus: vec![],
        iterations: 1,
        summary: Summary {
            median: s.median,
            ci95: [s.ci95.0, s.ci95.1],
            min: s.min,
            max: s.max,
            mad: s.mad,
            mean: s.mean,
        },
        samples: samples.to_vec(),
        counters: counters
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect::<BTreeMap<_, _>>(),
        overhead: None,
        warnings: vec![],
    }
}

/// Five samples spread ±1% around `median`.
pub fn around(median: f64) -> Vec<f64> {
    [0.99, 0.995, 1.0, 1.005, 1.01]
        .iter()
        .map(|f| f * median)
        .collect()
}

pub fn doc(results: Vec<ResultEntry>) -> ResultDoc {
    ResultDoc {
        schema: concbench_core::SCHEMA_ID.to_string(),
        tool: Tool {
            name: "concbench".into(),
            version: "test".into(),
        },
        host: Host {
            logical_cpus: 2,
            ..Host::default()
        },
        started_at: String::new(),
        duration_s: 0.0,
        settings: BTreeMap::new(),
        results,
        skipped: vec![],
        failures: vec![],
        verdicts: vec![],
        warnings: vec![],
        interrupted: false,
    }
}
