//! How stable a verdict is: the share of resamples of its rounds that reach the same verdict.
//!
//! Each check's per-pass values are resampled with replacement (each check independently), its
//! interval and decision recomputed, the decisions combined as the claim combines them. A
//! verdict that a rerun would likely repeat scores near 1; one that sits on a margin scores near
//! one half. Deterministic: the seed is derived from the claim's id.

use super::decide::{combine, decide, Combine, Rule};
use concbench_core::VerdictKind;
use concbench_stats::{sequential_interval, MIN_VALUES_95, SEQUENTIAL_ALPHA};

/// Resamples per verdict: enough for two decimals, cheap for a dozen checks of twenty rounds.
pub const RESAMPLES: usize = 200;

/// Share (0..=1) of resamples whose combined decision is `actual`, each decided as the run
/// decides: by the sequential boundary of a run whose looks go up to `horizon` rounds.
pub fn robustness(
    how: Combine,
    checks: &[(Rule, &[f64])],
    actual: VerdictKind,
    id: &str,
    horizon: usize,
) -> f64 {
    robustness_partial(how, checks, 0, actual, id, horizon)
}

/// As [`robustness`], with `unmeasured` deciding checks the run did not measure: each stays
/// undecided in every resample, as it does in the verdict.
pub fn robustness_partial(
    how: Combine,
    checks: &[(Rule, &[f64])],
    unmeasured: usize,
    actual: VerdictKind,
    id: &str,
    horizon: usize,
) -> f64 {
    if checks.is_empty() {
        return 0.0;
    }
    let seed = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut same = 0;
    let mut bufs: Vec<Vec<f64>> = vec![Vec::new(); checks.len()];
    for _ in 0..RESAMPLES {
        for ((_, values), buf) in checks.iter().zip(&mut bufs) {
            buf.clear();
            buf.extend((0..values.len()).map(|_| values[rng.usize(..values.len())]));
        }
        let mut decisions: Vec<VerdictKind> = checks
            .iter()
            .zip(&bufs)
            .map(|((rule, _), buf)| {
                decide(
                    *rule,
                    sequential_interval(buf, MIN_VALUES_95, horizon, SEQUENTIAL_ALPHA),
                )
            })
            .collect();
        correct_refutations(checks, &bufs, &mut decisions, horizon);
        decisions.extend(std::iter::repeat_n(VerdictKind::Inconclusive, unmeasured));
        if combine(how, &decisions) == Some(actual) {
            same += 1;
        }
    }
    same as f64 / RESAMPLES as f64
}

/// A resample's refutations go through the same family-wise correction as the run's own.
fn correct_refutations(
    checks: &[(Rule, &[f64])],
    bufs: &[Vec<f64>],
    decisions: &mut [VerdictKind],
    horizon: usize,
) {
    if checks.len() < 2 || !decisions.contains(&VerdictKind::Refuted) {
        return;
    }
    let family: Vec<(Rule, &[f64])> = checks
        .iter()
        .zip(bufs)
        .map(|((rule, _), buf)| (*rule, buf.as_slice()))
        .collect();
    let holding = super::multiplicity::refutations_holding(&family, horizon);
    for (d, holds) in decisions.iter_mut().zip(holding) {
        if *d == VerdictKind::Refuted && !holds {
            *d = VerdictKind::Inconclusive;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decisive_check_is_robust_and_a_marginal_one_is_not() {
        let rule = Rule::Greater { min_effect: 1.15 };
        let far: Vec<f64> = (0..10).map(|i| 3.0 + 0.01 * i as f64).collect();
        let r = robustness(
            Combine::All,
            &[(rule, &far)],
            VerdictKind::Confirmed,
            "t",
            20,
        );
        assert!(r > 0.99, "{r}");
        let near: Vec<f64> = (0..10).map(|i| 1.05 + 0.02 * i as f64).collect();
        let r = robustness(
            Combine::All,
            &[(rule, &near)],
            VerdictKind::Inconclusive,
            "t",
            20,
        );
        assert!(r > 0.2 && r < 1.0, "{r}");
        assert_eq!(
            robustness(Combine::All, &[], VerdictKind::Confirmed, "t", 20),
            0.0
        );
    }
}
