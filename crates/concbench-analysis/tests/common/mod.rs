//! Helpers the verdict tests share: synthetic rounds (never measurements) and the verdict on one
//! claim.

#![allow(dead_code)] // each test file uses its own subset

use concbench_analysis::synthetic::entry_with;
use concbench_analysis::verdicts::judge;
use concbench_core::{Params, ResultDoc, ResultEntry, Verdict, VerdictKind};
use serde_json::{json, Value};

/// Values of `rounds` rounds spread +-1% around `v` (deterministic).
pub fn around(v: f64, rounds: usize) -> Vec<f64> {
    (0..rounds)
        .map(|i| v * (1.0 + 0.01 * ((i * 7 % 5) as f64 - 2.0) / 2.0))
        .collect()
}

/// Values spread up to +-`spread` around `v`, alternating (a noisy result).
pub fn noisy(v: f64, rounds: usize, spread: f64) -> Vec<f64> {
    (0..rounds)
        .map(|i| {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            v * (1.0 + sign * spread * (i % 3 + 1) as f64 / 3.0)
        })
        .collect()
}

pub fn result(id: &str, unit: &str, params: &[(&str, Value)], values: Vec<f64>) -> ResultEntry {
    let mut p = Params::new();
    for (k, v) in params {
        p.set(k, v.clone());
    }
    if p.get("placement").is_none() {
        p.set("placement", "same-cpu");
    }
    entry_with(id, unit, p, &values)
}

/// `e` with `counter` set in every round to the given values.
pub fn counter(mut e: ResultEntry, name: &str, values: &[f64]) -> ResultEntry {
    for (r, v) in e.rounds.iter_mut().zip(values) {
        r.counters.insert(name.into(), *v);
    }
    e
}

pub fn verdict(d: &ResultDoc, source: &str) -> Verdict {
    judge(d)
        .into_iter()
        .find(|v| v.source == source)
        .unwrap_or_else(|| panic!("{source} not judged"))
}

/// The check of `v` whose condition contains `part`.
pub fn check<'a>(v: &'a Verdict, part: &str) -> &'a concbench_core::Check {
    v.checks
        .iter()
        .find(|c| c.condition.contains(part))
        .unwrap_or_else(|| panic!("{}: no check {part:?} in {:?}", v.source, v.checks))
}

pub fn decision(d: &ResultDoc, source: &str) -> VerdictKind {
    verdict(d, source).verdict
}

pub fn pipe(id: &str, values: Vec<f64>) -> ResultEntry {
    result(
        id,
        "ns",
        &[("sched", json!("other")), ("working_set_kib", json!(0))],
        values,
    )
}
