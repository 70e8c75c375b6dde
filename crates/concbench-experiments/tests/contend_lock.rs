//! `contend.lock` counts increments, not wake-ups: in smoke mode each sample of the 100-thread
//! variants is many increments (the old calibration settled on 1-2 per sample and timed thread
//! wake-ups), and the counters that say what an increment cost are present.

mod common;

use concbench_core::{Outcome, RawMeasurement};
use concbench_experiments::contend::lock::{ID, METRIC_HANDOVERS, PARAM_LOCK, PARAM_THREADS};

/// Increments each thread must add per sample at the least: far from the 1-2 per sample (for
/// 100 threads together) that made the old per-increment figure a wake-up time.
const MIN_PER_THREAD: u64 = 100;

/// Measure the `contend.lock` variant with these params, or `None` when it was skipped (a low
/// RLIMIT_NPROC), with the reason printed.
fn measure(threads: u64, lock: &str) -> Option<RawMeasurement> {
    let scratch = tempfile::tempdir().unwrap();
    let harness = common::smoke_harness(scratch.path());
    let mut exp = concbench_experiments::all()
        .into_iter()
        .find(|e| {
            let p = e.params();
            e.meta().id == ID
                && p.get_f64(PARAM_THREADS) == Some(threads as f64)
                && p.get_str(PARAM_LOCK) == Some(lock)
        })
        .unwrap_or_else(|| panic!("no {ID} variant with threads={threads} lock={lock}"));
    match harness.measure(exp.as_mut(), &mut |_| {}) {
        Outcome::Measured(raw) => Some(*raw),
        Outcome::Skipped(s) => {
            eprintln!("skipped {ID} threads={threads} lock={lock}: {}", s.reason);
            None
        }
        Outcome::Failed(f) => panic!("{ID} threads={threads} lock={lock} failed: {}", f.error),
    }
}

#[test]
fn hundred_threads_count_many_increments_per_sample_with_their_counters() {
    for lock in ["mutex", "atomic"] {
        let Some(raw) = measure(100, lock) else {
            continue;
        };
        assert!(
            raw.iterations >= 100 * MIN_PER_THREAD,
            "{lock}: {} increments per sample",
            raw.iterations
        );
        assert!(
            raw.values.iter().all(|v| v.is_finite() && *v > 0.0),
            "{lock}"
        );
        // Context switches per increment come from the harness, for every lock.
        assert!(!raw.usage_per_op.is_empty(), "{lock}");
        let handovers = raw.metrics.get(METRIC_HANDOVERS);
        if lock == "atomic" {
            assert!(handovers.is_none(), "an atomic has no lock to hand over");
        } else {
            let h = handovers.unwrap_or_else(|| panic!("{lock}: no {METRIC_HANDOVERS}"));
            // At least one hand-over per thread (each took the lock), at most one per increment.
            assert!(
                h.iter()
                    .all(|&r| (100.0 / raw.iterations as f64..=1.0).contains(&r)),
                "{lock}: {h:?}"
            );
        }
    }
}

#[test]
fn two_threads_count_many_increments_per_sample_too() {
    if let Some(raw) = measure(2, "mutex") {
        assert!(raw.iterations >= 2 * MIN_PER_THREAD, "{}", raw.iterations);
        assert!(raw.metrics.contains_key(METRIC_HANDOVERS));
    }
}
