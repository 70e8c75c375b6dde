//! A check's figure within what its quantity can be, and no decision on a difference that cannot
//! be told from zero.
//!
//! Why: S3.cold's "cold / warm >= 1.05" read "0.530x [-0.301, 1.84]" — a cost ratio below zero —
//! because its cold side is a difference (a hand-over minus one side reading its working set
//! warm) that, in that run, could not be told from zero. A ratio of positive quantities, a time
//! or a size cannot be negative: the figure is bounded at zero (`concbench_stats::bound_at_zero`
//! keeps the interval's coverage), and a check that reads a difference its result cannot tell
//! from zero decides nothing, with that reason: the rounds say the difference may be nothing at
//! all, and a ratio over nothing answers no question.

use super::series::Instance;
use super::spec::Take;
use concbench_core::unit::cannot_be_negative;
use concbench_core::{human, Check, PooledCheck, Quantity, ResultEntry, VerdictKind};
use concbench_stats::{against_zero, bound_at_zero, AgainstZero};

/// The results of `instance` whose own figure the check reads and that are differences which
/// cannot be told from zero.
pub(super) fn undistinguished<'a>(instance: &Instance<'a>) -> Vec<&'a ResultEntry> {
    instance
        .results
        .values()
        .filter(|(_, sel)| sel.counter.is_none() && sel.take == Take::Reported)
        .map(|(e, _)| *e)
        .filter(|e| e.quantity() == Quantity::Difference && !e.distinguishable())
        .collect()
}

/// Whether any result of `instance` the check reads by its own figure is a difference.
pub(super) fn reads_difference(instance: &Instance<'_>) -> bool {
    instance.results.values().any(|(e, sel)| {
        sel.counter.is_none() && sel.take == Take::Reported && e.quantity() == Quantity::Difference
    })
}

/// The sentence a check carries when it reads such differences.
pub(super) fn undistinguished_sentence(results: &[&ResultEntry]) -> String {
    let named: Vec<String> = results
        .iter()
        .map(|e| format!("{} {}", e.id, e.params.compact()))
        .collect();
    format!(
        "no decision: {} {} the difference from a subtracted baseline and not above zero in this \
         run (its interval reaches zero, or lies below it), so the figure may be nothing at all",
        named.join(", "),
        if named.len() == 1 { "is" } else { "are" }
    )
}

/// Leave `check` undecided, saying why, when it reads a difference that cannot be told from zero.
pub(super) fn undecided_on_zero(check: &mut Check, results: &[&ResultEntry]) {
    if results.is_empty() {
        return;
    }
    check.decision = VerdictKind::Inconclusive;
    let sentence = undistinguished_sentence(results);
    check.note = if check.note.is_empty() {
        sentence
    } else {
        format!("{sentence}; {}", check.note)
    };
}

/// Bound a check's estimate, interval and boundary at zero when its unit cannot be negative; a
/// figure below zero over its whole interval cannot be right, and decides nothing.
pub(super) fn bound(check: &mut Check) {
    if !cannot_be_negative(&check.unit) {
        return;
    }
    let below = check
        .ci95
        .is_some_and(|[lo, hi]| against_zero(lo, hi) == AgainstZero::Below);
    if let Some(estimate) = check.estimate {
        let (e, ci) = bound_at_zero(estimate, check.ci95.map(|[lo, hi]| (lo, hi)));
        check.estimate = Some(e);
        check.ci95 = ci.map(|(lo, hi)| [lo, hi]);
    }
    check.boundary = check.boundary.map(|[lo, hi]| [lo.max(0.0), hi.max(0.0)]);
    if below {
        check.decision = VerdictKind::Inconclusive;
        let sentence = format!(
            "invalid: the figure is below zero over its whole interval, which no {} can be; no \
             decision rests on it",
            what(&check.unit)
        );
        check.note = if check.note.is_empty() {
            sentence
        } else {
            format!("{sentence}; {}", check.note)
        };
    }
}

/// A pooled check's figure bounded as a run's ([`bound`]); one that reads a difference
/// (`reads_difference`) whose pooled interval reaches zero decides nothing, with that reason.
pub(super) fn pooled(check: &mut PooledCheck, reads_difference: bool) {
    let Some([lo, hi]) = check.ci95 else {
        return;
    };
    let against = against_zero(lo, hi);
    let mut sentence = None;
    if reads_difference && against != AgainstZero::Above {
        sentence = Some(
            "no decision: it reads a difference from a subtracted baseline that cannot be told \
             from zero over the runs (the pooled interval reaches zero)"
                .to_string(),
        );
    }
    if cannot_be_negative(&check.unit) {
        if against == AgainstZero::Below {
            sentence = Some(format!(
                "invalid: the pooled figure is below zero over its whole interval, which no {} \
                 can be; no decision rests on it",
                what(&check.unit)
            ));
        }
        let (e, ci) = bound_at_zero(check.estimate.unwrap_or(0.0), Some((lo, hi)));
        check.estimate = check.estimate.map(|_| e);
        check.ci95 = ci.map(|(lo, hi)| [lo, hi]);
    }
    if let Some(sentence) = sentence {
        check.decision = VerdictKind::Inconclusive;
        check.note = if check.note.is_empty() {
            sentence
        } else {
            format!("{sentence}; {}", check.note)
        };
    }
}

/// "time", "ratio of positive quantities", ... for a unit that cannot be negative.
fn what(unit: &str) -> String {
    if human::seconds(1.0, unit).is_some() {
        "time".into()
    } else if unit == "x" {
        "ratio of positive quantities".into()
    } else {
        format!("figure in {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(estimate: f64, ci: [f64; 2], unit: &str) -> Check {
        Check {
            condition: "c".into(),
            rule: "cold / warm >= 1.05".into(),
            estimate: Some(estimate),
            ci95: Some(ci),
            unit: unit.into(),
            rounds: 9,
            decision: VerdictKind::Inconclusive,
            note: String::new(),
            beside: false,
            withheld: false,
            boundary: Some([ci[0] - 0.1, ci[1] + 0.1]),
            at_margin: None,
        }
    }

    #[test]
    fn regression_s3_cold_showed_a_negative_cost_ratio() {
        let mut c = check(0.530, [-0.301, 1.84], "x");
        bound(&mut c);
        assert_eq!(c.estimate, Some(0.530));
        assert_eq!(c.ci95, Some([0.0, 1.84]));
        assert_eq!(c.boundary.unwrap()[0], 0.0);
        // "measured 1.05 µs [-0.620, 3.76]": a time, the same.
        let mut t = check(1.05, [-0.62, 3.76], "us");
        bound(&mut t);
        assert_eq!(t.ci95, Some([0.0, 3.76]));
    }

    #[test]
    fn a_share_difference_keeps_its_negative_bound() {
        // Ten readers' iowait minus one's can be negative: no bound assumed.
        let mut c = check(0.02, [-0.03, 0.08], "share");
        bound(&mut c);
        assert_eq!(c.ci95, Some([-0.03, 0.08]));
    }

    #[test]
    fn a_time_below_zero_over_its_whole_interval_decides_nothing() {
        let mut c = check(-2.0, [-3.0, -1.0], "us");
        c.decision = VerdictKind::Refuted;
        bound(&mut c);
        assert_eq!(c.decision, VerdictKind::Inconclusive);
        assert!(
            c.note.starts_with("invalid: the figure is below zero"),
            "{}",
            c.note
        );
    }
}
