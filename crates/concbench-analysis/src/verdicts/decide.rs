//! From an interval and a stated rule to a decision, and from a claim's checks to its verdict.
//!
//! A decision needs the whole 95% interval on one side of the rule's number: "confirmed" when it
//! lies where the claim says, "refuted" when it lies on the other side, "inconclusive" when it
//! straddles the number (or there is no interval). So a noisier run is *less* likely to decide,
//! never more, and lack of precision is never read as a refutation.

use concbench_core::VerdictKind;
use serde::Deserialize;

/// A check's rule, with its numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// The quantity is at least `min_effect` (a ratio: B costs at least 15% more than A).
    Greater {
        min_effect: f64,
    },
    /// The quantity is at most `1 / min_effect`.
    Less {
        min_effect: f64,
    },
    /// The quantity (a ratio) is within `[1 / (1 + margin), 1 + margin]`.
    Equivalent {
        margin: f64,
    },
    /// The quantity lies in the band `[low, high]` ("about R").
    About {
        low: f64,
        high: f64,
    },
    AtLeast {
        bound: f64,
    },
    AtMost {
        bound: f64,
    },
}

/// How a claim's checks combine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    /// Each check is a condition (a COUNT, a reader, an operation): decided alike, the claim
    /// takes that decision; decided differently, it "depends", each condition named.
    #[default]
    Conditions,
    /// The checks are parts of one statement ("A > B > C"): all must hold; one refuted part
    /// refutes it.
    All,
}

impl Rule {
    /// The accepted region `[low, high]` of the quantity.
    pub(super) fn region(self) -> (f64, f64) {
        match self {
            Rule::Greater { min_effect } => (min_effect, f64::INFINITY),
            Rule::Less { min_effect } => (f64::NEG_INFINITY, 1.0 / min_effect),
            Rule::Equivalent { margin } => (1.0 / (1.0 + margin), 1.0 + margin),
            Rule::About { low, high } => (low, high),
            Rule::AtLeast { bound } => (bound, f64::INFINITY),
            Rule::AtMost { bound } => (f64::NEG_INFINITY, bound),
        }
    }

    /// "q >= 1.15", "q within [0.87, 1.15]", with `q` the quantity's text.
    pub fn describe(self, q: &str) -> String {
        match self {
            Rule::Greater { min_effect } => format!("{q} >= {}", num(min_effect)),
            Rule::Less { min_effect } => format!("{q} <= {}", num(1.0 / min_effect)),
            Rule::AtLeast { bound } => format!("{q} >= {}", num(bound)),
            Rule::AtMost { bound } => format!("{q} <= {}", num(bound)),
            Rule::Equivalent { margin } => format!(
                "{q} within [{}, {}] (equal within {:.0}%)",
                num(1.0 / (1.0 + margin)),
                num(1.0 + margin),
                margin * 100.0
            ),
            Rule::About { low, high } => format!("{q} within [{}, {}]", num(low), num(high)),
        }
    }

    /// The rule of a quantity in `unit` ("x" for ratios): bounds in a time unit go through the
    /// one duration formatter ("process within [66.7 µs, 150 µs]"); others are followed by
    /// their unit ("process >= 0.500 tasks").
    pub fn describe_in(self, q: &str, unit: &str) -> String {
        let v = |x: f64| concbench_core::human::value(x, unit);
        match self {
            _ if unit == "x" => self.describe(q),
            Rule::AtLeast { bound } => format!("{q} >= {}", v(bound)),
            Rule::AtMost { bound } => format!("{q} <= {}", v(bound)),
            Rule::About { low, high } => format!("{q} within [{}, {}]", v(low), v(high)),
            _ => format!(
                "{} {}",
                self.describe(q),
                concbench_core::human::unit_text(unit)
            ),
        }
    }
}

/// A number with three significant digits, as rules and intervals print them: the one number
/// formatter, [`concbench_core::human::sig3`].
pub use concbench_core::human::sig3 as num;

/// The decision on one check from its interval.
///
/// Invariants: no interval is inconclusive; widening an interval never turns a decision into its
/// opposite (only into inconclusive); an interval inside the accepted region confirms, one
/// entirely outside it refutes.
pub fn decide(rule: Rule, ci: Option<(f64, f64)>) -> VerdictKind {
    let Some((lo, hi)) = ci else {
        return VerdictKind::Inconclusive;
    };
    let (low, high) = rule.region();
    if lo >= low && hi <= high {
        VerdictKind::Confirmed
    } else if hi < low || lo > high {
        VerdictKind::Refuted
    } else {
        VerdictKind::Inconclusive
    }
}

