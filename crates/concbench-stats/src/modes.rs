//! Separate modes among a result's values.
//!
//! On a VM a wake-up on another vCPU costs about 3 µs when that vCPU is awake and about 110 µs
//! when it has halted, and a run lands in one mode or the other: a median then hides the
//! question "which mode, how often?". A gap of at least [`MODE_GAP`] times between neighbouring
//! sorted values, with enough values on each side, separates two modes.

use crate::location::{median, sorted};

/// Neighbouring sorted values further apart than this factor start a new mode.
pub const MODE_GAP: f64 = 2.0;
/// A mode needs this share of the values (and at least two values).
pub const MODE_MIN_SHARE: f64 = 0.15;
/// Fewer values than this are never split.
pub const MODE_MIN_VALUES: usize = 5;

/// One mode: where its values sit and how many of them it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mode {
    pub median: f64,
    pub low: f64,
    pub high: f64,
    /// Share of all values in this mode (0..=1).
    pub share: f64,
}

/// The modes of `xs`, lowest first: one mode unless a gap of [`MODE_GAP`] separates groups that
/// each hold at least [`MODE_MIN_SHARE`] of the values (and two values).
///
/// Invariants: at least one mode for a non-empty sample; shares sum to 1; modes do not overlap;
/// values that are not positive are never split (a gap factor needs a positive scale).
pub fn modes(xs: &[f64]) -> Vec<Mode> {
    if xs.is_empty() {
        return Vec::new();
    }
    let s = sorted(xs);
    let n = s.len();
    let min_size = ((MODE_MIN_SHARE * n as f64).ceil() as usize).max(2);
    let mut cuts = Vec::new();
    if n >= MODE_MIN_VALUES && s[0] > 0.0 {
        let mut start = 0;
        for i in 1..n {
            let gap = s[i] / s[i - 1];
            if gap >= MODE_GAP && i - start >= min_size && n - i >= min_size {
                cuts.push(i);
                start = i;
            }
        }
    }
    let mut bounds = vec![0];
    bounds.extend(cuts);
    bounds.push(n);
    bounds
        .windows(2)
        .map(|w| {
            let group = &s[w[0]..w[1]];
            Mode {
                median: median(group),
                low: group[0],
                high: group[group.len() - 1],
                share: group.len() as f64 / n as f64,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wake_up_example_has_two_modes() {
        let m = modes(&[2.6, 4.2, 4.0, 116.0, 63.0]);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!((m[0].share - 0.6).abs() < 1e-12 && (m[1].share - 0.4).abs() < 1e-12);
        assert_eq!(m[0].median, 4.0);
    }

    #[test]
    fn a_tight_sample_has_one_mode_and_a_lone_outlier_is_not_a_mode() {
        assert_eq!(modes(&[10.0, 10.5, 11.0, 10.2, 10.8]).len(), 1);
        assert_eq!(modes(&[10.0, 10.5, 11.0, 10.2, 10.8, 10.1, 50.0]).len(), 1);
        assert_eq!(modes(&[1.0, 100.0, 1.0]).len(), 1);
    }
}
