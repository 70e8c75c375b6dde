//! The summary the result document carries for every set of values (a result's rounds).

use crate::{location, median_interval};

/// Median, 95% interval of the median, min, max, MAD and mean of a set of values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub median: f64,
    /// `None` with fewer than [`crate::MIN_VALUES_95`] values: no finite 95% interval exists.
    pub ci95: Option<(f64, f64)>,
    pub min: f64,
    pub max: f64,
    pub mad: f64,
    pub mean: f64,
}

impl Stats {
    /// Half-width of the interval relative to the median (0.05 = +-5%). `None` without an
    /// interval or with a zero median.
    pub fn relative_ci_half_width(&self) -> Option<f64> {
        let (lo, hi) = self.ci95?;
        (self.median != 0.0).then(|| (hi - lo) / 2.0 / self.median.abs())
    }
}

/// Summarize a non-empty set of values.
///
/// Invariants: `min <= ci95.0 <= median <= ci95.1 <= max`, `mad >= 0`; an interval exactly when
/// there are at least [`crate::MIN_VALUES_95`] values.
pub fn summarize(xs: &[f64]) -> Stats {
    assert!(!xs.is_empty(), "summary of an empty sample");
    let s = location::sorted(xs);
    Stats {
        median: location::quantile(&s, 0.5),
        ci95: median_interval(xs, 0.95),
        min: s[0],
        max: s[s.len() - 1],
        mad: location::mad(xs),
        mean: location::mean(xs),
    }
}
