//! The crossover sweep checked against advise's model, on synthetic documents (known inputs,
//! never measurements): the predictions follow advise's bill and Little's law, the errors are
//! measured / predicted, and the crossings sit where the ratios say.

use concbench_analysis::sweep::{analyse, check, SWEEP_ID};
use concbench_analysis::synthetic::{doc, sweep_costs as costs, swept};
use concbench_core::crossover::{Crossover, Pair};

/// The pair whose challenger is `label`.
fn pair_of<'a>(c: &'a Crossover, label: &str) -> &'a Pair {
    c.pairs.iter().find(|p| p.challenger == label).unwrap()
}

/// Where ln(y) reaches 0 between (x0, y0) and (x1, y1), linear in ln(x).
fn log_zero(x0: f64, y0: f64, x1: f64, y1: f64) -> f64 {
    let (a, b) = (y0.ln(), y1.ln());
    (x0.ln() + a / (a - b) * (x1.ln() - x0.ln())).exp()
}

#[test]
fn each_prediction_is_advises_bill_under_littles_law() {
    let c = analyse(&swept()).expect("a sweep");
    assert!(c.missing.is_empty(), "{:?}", c.missing);
    assert_eq!(c.io_cpu_us, Some(10.0));
    let at = |label: &str, block: f64| {
        c.points
            .iter()
            .find(|p| p.label == label && p.block_us == block)
            .unwrap()
    };
    // Pool, 10 ms: Little's law, 8 / (10 ms + 110 µs) = 791.3 req/s.
    let pool = at("thread pool of 8", 10_000.0);
    let little = 8.0 / 10_110e-6;
    assert!((pool.predicted_rps.unwrap() - little).abs() < 1e-6);
    assert_eq!(pool.limited_by.as_deref(), Some("concurrency"));
    assert!((pool.error.unwrap() - 700.0 / little).abs() < 1e-9);
    // Pool, no blocking: the CPU, 1 / (110 µs + a 2 µs hand-off) = 8,929 req/s.
    let cpu_bound = at("thread pool of 8", 0.0);
    assert!((cpu_bound.predicted_rps.unwrap() - 1.0 / 112e-6).abs() < 1e-6);
    assert_eq!(cpu_bound.limited_by.as_deref(), Some("cpu"));
    // Coroutines, 10 ms: the CPU, 1 / (110 µs + 5 + 2 + 0.1 + 0.05 µs).
    let co = at("coroutines (tokio)", 10_000.0);
    assert!((co.predicted_rps.unwrap() - 1.0 / 117.15e-6).abs() < 1e-6);
    // Six rounds: every point has its interval, and the error's is the interval over the
    // prediction.
    let [lo, hi] = pool.measured_ci.unwrap();
    let [elo, ehi] = pool.error_ci.unwrap();
    assert!((elo - lo / little).abs() < 1e-9 && (ehi - hi / little).abs() < 1e-9);
}

#[test]
fn the_thread_pool_falls_behind_where_its_ratios_upper_end_reaches_one() {
    let c = analyse(&swept()).unwrap();
    let pair = pair_of(&c, "thread pool of 8");
    assert_eq!(pair.reference, "coroutines (tokio)");
    let behind: Vec<bool> = pair.ratios.iter().map(|r| r.behind).collect();
    assert_eq!(behind, [false, false, true, true]);
    assert_eq!(pair.measured.len(), 1);
    let m = &pair.measured[0];
    assert_eq!(m.direction, "falls behind");
    assert_eq!((m.low_us, m.high_us), (100.0, 1000.0));
    let hi = |i: usize| pair.ratios[i].measured_ci.unwrap()[1];
    assert!((m.at_us - log_zero(100.0, hi(1), 1000.0, hi(2))).abs() < 1e-6);
    assert!(!m.bound);
    // The model has the pool ahead (a 2 µs hand-off against a 5 µs coroutine) until Little's
    // law binds between 0.1 and 1 ms; judged with the same resolution.
    assert_eq!(pair.predicted.len(), 1, "{:?}", pair.predicted);
    let p = &pair.predicted[0];
    assert_eq!((p.direction.as_str(), p.low_us), ("falls behind", 100.0));
    // The pair's resolution is the median of its points'.
    let resolutions: Vec<f64> = pair.ratios.iter().filter_map(|r| r.resolution).collect();
    let k = concbench_stats::median(&resolutions);
    assert_eq!(pair.resolution, Some(k));
    let upper = |i: usize| pair.ratios[i].predicted.unwrap() * k;
    assert!((p.at_us - log_zero(100.0, upper(1), 1000.0, upper(2))).abs() < 1e-6);
    assert!((pair.error.unwrap() - m.at_us / p.at_us).abs() < 1e-9);
    assert!(pair.summary.contains("falls behind"), "{}", pair.summary);
}

#[test]
fn the_process_pool_catches_up_with_the_threads_once_both_run_out_of_workers() {
    let c = analyse(&swept()).unwrap();
    let pair = pair_of(&c, "process pool of 8");
    assert_eq!(pair.reference, "thread pool of 8");
    let dirs = |cs: &[concbench_core::crossover::Crossing]| -> Vec<String> {
        cs.iter().map(|c| c.direction.clone()).collect()
    };
    assert_eq!(dirs(&pair.measured), ["catches up"]);
    assert_eq!(dirs(&pair.predicted), ["catches up"]);
    // Both limited by their eight workers from 1 ms: the model has them even there.
    assert_eq!(pair.ratios[2].predicted, Some(1.0));
    assert_eq!(
        (pair.predicted[0].low_us, pair.predicted[0].high_us),
        (100.0, 1000.0)
    );
    assert!(pair.error.is_some());
}

#[test]
fn the_error_summary_is_over_every_levelled_point() {
    let c = analyse(&swept()).unwrap();
    let e = c.error.unwrap();
    assert_eq!(e.points, 12);
    assert!(e.worst_factor >= e.median_factor && e.median_factor >= 1.0);
    let ratios: Vec<f64> = c.points.iter().map(|p| p.error.unwrap()).collect();
    assert!((e.median_ratio - concbench_stats::median(&ratios)).abs() < 1e-12);
}

#[test]
fn without_unit_costs_the_sweep_is_shown_and_says_what_is_missing() {
    let mut d = swept();
    d.results.retain(|r| r.id == SWEEP_ID);
    let c = analyse(&d).unwrap();
    assert!(c.points.iter().all(|p| p.predicted_rps.is_none()));
    assert!(c.error.is_none());
    assert!(
        c.missing.iter().any(|m| m.contains("I/O")),
        "{:?}",
        c.missing
    );
    assert!(c.pairs.iter().all(|p| p.predicted.is_empty()));
}

#[test]
fn a_stored_check_is_read_back_and_a_document_without_a_sweep_has_none() {
    let mut d = swept();
    assert_eq!(check(&d), analyse(&d));
    let mut stored = analyse(&d).unwrap();
    stored.model = vec!["as stored".into()];
    d.crossover = Some(stored.clone());
    assert_eq!(check(&d), Some(stored));
    assert_eq!(analyse(&doc(costs())), None);
}