/// A claim's verdict from its checks' decisions.
///
/// Invariants: an empty list gives `None` (nothing judged); unanimous checks give their
/// decision; under `Conditions`, confirmed and refuted checks together give `Depends`, refuted
/// ones with only inconclusive others give `Refuted`, and confirmed ones with an inconclusive
/// other give `Inconclusive`; under `All`, one refuted part refutes, else any inconclusive part
/// makes it inconclusive.
///
/// Why refuted conditions beside undecided ones refute: a claim judged over conditions is a
/// general statement ("more threads do not help"), and a condition where it is shown false is a
/// counter-example; an undecided condition could only make the verdict "depends" (true here,
/// false there), never "confirmed". Confirming needs every condition, so one undecided
/// condition leaves a claim the others confirm inconclusive.
pub fn combine(how: Combine, decisions: &[VerdictKind]) -> Option<VerdictKind> {
    use VerdictKind::*;
    if decisions.is_empty() {
        return None;
    }
    let any = |k: VerdictKind| decisions.contains(&k);
    Some(match how {
        Combine::All if any(Refuted) => Refuted,
        Combine::All if any(Inconclusive) => Inconclusive,
        Combine::All => Confirmed,
        Combine::Conditions if any(Confirmed) && any(Refuted) => Depends,
        Combine::Conditions if any(Refuted) => Refuted,
        Combine::Conditions if any(Inconclusive) => Inconclusive,
        Combine::Conditions => Confirmed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use VerdictKind::*;

    const GREATER: Rule = Rule::Greater { min_effect: 1.15 };

    #[test]
    fn the_issue_example_is_inconclusive_not_confirmed() {
        // "rule: process/thread >= 1.15; measured 1.07 [1.02, 1.12]": the whole interval is
        // below the minimum effect, so the claim of a meaningful difference is refuted; an
        // interval across 1.15 is inconclusive; one above it confirms.
        assert_eq!(decide(GREATER, Some((1.02, 1.12))), Refuted);
        assert_eq!(decide(GREATER, Some((1.05, 1.25))), Inconclusive);
        assert_eq!(decide(GREATER, Some((1.2, 1.4))), Confirmed);
        assert_eq!(decide(GREATER, None), Inconclusive);
    }

    #[test]
    fn about_needs_the_interval_inside_the_band() {
        let about = Rule::About {
            low: 20.0,
            high: 45.0,
        };
        assert_eq!(decide(about, Some((25.0, 40.0))), Confirmed);
        // Overlapping the band used to confirm; now it is inconclusive.
        assert_eq!(decide(about, Some((15.0, 25.0))), Inconclusive);
        assert_eq!(decide(about, Some((3.5, 4.4))), Refuted);
    }

    #[test]
    fn equivalence_and_one_sided_bounds() {
        let eq = Rule::Equivalent { margin: 0.15 };
        assert_eq!(decide(eq, Some((0.95, 1.1))), Confirmed);
        assert_eq!(decide(eq, Some((1.1, 1.3))), Inconclusive);
        assert_eq!(decide(eq, Some((1.2, 1.3))), Refuted);
        assert_eq!(
            decide(Rule::AtMost { bound: 1.5 }, Some((0.5, 1.4))),
            Confirmed
        );
        assert_eq!(
            decide(Rule::AtLeast { bound: 0.87 }, Some((0.5, 0.8))),
            Refuted
        );
        assert_eq!(
            decide(Rule::Less { min_effect: 1.15 }, Some((0.5, 0.8))),
            Confirmed
        );
    }

    #[test]
    fn widening_an_interval_never_flips_a_decision() {
        let rules = [
            GREATER,
            Rule::Equivalent { margin: 0.15 },
            Rule::About {
                low: 8.7,
                high: 19.7,
            },
            Rule::AtMost { bound: 1.5 },
        ];
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..5000 {
            let rule = rules[rng.usize(..rules.len())];
            let lo = rng.f64() * 30.0;
            let hi = lo + rng.f64() * 10.0;
            let (wlo, whi) = (lo - rng.f64() * 5.0, hi + rng.f64() * 5.0);
            let (narrow, wide) = (decide(rule, Some((lo, hi))), decide(rule, Some((wlo, whi))));
            assert!(
                wide == narrow || wide == Inconclusive,
                "{rule:?} {lo} {hi} {wlo} {whi}"
            );
        }
    }

    #[test]
    fn combining_conditions_and_parts() {
        let c = Combine::Conditions;
        assert_eq!(combine(c, &[]), None);
        assert_eq!(combine(c, &[Confirmed, Confirmed]), Some(Confirmed));
        assert_eq!(combine(c, &[Confirmed, Refuted]), Some(Depends));
        assert_eq!(
            combine(c, &[Confirmed, Refuted, Inconclusive]),
            Some(Depends)
        );
        assert_eq!(combine(c, &[Confirmed, Inconclusive]), Some(Inconclusive));
        assert_eq!(combine(c, &[Refuted, Refuted]), Some(Refuted));
        // A counter-example refutes a general claim; the undecided condition could only make
        // it "depends".
        assert_eq!(combine(c, &[Refuted, Inconclusive]), Some(Refuted));
        assert_eq!(
            combine(c, &[Inconclusive, Inconclusive]),
            Some(Inconclusive)
        );
        let a = Combine::All;
        assert_eq!(combine(a, &[Confirmed, Refuted]), Some(Refuted));
        assert_eq!(combine(a, &[Confirmed, Inconclusive]), Some(Inconclusive));
        assert_eq!(combine(a, &[Confirmed, Confirmed]), Some(Confirmed));
    }

    #[test]
    fn rules_describe_themselves_with_their_numbers() {
        assert_eq!(GREATER.describe("fork / thread"), "fork / thread >= 1.15");
        assert_eq!(
            Rule::Equivalent { margin: 0.15 }.describe("q"),
            "q within [0.870, 1.15] (equal within 15%)"
        );
        assert_eq!(num(41996.0), "41996");
        assert_eq!(num(0.0123456), "0.0123");
    }
}
