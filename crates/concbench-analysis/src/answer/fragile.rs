//! When a verdict's robustness is worth saying beside its word: the threshold is a decision
//! about the evidence, so it lives here, once, and every renderer reads what it decided
//! ([`super::VerdictAnswer::fragile`]) instead of holding its own copy.

use concbench_core::Verdict;

/// Below this share of resamples agreeing with a verdict, it is fragile: a rerun may well say
/// another word, so its line says how robust it is. Above it the verdict is left to speak for
/// itself (its robustness is in `--all`).
pub const FRAGILE: f64 = 0.9;

/// Whether the verdict rests on rounds enough for a 95% interval.
pub fn has_interval(v: &Verdict) -> bool {
    v.rounds.is_some_and(|r| r >= crate::MIN_VALUES_95)
}

/// The verdict's robustness when it is worth saying: under [`FRAGILE`], and resting on rounds
/// enough for an interval (one round agrees with itself under resampling, so a figure for it
/// says nothing, however low).
pub fn fragile(v: &Verdict) -> Option<f64> {
    v.robustness.filter(|r| *r < FRAGILE && has_interval(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(rounds: usize, robustness: f64) -> Verdict {
        Verdict {
            claim: "a claim".into(),
            source: "S2.switch_order".into(),
            verdict: concbench_core::VerdictKind::Confirmed,
            evidence: Vec::new(),
            explanation: String::new(),
            checks: Vec::new(),
            rounds: Some(rounds),
            robustness: Some(robustness),
            unmeasured: Vec::new(),
            judged: Default::default(),
            full_run: Vec::new(),
        }
    }

    #[test]
    fn a_verdict_is_fragile_under_the_threshold_with_an_interval_only() {
        assert_eq!(fragile(&verdict(22, 0.7)), Some(0.7));
        assert_eq!(fragile(&verdict(22, FRAGILE)), None);
        assert_eq!(fragile(&verdict(22, 0.97)), None);
        // Regression: a one-round result showed "robust 50%" (it agrees with itself).
        assert_eq!(fragile(&verdict(1, 0.5)), None);
        let mut unknown = verdict(22, 0.5);
        unknown.robustness = None;
        assert_eq!(fragile(&unknown), None);
    }
}
