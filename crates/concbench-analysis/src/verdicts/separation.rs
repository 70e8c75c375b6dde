//! The condition that separates a pooled check's modes, where concbench can tell.
//!
//! Why: "bimodal over the runs" says no median answers the question, but not which condition
//! of the machine puts a run in one mode or the other. Cross-CPU and unpinned switch rounds
//! count the entries into a sleeping idle state per hand-over (`idle_sleeps_per_op`, see
//! `concbench-measure::idle`): when every round of one mode woke a halted CPU more often than
//! every round of the other, that is the condition, said with its figures. Placement is a
//! parameter of the condition itself, the same in every pooled round, so it never separates
//! them. Where the rounds carry no idle-state evidence (no cpuidle driver), the cause is
//! unknown, and the sentence says so rather than guess.

use concbench_core::Mode;

/// The per-round counter with the idle-state evidence.
pub const EVIDENCE: &str = "idle_sleeps_per_op";

/// One pooled value and the idle-state entries per hand-over of the rounds it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidenced {
    pub value: f64,
    pub sleeps_per_op: Option<f64>,
}

/// "separated by idle state: 19.5 µs (63% of rounds): a CPU halted at 0.92 of hand-overs; …",
/// or why no condition can be named. Empty with fewer than two modes.
pub fn separation(modes: &[Mode], values: &[Evidenced], unit: &str) -> String {
    if modes.len() < 2 {
        return String::new();
    }
    let groups: Vec<Vec<f64>> = modes
        .iter()
        .map(|m| {
            values
                .iter()
                .filter(|v| nearest(modes, v.value) == Some(m))
                .filter_map(|v| v.sleeps_per_op)
                .collect()
        })
        .collect();
    let evidenced = values.iter().filter(|v| v.sleeps_per_op.is_some()).count();
    if evidenced == 0 || groups.iter().any(Vec::is_empty) {
        return "cause unknown: these rounds carry no idle-state evidence (no cpuidle driver \
                publishes idle states here), and placement is the same in every round"
            .to_string();
    }
    let parts: Vec<String> = modes
        .iter()
        .zip(&groups)
        .map(|(m, g)| {
            format!(
                "{} ({:.0}% of rounds): a CPU halted at {:.2} of hand-overs",
                concbench_core::human::value(m.median, unit),
                m.share * 100.0,
                concbench_stats::median(g)
            )
        })
        .collect();
    if apart(&groups) {
        format!("separated by idle state: {}", parts.join("; "))
    } else {
        format!(
            "cause unknown: idle-state evidence does not separate the modes ({}), and placement \
             is the same in every round",
            parts.join("; ")
        )
    }
}

/// The mode a value belongs to: the one whose range holds it, else the one with the nearest
/// median.
fn nearest(modes: &[Mode], x: f64) -> Option<&Mode> {
    modes
        .iter()
        .find(|m| m.low <= x && x <= m.high)
        .or_else(|| {
            modes
                .iter()
                .min_by(|a, b| (a.median - x).abs().total_cmp(&(b.median - x).abs()))
        })
}

/// Whether the groups' ranges of evidence do not overlap (ordered by their medians).
fn apart(groups: &[Vec<f64>]) -> bool {
    let mut ranges: Vec<(f64, f64)> = groups
        .iter()
        .map(|g| {
            let lo = g.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = g.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lo, hi)
        })
        .collect();
    ranges.sort_by(|a, b| a.0.total_cmp(&b.0));
    ranges.windows(2).all(|w| w[0].1 < w[1].0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(median: f64, low: f64, high: f64, share: f64) -> Mode {
        Mode {
            median,
            low,
            high,
            share,
            holds_median: false,
        }
    }

    fn two_modes() -> Vec<Mode> {
        vec![mode(4.0, 3.5, 4.5, 0.4), mode(19.5, 18.0, 21.0, 0.6)]
    }

    fn ev(value: f64, sleeps: Option<f64>) -> Evidenced {
        Evidenced {
            value,
            sleeps_per_op: sleeps,
        }
    }

    #[test]
    fn halted_partner_separates_the_slow_mode() {
        let values = [
            ev(4.0, Some(0.01)),
            ev(4.2, Some(0.03)),
            ev(19.0, Some(0.9)),
            ev(19.5, Some(0.95)),
            ev(20.0, Some(0.92)),
        ];
        let s = separation(&two_modes(), &values, "us");
        assert!(s.starts_with("separated by idle state"), "{s}");
        assert!(s.contains("60% of rounds): a CPU halted at 0.92"), "{s}");
        assert!(s.contains("40% of rounds): a CPU halted at 0.02"), "{s}");
    }

    #[test]
    fn no_evidence_says_cause_unknown() {
        let values = [ev(4.0, None), ev(19.5, None)];
        let s = separation(&two_modes(), &values, "us");
        assert!(
            s.starts_with("cause unknown: these rounds carry no idle-state"),
            "{s}"
        );
    }

    #[test]
    fn overlapping_evidence_does_not_separate() {
        let values = [
            ev(4.0, Some(0.5)),
            ev(4.1, Some(0.9)),
            ev(19.5, Some(0.6)),
            ev(20.0, Some(0.8)),
        ];
        let s = separation(&two_modes(), &values, "us");
        assert!(
            s.starts_with("cause unknown: idle-state evidence does not"),
            "{s}"
        );
    }

    #[test]
    fn a_mode_without_evidence_names_no_cause() {
        let values = [ev(4.0, Some(0.01)), ev(19.5, None)];
        let s = separation(&two_modes(), &values, "us");
        assert!(s.starts_with("cause unknown"), "{s}");
    }

    #[test]
    fn one_mode_has_no_separation() {
        assert_eq!(
            separation(&two_modes()[..1], &[ev(4.0, Some(0.1))], "us"),
            ""
        );
    }

    #[test]
    fn a_value_outside_every_range_goes_to_the_nearest_mode() {
        let m = two_modes();
        assert_eq!(nearest(&m, 17.0).map(|m| m.median), Some(19.5));
        assert_eq!(nearest(&m, 4.4).map(|m| m.median), Some(4.0));
    }
}
