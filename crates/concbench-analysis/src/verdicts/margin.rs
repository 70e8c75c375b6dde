//! "At the margin": a check whose estimate lies within one half-width of its deciding interval
//! (on logarithms for a positive quantity) of the rule's number. A rerun draws another estimate about that far away, so such a decision
//! may well come out "inconclusive" next time (or this "inconclusive" decided); the report says
//! so rather than letting a reader take it for a settled result.

use super::decide::Rule;
use concbench_core::AtMargin;
use concbench_stats::projected_half_width;

/// The label for a check with `estimate`, deciding interval `interval` (the boundary, else the
/// 95% interval) and per-pass `values`: the rule's finite number nearest the estimate, the
/// distance to it, and the interval's reach towards it. `None` when the estimate is farther
/// than one half-width from every number of the rule.
///
/// Why the deciding interval's half-width, and the projected one without an interval: a check
/// changes between a decision and "inconclusive" from run to run exactly when its interval's
/// end crosses the margin, which needs the estimate within about one half-width of it. Why on
/// logarithms for a positive quantity: its intervals are (a ratio's, a time's), so they are
/// skewed; half of the plain width of 64.9x [13.0, 158] (72) exceeds the 63.9 to a margin of
/// 1.05, though on the scale the interval was made on it is a factor 3.5 either side and the
/// margin a factor 62 away.
pub fn at_margin(
    rule: Rule,
    estimate: f64,
    interval: Option<(f64, f64)>,
    values: &[f64],
) -> Option<AtMargin> {
    let spread = match interval {
        Some((lo, hi)) => Spread::of(lo, hi),
        None => Spread::Plain(projected_half_width(values, values.len())),
    };
    at_spread(rule, estimate, spread)
}

/// The label for a check with `estimate` whose interval has `spread` (its own, or the typical
/// one over a host's runs): as [`at_margin`].
pub fn at_spread(rule: Rule, estimate: f64, spread: Spread) -> Option<AtMargin> {
    let (low, high) = rule.region();
    let margin = [low, high]
        .into_iter()
        .filter(|m| m.is_finite())
        .min_by(|a, b| (estimate - a).abs().total_cmp(&(estimate - b).abs()))?;
    let half_width = spread.reach(estimate, margin);
    let distance = estimate - margin;
    (distance.abs() <= half_width).then_some(AtMargin {
        margin,
        distance,
        half_width,
    })
}

/// An interval's half-width on the scale it was computed on.
///
/// Invariant: both widths are non-negative.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Spread {
    /// A positive interval's half-width on logarithms (a factor `exp(w)` either side).
    Log(f64),
    /// Any other interval's plain half-width.
    Plain(f64),
}

impl Spread {
    /// The half-width of `[lo, hi]`: on logarithms when both ends are positive.
    pub fn of(lo: f64, hi: f64) -> Spread {
        if lo > 0.0 && hi > 0.0 {
            Spread::Log((hi.ln() - lo.ln()).abs() / 2.0)
        } else {
            Spread::Plain((hi - lo).abs() / 2.0)
        }
    }

    /// The median spread of several intervals, on logarithms when all of them are positive.
    pub fn typical(intervals: &[(f64, f64)]) -> Option<Spread> {
        if intervals.is_empty() {
            return None;
        }
        let positive = intervals.iter().all(|&(lo, hi)| lo > 0.0 && hi > 0.0);
        let width = |&(lo, hi): &(f64, f64)| match Spread::of(lo, hi) {
            Spread::Log(w) if positive => w,
            _ => (hi - lo).abs() / 2.0,
        };
        let w = concbench_stats::median(&intervals.iter().map(width).collect::<Vec<_>>());
        Some(if positive {
            Spread::Log(w)
        } else {
            Spread::Plain(w)
        })
    }

    /// How far this spread reaches from a positive or plain `estimate` towards `margin`, in the
    /// estimate's unit (on logarithms: the distance to `estimate` divided or multiplied by the
    /// factor).
    pub fn reach(self, estimate: f64, margin: f64) -> f64 {
        match self {
            Spread::Log(w) if estimate > 0.0 => {
                if margin < estimate {
                    estimate - estimate / w.exp()
                } else {
                    estimate * w.exp() - estimate
                }
            }
            Spread::Log(w) | Spread::Plain(w) => w,
        }
    }
}

