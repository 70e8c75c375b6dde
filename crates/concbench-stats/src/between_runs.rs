//! B/A between two runs with the variation between runs counted, not only the rounds'.
//!
//! Why: [`crate::shift_ratio`] compares the rounds of run A with the rounds of run B; its
//! interval says how precisely each run measured *itself*. Two runs of one build on one machine
//! differ by more than that — the machine's speed, its neighbours and its idle states move
//! between runs (on the development VM an A/A pair of quick runs read +33% to +43% on every
//! cross-CPU hand-over) — so a gate that holds B to A's rounds alone calls that difference a
//! change. Each run's median carries a run-level error of standard deviation τ (on logarithms);
//! the difference of two runs' medians carries √2 τ. Each end of the rounds' interval moves out
//! to √(h² + (z √2 τ)²) on the log scale (h its distance from the estimate), as the drift-widened
//! intervals of one run do, and the p-value is the one that interval inverts, so the interval
//! excluding 1 and p < 1 − level stay one statement.

use crate::mann_whitney::normal_cdf;
use crate::Shift;

/// The 97.5% quantile of the standard normal (a 95% interval).
const Z975: f64 = 1.959_964;

/// `s` with run-to-run variation of standard deviation `tau` (log scale) added to each run's
/// median. `tau == 0` (or a shift without an interval) returns `s` as it is.
///
/// Invariants: the returned interval contains the given one and the ratio; it widens as `tau`
/// grows; with `tau > 0`, the interval excludes 1 exactly when `p_value < 0.05`.
pub fn with_run_variation(s: Shift, tau: f64) -> Shift {
    let Some((lo, hi)) = s.ci else {
        return s;
    };
    if tau.is_nan() || tau <= 0.0 || s.ratio.is_nan() || s.ratio <= 0.0 {
        return s;
    }
    let extra = Z975 * std::f64::consts::SQRT_2 * tau;
    let out = |h: f64| (h * h + extra * extra).sqrt();
    let r = s.ratio.ln();
    let (down, up) = (r - lo.ln(), hi.ln() - r);
    let (down, up) = (out(down.max(0.0)), out(up.max(0.0)));
    // The side facing 1 is the one a test of "no change" reads.
    let toward_one = if r >= 0.0 { down } else { up };
    let se = toward_one / Z975;
    let p_value = (2.0 * (1.0 - normal_cdf(r.abs() / se))).clamp(0.0, 1.0);
    Shift {
        ratio: s.ratio,
        ci: Some(((r - down).exp(), (r + up).exp())),
        p_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shift(ratio: f64, ci: (f64, f64), p: f64) -> Shift {
        Shift {
            ratio,
            ci: Some(ci),
            p_value: p,
        }
    }

    #[test]
    fn regression_an_a_a_pair_read_a_third_slower_on_every_cross_cpu_hand_over() {
        // Two quick runs of one build: B/A 1.36 [1.30, 1.43] over the rounds alone, p tiny.
        // With the 20% run-to-run spread such hand-overs show between runs, it is no change.
        let s = with_run_variation(shift(1.36, (1.30, 1.43), 0.002), 0.20);
        let (lo, hi) = s.ci.unwrap();
        assert!(lo < 1.0 && hi > 1.36, "{lo} {hi}");
        assert!(s.p_value > 0.05, "{}", s.p_value);
        // A real doubling still shows through a 5% spread.
        let s = with_run_variation(shift(2.0, (1.9, 2.1), 0.002), 0.05);
        assert!(s.ci.unwrap().0 > 1.7 && s.p_value < 0.001, "{s:?}");
    }

    #[test]
    fn no_run_variation_leaves_the_rounds_comparison_as_it_is() {
        let s = shift(1.2, (1.1, 1.3), 0.01);
        assert_eq!(with_run_variation(s, 0.0), s);
        let none = Shift {
            ratio: 1.2,
            ci: None,
            p_value: 0.2,
        };
        assert_eq!(with_run_variation(none, 0.1), none);
    }
}
