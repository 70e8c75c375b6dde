//! The verdicts see the variants the registry really produces. Every variant of the registry gets
//! synthetic samples (no measuring); a claim judged on the `--quick` set must still be judged on
//! the full set, where extra variants (bigger files, more sweep points) are mixed in.

use concbench_analysis::{build_entry, synthetic, verdicts};
use concbench_core::{Experiment, RawMeasurement};
use std::collections::BTreeSet;

/// Samples that differ between variants, so ratios are neither 1 nor degenerate.
fn samples(index: usize) -> Vec<f64> {
    let base = 100.0 + 37.0 * index as f64;
    (0..6).map(|i| base * (1.0 + 0.01 * i as f64)).collect()
}

/// The claims judged on a document holding every variant that `keep` admits.
fn judged(keep: impl Fn(&dyn Experiment) -> bool) -> BTreeSet<String> {
    let results = concbench_experiments::all()
        .iter()
        .enumerate()
        .filter(|(_, exp)| keep(exp.as_ref()))
        .map(|(index, exp)| {
            let params = exp.params().with("placement", exp.placement().as_str());
            let raw = RawMeasurement::from_values(exp.meta().clone(), params, samples(index));
            build_entry(&raw)
        })
        .collect();
    verdicts::judge(&synthetic::doc(results))
        .into_iter()
        .map(|v| v.source)
        .collect()
}

#[test]
fn regression_a_full_run_loses_no_verdict_a_quick_run_has() {
    let quick = judged(|exp| exp.in_quick());
    let full = judged(|_| true);
    assert!(
        quick.contains("S4.one_thread"),
        "the io claim is judged from params and samples alone: {quick:?}"
    );
    let lost: Vec<_> = quick.difference(&full).collect();
    assert!(
        lost.is_empty(),
        "judged on --quick's variants but not on the full set: {lost:?}"
    );
}
