//! Synthetic result documents for the judges' tests: entries with given samples and params.

use concbench_core::{Params, ResultDoc, ResultEntry, Summary, Tool};
use concbench_stats::median;
use serde_json::Value;

/// Five samples spread +-1% around `v`: enough for a comparison, tight enough to be decisive.
pub fn around(v: f64) -> Vec<f64> {
    [0.99, 1.0, 1.01, 0.995, 1.005]
        .iter()
        .map(|f| f * v)
        .collect()
}

/// A result `id` with `params` and `samples` (ns per operation).
pub fn entry(id: &str, params: &[(&str, Value)], samples: Vec<f64>) -> ResultEntry {
    let mut p = Params::new();
    for (k, v) in params {
        p.set(k, v.clone());
    }
    let m = median(&samples);
    let (lo, hi) = samples
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    ResultEntry {
        id: id.to_string(),
        family: id.split('.').next().unwrap_or(id).to_string(),
        title: id.to_string(),
        op: "op".into(),
        unit: "ns".into(),
        params: p,
        cpus: vec![],
        iterations: 1000,
        summary: Summary {
            median: m,
            ci95: [lo, hi],
            min: lo,
            max: hi,
            mad: 0.0,
            mean: m,
        },
        samples,
        counters: Default::default(),
        overhead: None,
        warnings: vec![],
    }
}

/// A two-party switch result (`switch.pipe.*`) with its sweep params.
pub fn switch_entry(id: &str, placement: &str, sched: &str, kib: u64, ns: f64) -> ResultEntry {
    entry(
        id,
        &[
            ("placement", serde_json::json!(placement)),
            ("sched", serde_json::json!(sched)),
            ("working_set_kib", serde_json::json!(kib)),
        ],
        around(ns),
    )
}

/// The plain variant of a switch result: default policy, no working set.
pub fn plain_switch(id: &str, placement: &str, ns: f64) -> ResultEntry {
    switch_entry(id, placement, "other", 0, ns)
}

pub fn doc(results: Vec<ResultEntry>) -> ResultDoc {
    ResultDoc {
        schema: concbench_core::SCHEMA_ID.to_string(),
        tool: Tool {
            name: "concbench".into(),
            version: "test".into(),
        },
        host: Default::default(),
        started_at: "2026-01-01T00:00:00Z".into(),
        duration_s: 0.0,
        settings: Default::default(),
        results,
        skipped: vec![],
        failures: vec![],
        verdicts: vec![],
        warnings: vec![],
        interrupted: false,
    }
}
