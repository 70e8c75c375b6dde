//! A family-wise correction across a claim's checks when one counter-example refutes it.
//!
//! A claim over several conditions is refuted (or "depends") when one condition is refuted; with
//! five conditions each tested at 5%, a true claim would meet a false counter-example far more
//! often than 5%. A refutation stands only when Hochberg's step-up, run on the claim's deciding
//! checks with each check's own sequential boundary at the step's level, rejects it.
//!
//! Why Hochberg and not Holm's step-down: the boundary is distribution-free, and eight rounds
//! cannot reach Holm's first level for seven conditions (5% / 7) however far off they are, so a
//! claim refuted under every condition would stay undecided. Hochberg keeps every refutation
//! when each holds at 5%, and otherwise asks for Holm's levels; it controls the family-wise
//! error when the checks' errors are independent or positively dependent, as checks measured in
//! the same passes on the same machine are.

use super::decide::{decide, Rule};
use concbench_core::VerdictKind;
use concbench_stats::{hochberg_step_up, sequential_interval, MIN_VALUES_95, SEQUENTIAL_ALPHA};

/// For each check (its rule and per-pass values), whether a refutation of it survives
/// Hochberg's correction across all of them; a check that is not refuted at the full level is never "rejected".
///
/// Invariants: with one check, a refutation at the full level survives; a check refuted at
/// `alpha / m` always survives.
pub fn refutations_holding(checks: &[(Rule, &[f64])], horizon: usize) -> Vec<bool> {
    hochberg_step_up(checks.len(), SEQUENTIAL_ALPHA, |i, level| {
        let (rule, values) = checks[i];
        decide(
            rule,
            sequential_interval(values, MIN_VALUES_95, horizon, level),
        ) == VerdictKind::Refuted
    })
}

/// The note of a refutation the correction did not keep.
pub fn sentence(m: usize) -> String {
    format!(
        "refuted on its own, but not once the correction for the claim's {m} checks is applied \
         (Hochberg: one counter-example among {m} conditions needs stronger evidence)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GREATER: Rule = Rule::Greater { min_effect: 1.15 };

    #[test]
    fn a_marginal_counter_example_among_many_conditions_does_not_refute() {
        // Twenty rounds: sixteen below the margin, four above. Alone this refutes (the
        // boundary's k at twenty rounds is 5 at 5%, so its interval ends at the 16th value);
        // among five conditions, with the others not refuted, Hochberg's levels (1% to 2.5%)
        // give k = 4, whose interval reaches the margin.
        let mut weak: Vec<f64> = (0..16).map(|i| 1.0 + 0.005 * i as f64).collect();
        weak.extend([1.2, 1.3, 1.4, 1.5]);
        let strong: Vec<f64> = (0..20).map(|i| 0.9 + 0.001 * i as f64).collect();
        let clear: Vec<f64> = (0..20).map(|i| 1.5 + 0.01 * i as f64).collect();
        assert_eq!(refutations_holding(&[(GREATER, &weak)], 20), vec![true]);
        let five = [
            (GREATER, weak.as_slice()),
            (GREATER, strong.as_slice()),
            (GREATER, clear.as_slice()),
            (GREATER, clear.as_slice()),
            (GREATER, clear.as_slice()),
        ];
        let kept = refutations_holding(&five, 20);
        assert_eq!(kept, vec![false, true, false, false, false]);
    }
}

#[cfg(test)]
mod all_refuted {
    use super::*;

    #[test]
    fn conditions_all_plainly_refuted_on_eight_rounds_stay_refuted() {
        let rule = Rule::Greater { min_effect: 1.15 };
        let off: Vec<f64> = (0..8).map(|i| 0.5 + 0.01 * i as f64).collect();
        let family = vec![(rule, off.as_slice()); 7];
        assert_eq!(refutations_holding(&family, 20), vec![true; 7]);
    }
}
