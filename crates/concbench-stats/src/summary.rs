//! The summary the result document carries for every sample set.

use crate::{bootstrap_median_ci, location, DEFAULT_RESAMPLES, DEFAULT_SEED};

/// Median, bootstrap 95% CI of the median, min, max, MAD and mean of a sample set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub median: f64,
    pub ci95: (f64, f64),
    pub min: f64,
    pub max: f64,
    pub mad: f64,
    pub mean: f64,
}

impl Stats {
    /// Half-width of the CI relative to the median (0.05 = +-5%). Infinite for a zero median.
    pub fn relative_ci_half_width(&self) -> f64 {
        if self.median == 0.0 {
            return f64::INFINITY;
        }
        (self.ci95.1 - self.ci95.0) / 2.0 / self.median.abs()
    }
}

/// Summarize a non-empty sample set.
///
/// Invariants: `min <= ci95.0 <= ci95.1 <= max`, `min <= median <= max`, `mad >= 0`.
pub fn summarize(xs: &[f64]) -> Stats {
    assert!(!xs.is_empty(), "summary of an empty sample");
    let s = location::sorted(xs);
    Stats {
        median: location::quantile(&s, 0.5),
        ci95: bootstrap_median_ci(xs, DEFAULT_RESAMPLES, 0.95, DEFAULT_SEED),
        min: s[0],
        max: s[s.len() - 1],
        mad: location::mad(xs),
        mean: location::mean(xs),
    }
}
