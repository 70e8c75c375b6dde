//! Percentile-bootstrap confidence intervals, for a median and for a ratio of two medians.
//!
//! Written here rather than taken from a crate because it is twenty lines, must be deterministic
//! (explicit seed) and must work on the tiny samples (5 values) that `--quick` produces.

use crate::location::{median, quantile, sorted};

/// Percentile-bootstrap interval of the median at `level` (e.g. 0.95).
///
/// Invariants: `lo <= hi`; both lie within `[min(xs), max(xs)]`; a sample of identical values
/// gives a zero-width interval at that value; the same inputs and seed give the same interval.
pub fn bootstrap_median_ci(xs: &[f64], resamples: usize, level: f64, seed: u64) -> (f64, f64) {
    assert!(!xs.is_empty(), "bootstrap of an empty sample");
    if xs.len() == 1 {
        return (xs[0], xs[0]);
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut buf = vec![0.0; xs.len()];
    let mut medians: Vec<f64> = (0..resamples.max(1))
        .map(|_| {
            for slot in buf.iter_mut() {
                *slot = xs[rng.usize(..xs.len())];
            }
            median(&buf)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let alpha = (1.0 - level) / 2.0;
    (quantile(&medians, alpha), quantile(&medians, 1.0 - alpha))
}

/// Percentile-bootstrap interval of `median(b) / median(a)`: how many times B is A.
///
/// `a` and `b` are resampled independently. Invariants: `lo <= hi`; for samples of positive
/// values, swapping `a` and `b` gives (up to resampling) the reciprocal interval.
/// Returns `None` when a resampled median of `a` is zero (the ratio is undefined).
pub fn bootstrap_ratio_ci(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    level: f64,
    seed: u64,
) -> Option<(f64, f64)> {
    assert!(!a.is_empty() && !b.is_empty(), "ratio of an empty sample");
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut ra = vec![0.0; a.len()];
    let mut rb = vec![0.0; b.len()];
    let mut ratios = Vec::with_capacity(resamples.max(1));
    for _ in 0..resamples.max(1) {
        for slot in ra.iter_mut() {
            *slot = a[rng.usize(..a.len())];
        }
        for slot in rb.iter_mut() {
            *slot = b[rng.usize(..b.len())];
        }
        let ma = median(&ra);
        if ma == 0.0 {
            return None;
        }
        ratios.push(median(&rb) / ma);
    }
    let ratios = sorted(&ratios);
    let alpha = (1.0 - level) / 2.0;
    Some((quantile(&ratios, alpha), quantile(&ratios, 1.0 - alpha)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_sample_gives_point_interval() {
        assert_eq!(bootstrap_median_ci(&[5.0; 7], 500, 0.95, 1), (5.0, 5.0));
    }

    #[test]
    fn interval_brackets_a_known_median() {
        let xs: Vec<f64> = (1..=101).map(f64::from).collect();
        let (lo, hi) = bootstrap_median_ci(&xs, 2000, 0.95, 7);
        assert!(lo < 51.0 && 51.0 < hi, "({lo}, {hi})");
        // The median of 101 uniform ranks has a standard error near 5: the interval is not wild.
        assert!(hi - lo < 30.0 && hi - lo > 5.0, "({lo}, {hi})");
    }

    #[test]
    fn ratio_of_scaled_sample_is_the_scale() {
        let a: Vec<f64> = (1..=30).map(f64::from).collect();
        let b: Vec<f64> = a.iter().map(|x| x * 3.0).collect();
        let (lo, hi) = bootstrap_ratio_ci(&a, &b, 1000, 0.95, 3).unwrap();
        assert!(lo <= 3.0 + 1e-9 || hi >= 3.0 - 1e-9);
        assert!(lo > 1.5 && hi < 6.0, "({lo}, {hi})");
    }
}
