//! Small result documents for tests: synthetic samples, never measurements. Public so the tests
//! of every crate build results the one way real ones are summarised.

use crate::entry::{blank, summary};
use concbench_core::{Host, Params, ResultDoc, ResultEntry, Round};
use concbench_stats::summarize;

/// A result whose `samples` are the values of as many rounds (pass 0, 1, ...; unit ns,
/// same-cpu), summarised like a real one.
pub fn entry(id: &str, samples: &[f64]) -> ResultEntry {
    entry_with(
        id,
        "ns",
        Params::new().with("placement", "same-cpu"),
        samples,
    )
}

/// A result with the given unit, params (include `placement`) and one round per sample value.
pub fn entry_with(id: &str, unit: &str, params: Params, samples: &[f64]) -> ResultEntry {
    ResultEntry {
        title: "synthetic".into(),
        op: "synthetic".into(),
        iterations: 1,
        summary: summary(&summarize(samples)),
        samples: samples.to_vec(),
        rounds: samples
            .iter()
            .enumerate()
            .map(|(pass, &value)| Round {
                pass,
                value,
                baseline: None,
                samples: 1,
                iterations: 1,
                within_spread: 0.0,
                counters: Default::default(),
                interference: None,
                steal: None,
                wall_s: 0.0,
                prepared_s: 0.0,
                excluded: None,
                warmup: None,
            })
            .collect(),
        ..blank(id, unit, params)
    }
}

pub fn doc(results: Vec<ResultEntry>) -> ResultDoc {
    ResultDoc {
        results,
        ..ResultDoc::new(Host::default(), "2026-01-01T00:00:00Z".into())
    }
}

/// A document of one result `id` whose six rounds sit within 1% of `level` (a run of a steady
/// machine at that level): what the history's tests set side by side.
pub fn steady_run(id: &str, level: f64) -> ResultDoc {
    doc(vec![entry(
        id,
        &[0.99, 1.0, 1.01, 0.995, 1.005, 1.0].map(|x| x * level),
    )])
}
