//! "At the margin": a check whose estimate lies within one half-width of its deciding interval
//! of the rule's number. A rerun draws another estimate about that far away, so such a decision
//! may well come out "inconclusive" next time (or this "inconclusive" decided); the report says
//! so rather than letting a reader take it for a settled result.

use super::decide::Rule;
use concbench_core::AtMargin;
use concbench_stats::projected_half_width;

/// The label for a check with `estimate`, deciding interval `interval` (the boundary, else the
/// 95% interval) and per-pass `values`: the rule's finite number nearest the estimate, the
/// distance to it, and the half-width it is compared with. `None` when the estimate is farther
/// than one half-width from every number of the rule.
///
/// Why the deciding interval's half-width, and the projected one without an interval: a check
/// changes between a decision and "inconclusive" from run to run exactly when its interval's
/// end crosses the margin, which needs the estimate within about one half-width of it.
pub fn at_margin(
    rule: Rule,
    estimate: f64,
    interval: Option<(f64, f64)>,
    values: &[f64],
) -> Option<AtMargin> {
    let half_width = match interval {
        Some((lo, hi)) => (hi - lo) / 2.0,
        None => projected_half_width(values, values.len()),
    };
    let (low, high) = rule.region();
    let margin = [low, high]
        .into_iter()
        .filter(|m| m.is_finite())
        .min_by(|a, b| (estimate - a).abs().total_cmp(&(estimate - b).abs()))?;
    let distance = estimate - margin;
    (distance.abs() <= half_width).then_some(AtMargin {
        margin,
        distance,
        half_width,
    })
}

/// The sentence a check at the margin adds to its note.
pub fn sentence(m: &AtMargin, unit: &str) -> String {
    let v = |x: f64| concbench_core::human::value(x, unit);
    format!(
        "at the margin: the estimate is {} from {} with an interval half-width of {}; a rerun \
         may well say \"inconclusive\"",
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
        // Confirmed 1.20 [1.16, 1.30]: 0.05 from 1.15 with a half-width of 0.07.
        let m = at_margin(GREATER, 1.20, Some((1.16, 1.30)), &[]).unwrap();
        assert_eq!(m.margin, 1.15);
        assert!((m.distance - 0.05).abs() < 1e-12 && (m.half_width - 0.07).abs() < 1e-12);
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
}