/// The sentence a check at the margin adds to its note.
pub fn sentence(m: &AtMargin, unit: &str) -> String {
    let v = |x: f64| concbench_core::human::value(x, unit);
    format!(
        "at the margin: the estimate is {} from {} and its interval reaches {} towards it; a \
         rerun may well say \"inconclusive\"",
        v(m.distance.abs()),
        v(m.margin),
        v(m.half_width)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GREATER: Rule = Rule::Greater { min_effect: 1.15 };

    #[test]
    fn a_decision_close_to_its_margin_is_labelled_and_a_clear_one_is_not() {
        // Confirmed 1.20 [1.16, 1.30]: 0.05 from 1.15; the interval spans a factor
        // sqrt(1.30 / 1.16) either side, which reaches 0.066 below 1.20.
        let m = at_margin(GREATER, 1.20, Some((1.16, 1.30)), &[]).unwrap();
        assert_eq!(m.margin, 1.15);
        let reach = 1.20 - 1.20 / (1.30f64 / 1.16).sqrt();
        assert!((m.distance - 0.05).abs() < 1e-12 && (m.half_width - reach).abs() < 1e-12);
        // Confirmed 2.0 [1.8, 2.2]: far from its margin.
        assert_eq!(at_margin(GREATER, 2.0, Some((1.8, 2.2)), &[]), None);
    }

    #[test]
    fn a_band_uses_its_nearer_end_and_no_interval_uses_the_projected_width() {
        let band = Rule::About {
            low: 43.4,
            high: 174.0,
        };
        let m = at_margin(band, 161.0, Some((140.0, 185.0)), &[]).unwrap();
        assert_eq!(m.margin, 174.0);
        assert!(m.distance < 0.0);
        // Five rounds, no interval: their spread stands in.
        let values = [130.0, 150.0, 161.0, 175.0, 190.0];
        assert!(at_margin(band, 161.0, None, &values).is_some());
        assert_eq!(at_margin(band, 100.0, None, &values), None);
    }

    #[test]
    fn regression_a_65x_cold_switch_with_a_skewed_interval_was_labelled_at_the_margin() {
        // S3.cold in a quick run (2026-11-27): cold / warm >= 1.05 measured 64.9x, deciding
        // interval [13.0, 158]. Half its plain width (72) exceeds the 63.9 to the margin, so
        // the run said "confirmed, at the margin"; on logarithms, the scale the interval was
        // made on, it spans a factor 3.5 either side and the margin is a factor 62 away.
        let rule = Rule::Greater { min_effect: 1.05 };
        assert_eq!(at_margin(rule, 64.9, Some((13.0, 157.9)), &[]), None);
        // An estimate a factor 1.2 from the margin with a factor 1.5 either side is labelled,
        // and its reach is what the factor spans towards the margin.
        let m = at_margin(rule, 1.26, Some((0.84, 1.89)), &[]).unwrap();
        assert!((m.half_width - (1.26 - 1.26 / 1.5)).abs() < 1e-9, "{m:?}");
    }

    #[test]
    fn spreads_are_logarithmic_for_positive_intervals_and_plain_otherwise() {
        let Spread::Log(w) = Spread::of(1.0, 4.0) else {
            panic!("a positive interval is logarithmic")
        };
        assert!((w - 2f64.ln()).abs() < 1e-12);
        assert_eq!(Spread::of(-1.0, 3.0), Spread::Plain(2.0));
        // The reach towards a margin above multiplies, below divides.
        assert!((Spread::Log(2f64.ln()).reach(2.0, 10.0) - 2.0).abs() < 1e-12);
        assert!((Spread::Log(2f64.ln()).reach(2.0, 0.1) - 1.0).abs() < 1e-12);
        assert_eq!(Spread::Plain(0.3).reach(2.0, 0.1), 0.3);
        // The typical spread: logarithmic only when every interval is positive.
        assert!(matches!(
            Spread::typical(&[(1.0, 4.0), (1.0, 2.0), (2.0, 8.0)]),
            Some(Spread::Log(_))
        ));
        assert_eq!(
            Spread::typical(&[(-1.0, 3.0), (1.0, 2.0), (0.0, 1.0)]),
            Some(Spread::Plain(0.5))
        );
        assert_eq!(Spread::typical(&[]), None);
    }
}
