//! Synthetic results for the judges' tests, built on [`crate::synthetic`].

use concbench_core::{Params, ResultEntry};
use serde_json::Value;

pub use crate::synthetic::doc;

/// Five samples spread +-1% around `v`: enough for a comparison, tight enough to be decisive.
pub fn around(v: f64) -> Vec<f64> {
    [0.99, 1.0, 1.01, 0.995, 1.005]
        .iter()
        .map(|f| f * v)
        .collect()
}

/// A result `id` with exactly `params` and `samples` (ns per operation).
pub fn entry(id: &str, params: &[(&str, Value)], samples: Vec<f64>) -> ResultEntry {
    let mut p = Params::new();
    for (k, v) in params {
        p.set(k, v.clone());
    }
    crate::synthetic::entry_with(id, "ns", p, &samples)
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

/// `e` with these counters (experiment metrics such as `pool_survived`).
pub fn with_counters(mut e: ResultEntry, counters: &[(&str, f64)]) -> ResultEntry {
    e.counters
        .extend(counters.iter().map(|(k, v)| (k.to_string(), *v)));
    e
}
