//! Small result documents for unit tests: synthetic samples, never measurements.

use crate::entry::summary;
use concbench_core::{Host, Params, ResultDoc, ResultEntry};
use concbench_stats::summarize;

/// A result with `samples` (unit ns), summarised like a real one.
pub fn entry(id: &str, samples: &[f64]) -> ResultEntry {
    ResultEntry {
        id: id.into(),
        family: id.split('.').next().unwrap().into(),
        title: "synthetic".into(),
        op: "synthetic".into(),
        unit: "ns".into(),
        params: Params::new().with("placement", "same-cpu"),
        cpus: vec![],
        iterations: 1,
        summary: summary(&summarize(samples)),
        samples: samples.to_vec(),
        counters: Default::default(),
        overhead: None,
        warnings: vec![],
        info: Default::default(),
    }
}

pub fn doc(results: Vec<ResultEntry>) -> ResultDoc {
    ResultDoc {
        results,
        ..ResultDoc::new(Host::default(), "2026-01-01T00:00:00Z".into())
    }
}
