//! Estimates of quantities that cannot be negative — a time, a memory size, a ratio of positive
//! quantities — whose statistics reach below zero.
//!
//! Why: a difference (a hand-over minus the warm read it includes, a ratio of such differences,
//! an interval widened by drift on the linear scale) is a statistic that can come out below zero
//! when the quantity it estimates is small beside the noise; the quantity itself cannot. An
//! interval is a set of values the quantity may take; intersected with the values it *can* take
//! it keeps its coverage (when the true value is in the interval and cannot be negative, it is in
//! the part at or above zero), so a bounded interval is as honest as the unbounded one and never
//! shows an impossible number. Whether the quantity can be told from zero at all is said apart
//! ([`against_zero`]), so that nothing is decided on one that cannot.

/// Where an interval lies against zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgainstZero {
    /// Wholly above zero: the quantity can be told from zero.
    Above,
    /// It reaches zero (or below): not distinguishable from zero.
    Reaches,
    /// Wholly below zero: for a quantity that cannot be negative, the measurement cannot be right.
    Below,
}

/// Where the interval `[lo, hi]` lies against zero.
///
/// Invariant: `Above` exactly when `lo > 0`, `Below` exactly when `hi < 0`.
pub fn against_zero(lo: f64, hi: f64) -> AgainstZero {
    if lo > 0.0 {
        AgainstZero::Above
    } else if hi < 0.0 {
        AgainstZero::Below
    } else {
        AgainstZero::Reaches
    }
}

/// An estimate and its interval of a quantity that cannot be negative, bounded at zero.
///
/// Invariants: the returned estimate and both ends are `>= 0`; the estimate lies in the returned
/// interval when it lay in the given one; an interval wholly at or above zero (and an estimate at
/// or above zero) is returned unchanged; every value `>= 0` the given interval held, the returned
/// one holds (coverage is kept).
pub fn bound_at_zero(estimate: f64, ci: Option<(f64, f64)>) -> (f64, Option<(f64, f64)>) {
    (
        at_least_zero(estimate),
        ci.map(|(lo, hi)| (at_least_zero(lo), at_least_zero(hi))),
    )
}

/// `x`, or zero when it is below zero; a NaN stays a NaN (`f64::max` would make it a zero, a
/// figure nobody measured).
fn at_least_zero(x: f64) -> f64 {
    if x < 0.0 {
        0.0
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(against_zero(0.5, 2.0), AgainstZero::Above);
        assert_eq!(against_zero(0.0, 2.0), AgainstZero::Reaches);
        assert_eq!(against_zero(-0.3, 1.8), AgainstZero::Reaches);
        assert_eq!(against_zero(-2.0, -0.1), AgainstZero::Below);
        // S3.cold's "0.530x [-0.301, 1.84]": a ratio bounded at zero.
        assert_eq!(
            bound_at_zero(0.530, Some((-0.301, 1.84))),
            (0.530, Some((0.0, 1.84)))
        );
        assert_eq!(
            bound_at_zero(-0.2, Some((-1.0, 0.5))),
            (0.0, Some((0.0, 0.5)))
        );
        assert_eq!(
            bound_at_zero(2.0, Some((1.0, 3.0))),
            (2.0, Some((1.0, 3.0)))
        );
        assert_eq!(bound_at_zero(2.0, None), (2.0, None));
        assert!(
            bound_at_zero(f64::NAN, None).0.is_nan(),
            "no zero made of nothing"
        );
    }
}
