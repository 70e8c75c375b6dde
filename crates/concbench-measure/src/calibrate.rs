//! Calibration: how many operations make one sample long enough to trust the clock.
//!
//! Separated from the harness loop so it can be tested with a simulated clock.

use anyhow::Result;
use std::time::Duration;

/// Upper bound on iterations per sample, so a broken (zero-cost) operation cannot loop forever.
pub const MAX_ITERATIONS: u64 = 1 << 40;

/// Find the iteration count whose sample lasts at least `target`, warming up on the way.
///
/// `run(n)` performs `n` operations and returns how long they took. The count grows
/// geometrically (at most 10x per step, never overshooting the target by much) until one call
/// lasts `target`; then the per-operation estimate from that call sets the count with a 5%
/// margin. Calls keep going at that count until `warmup` has been spent in total, so caches,
/// branch predictors, page tables and CPU frequency have settled before the first sample.
///
/// Invariant: the result is in `1..=MAX_ITERATIONS`.
pub fn calibrate(
    mut run: impl FnMut(u64) -> Result<Duration>,
    target: Duration,
    warmup: Duration,
) -> Result<u64> {
    let mut n: u64 = 1;
    let mut spent = Duration::ZERO;
    let per_op_ns = loop {
        let t = run(n)?;
        spent += t;
        if t >= target || n >= MAX_ITERATIONS {
            break t.as_nanos() as f64 / n as f64;
        }
        let factor = if t.is_zero() {
            10.0
        } else {
            (target.as_nanos() as f64 / t.as_nanos() as f64 * 1.2).clamp(2.0, 10.0)
        };
        n = ((n as f64 * factor).ceil() as u64).min(MAX_ITERATIONS);
    };
    let iterations = if per_op_ns <= 0.0 {
        MAX_ITERATIONS
    } else {
        ((target.as_nanos() as f64 * 1.05 / per_op_ns).ceil() as u64).clamp(1, MAX_ITERATIONS)
    };
    while spent < warmup {
        spent += run(iterations)?;
    }
    Ok(iterations)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A simulated operation costing `ns` per iteration.
    fn fake(ns: u64, calls: &mut Vec<u64>) -> impl FnMut(u64) -> Result<Duration> + '_ {
        move |n| {
            calls.push(n);
            Ok(Duration::from_nanos(n * ns))
        }
    }

    #[test]
    fn cheap_operation_reaches_the_target() {
        let mut calls = Vec::new();
        let n = calibrate(
            fake(100, &mut calls),
            Duration::from_millis(10),
            Duration::ZERO,
        )
        .unwrap();
        // 10 ms / 100 ns = 100,000, plus the 5% margin.
        assert_eq!(n, 105_000);
        assert!(calls.len() < 12, "{calls:?}");
    }

    #[test]
    fn slow_operation_needs_one_iteration() {
        let mut calls = Vec::new();
        let n = calibrate(
            fake(50_000_000, &mut calls),
            Duration::from_millis(10),
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn warmup_time_is_spent() {
        let mut calls = Vec::new();
        calibrate(
            fake(1_000, &mut calls),
            Duration::from_millis(1),
            Duration::from_millis(50),
        )
        .unwrap();
        let total_ns: u64 = calls.iter().map(|n| n * 1_000).sum();
        assert!(total_ns >= 50_000_000, "{total_ns}");
    }

    #[test]
    fn zero_cost_operation_is_capped() {
        let n = calibrate(
            |_| Ok(Duration::ZERO),
            Duration::from_millis(1),
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(n, MAX_ITERATIONS);
    }
}
