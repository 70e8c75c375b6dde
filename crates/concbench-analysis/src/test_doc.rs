//! Small result documents for unit tests: synthetic samples, never measurements.

use concbench_core::{Host, Params, ResultDoc, ResultEntry, Summary, Tool, SCHEMA_ID};
use concbench_stats::summarize;

/// A result with `samples` (unit ns), summarised like a real one.
pub fn entry(id: &str, samples: &[f64]) -> ResultEntry {
    let s = summarize(samples);
    ResultEntry {
        id: id.into(),
        family: id.split('.').next().unwrap().into(),
        title: "synthetic".into(),
        op: "synthetic".into(),
        unit: "ns".into(),
        params: Params::new().with("placement", "same-cpu"),
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
        counters: Default::default(),
        overhead: None,
        warnings: vec![],
    }
}

pub fn doc(results: Vec<ResultEntry>) -> ResultDoc {
    ResultDoc {
        schema: SCHEMA_ID.into(),
        tool: Tool {
            name: "concbench".into(),
            version: "test".into(),
        },
        host: Host::default(),
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
