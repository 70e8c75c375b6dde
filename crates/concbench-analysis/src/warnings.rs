//! When a number should not be trusted, and what the user can do about it.
//!
//! Each warning is one sentence naming the problem and the remedy (hyperfine's style).

use concbench_core::{RawMeasurement, ResultEntry, RoundRaw};
use concbench_stats::{tukey_outliers, Stats};

/// The CI half-width, relative to the median, above which a result is called noisy.
pub const NOISY_RELATIVE_HALF_WIDTH: f64 = 0.10;

/// A switch experiment that caused fewer than this fraction of its expected voluntary switches
/// did not exercise the mechanism it names.
pub const SWITCH_SHORTFALL: f64 = 0.5;

/// Warnings about one measured variant, from its rounds, samples and counters.
pub fn for_entry(rounds: &[RoundRaw], entry: &ResultEntry, stats: &Stats) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(w) = rounds
        .first()
        .and_then(|r| mechanism_not_exercised(&r.raw, entry))
    {
        out.push(w);
    }
    if let Some(width) = stats
        .relative_ci_half_width()
        .filter(|w| *w > NOISY_RELATIVE_HALF_WIDTH)
    {
        out.push(format!(
            "noisy: the 95% interval spans +-{:.0}% of the median across rounds; close other \
             programs or rerun with more rounds (--rounds 20)",
            width * 100.0
        ));
    }
    let outliers = tukey_outliers(&entry.samples);
    if outliers.high_severe + outliers.low_severe > 0 {
        out.push(format!(
            "{} of {} samples are severe outliers (something else ran during them); the median \
             is robust to them, but rerun if the interval is wide",
            outliers.high_severe + outliers.low_severe,
            entry.samples.len()
        ));
    }
    if entry.modes.len() > 1 {
        let where_ = entry
            .modes
            .iter()
            .map(|m| format!("{:.0}% near {:.3}", m.share * 100.0, m.median))
            .collect::<Vec<_>>()
            .join(", ");
        let evidence = idle_evidence_per_mode(entry)
            .map(|e| format!("; {e}"))
            .unwrap_or_default();
        out.push(format!(
            "the rounds fall in {} separate modes ({where_} {}){evidence}: one median hides which \
             mode a run lands in; on a VM a wake-up that finds the other vCPU halted costs far \
             more — compare with the same-cpu placement",
            entry.modes.len(),
            entry.unit
        ));
    }
    let excluded = entry.rounds.iter().filter(|r| r.excluded.is_some()).count();
    let left_out = entry.rounds.len() - concbench_core::usable_rounds(&entry.rounds).len();
    if excluded > 0 && left_out > 0 {
        out.push(format!(
            "{excluded} of {} rounds were taken while other processes used the CPU and are \
             left out of the statistics; close other programs for a clean run",
            entry.rounds.len()
        ));
    } else if excluded > 0 {
        out.push(format!(
            "{excluded} of {} rounds were taken while other processes used the CPU; too few \
             clean rounds remained to leave them out, so this figure carries their noise: close \
             other programs and rerun",
            entry.rounds.len()
        ));
    }
    let target = rounds.first().map_or(0.0, |r| r.raw.target_sample_ns);
    let shortest = rounds
        .iter()
        .flat_map(|r| r.raw.sample_ns.iter().copied())
        .fold(f64::INFINITY, f64::min);
    if shortest.is_finite() && target > 0.0 && shortest < 0.1 * target {
        out.push(format!(
            "samples lasted only {} (target {}): timer resolution and scheduling noise weigh \
             on each one",
            concbench_core::human::nanos(shortest),
            concbench_core::human::nanos(target)
        ));
    }
    out
}

/// The per-round counter of idle-state entries per operation (see concbench-measure's `idle`).
pub const IDLE_SLEEPS_PER_OP: &str = "idle_sleeps_per_op";

/// "idle-state entries per hand-over: 0.02 in the mode near 3.4, 0.63 in the mode near 19.5":
/// which mode's rounds found a CPU asleep, when the rounds counted idle-state entries.
fn idle_evidence_per_mode(entry: &ResultEntry) -> Option<String> {
    let parts: Vec<String> = entry
        .modes
        .iter()
        .filter_map(|m| {
            let sleeps: Vec<f64> = entry
                .rounds
                .iter()
                .filter(|r| r.value >= m.low && r.value <= m.high)
                .filter_map(|r| r.counters.get(IDLE_SLEEPS_PER_OP).copied())
                .collect();
            (!sleeps.is_empty()).then(|| {
                let mean = sleeps.iter().sum::<f64>() / sleeps.len() as f64;
                format!("{mean:.2} in the mode near {:.3}", m.median)
            })
        })
        .collect();
    (parts.len() == entry.modes.len()).then(|| {
        format!(
            "idle-state entries per operation (a CPU that slept and had to be woken): {}",
            parts.join(", ")
        )
    })
}

/// A run-level suggestion: the run did not hold the CPUs awake and a cross-CPU or unpinned
/// switch result fell into separate modes, which is what a wake-up from a sleeping CPU does.
/// `rerun` is the command that measures them again held awake, as this machine runs it, with how
/// long it takes ("`sudo concbench run --quick --hold-awake` (about 55 s, as long as this run)").
pub fn suggest_hold_awake(
    doc: &concbench_core::ResultDoc,
    rerun: &str,
) -> Option<concbench_core::RunWarning> {
    if doc.held_awake().is_some() {
        return None;
    }
    let bimodal: Vec<String> = doc
        .results
        .iter()
        .filter(|r| r.family == "switch" && r.modes.len() > 1)
        .filter(|r| r.params.get_str("placement") != Some("same-cpu"))
        .map(|r| r.id.clone())
        .collect();
    (!bimodal.is_empty()).then(|| concbench_core::RunWarning::HoldAwake {
        results: bimodal,
        rerun: rerun.to_string(),
    })
}

/// The "did it really switch?" check for experiments that state their expected switches.
///
/// Counts voluntary and involuntary switches together: on one CPU a woken thread often preempts
/// the thread that woke it (measured: about 0.57 voluntary + 0.43 involuntary per pipe
/// hand-over under SCHED_OTHER, 1.00 + 0 under SCHED_FIFO), and a `sched_yield` switch is
/// involuntary by definition. Either way the CPU switched once per hand-over; what the check
/// must catch is a hand-over that did not switch at all.
pub fn mechanism_not_exercised(raw: &RawMeasurement, entry: &ResultEntry) -> Option<String> {
    let expected = raw.meta.expected_switches_per_op?;
    if entry.params.get_str("placement") != Some("same-cpu") {
        // Across CPUs a waiter may spin or find work already done: fewer switches are legitimate.
        return None;
    }
    let voluntary = *entry.counters.get("voluntary_switches_per_op")?;
    let involuntary = entry
        .counters
        .get("involuntary_switches_per_op")
        .copied()
        .unwrap_or(0.0);
    let measured = voluntary + involuntary;
    (measured < SWITCH_SHORTFALL * expected).then(|| {
        format!(
            "mechanism not exercised: {measured:.2} context switches per operation \
             ({voluntary:.2} voluntary + {involuntary:.2} involuntary) where {expected:.1} were \
             expected on one CPU; the hand-over did not switch (spinning, batching, or the \
             partner not on this CPU?), so this is not the cost of a context switch"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_entry;
    use concbench_core::{Meta, Params, Usage};

    /// A switch measurement at `placement` whose every sample had these switches per op.
    fn switch_raw(placement: &str, voluntary: f64, involuntary: f64) -> RawMeasurement {
        let meta = Meta {
            id: "switch.synthetic",
            family: "switch",
            title: "synthetic",
            op: "one hand-over",
            unit: "ns",
            expected_switches_per_op: Some(1.0),
        };
        let params = Params::new().with("placement", placement);
        let mut raw = RawMeasurement::from_values(meta, params, vec![2000.0; 5]);
        for u in &mut raw.usage_per_op {
            *u = Usage {
                voluntary_switches: voluntary,
                involuntary_switches: involuntary,
                ..Default::default()
            };
        }
        raw
    }

    fn warned(raw: &RawMeasurement) -> bool {
        build_entry(&[concbench_core::RoundRaw {
            raw: raw.clone(),
            facts: Default::default(),
        }])
        .warnings
        .iter()
        .any(|w| w.starts_with("mechanism not exercised"))
    }

    /// A cross-CPU round whose samples took `value` ns and slept `sleeps` times per hand-over.
    fn sleepy_round(value: f64, sleeps: f64) -> concbench_core::RoundRaw {
        let mut raw = switch_raw("cross-cpu", 1.0, 0.0);
        raw.values = vec![value; 5];
        raw.metrics
            .insert(IDLE_SLEEPS_PER_OP.to_string(), vec![sleeps; 5]);
        concbench_core::RoundRaw {
            raw,
            facts: Default::default(),
        }
    }

    /// Twelve rounds: half fast with an awake partner, half slow with a sleeping one.
    fn bimodal_entry() -> ResultEntry {
        let rounds: Vec<_> = (0..12)
            .map(|i| match i % 2 {
                0 => sleepy_round(3000.0 + i as f64, 0.0),
                _ => sleepy_round(20000.0 + i as f64, 0.8),
            })
            .collect();
        build_entry(&rounds)
    }

    #[test]
    fn a_bimodal_hand_over_says_which_mode_found_a_cpu_asleep() {
        let e = bimodal_entry();
        assert_eq!(e.modes.len(), 2, "{:?}", e.modes);
        let w = e
            .warnings
            .iter()
            .find(|w| w.contains("separate modes"))
            .expect("a bimodal warning");
        assert!(w.contains("0.00 in the mode near 3"), "{w}");
        assert!(w.contains("0.80 in the mode near 2"), "{w}");
    }

    #[test]
    fn a_run_with_bimodal_wake_ups_suggests_hold_awake_unless_it_held_them() {
        let mut doc = concbench_core::ResultDoc::new(Default::default(), "now".into());
        doc.results.push(bimodal_entry());
        let w = suggest_hold_awake(&doc, "`concbench run --hold-awake` (about 9 s)")
            .expect("a suggestion")
            .to_string();
        assert!(
            w.contains("`concbench run --hold-awake` (about 9 s) measures")
                && w.contains("switch.synthetic"),
            "{w}"
        );
        doc.settings.insert(
            concbench_core::HOLD_AWAKE_SETTING.into(),
            serde_json::json!({"held": true, "method": "spinner", "note": "n"}),
        );
        assert_eq!(suggest_hold_awake(&doc, "x"), None);
    }

    #[test]
    fn a_same_cpu_hand_over_without_switches_is_flagged() {
        assert!(warned(&switch_raw("same-cpu", 0.0, 0.0)));
        assert!(warned(&switch_raw("same-cpu", 0.1, 0.2)));
    }

    #[test]
    fn one_switch_per_hand_over_is_not_flagged_whether_voluntary_or_preempted() {
        assert!(!warned(&switch_raw("same-cpu", 1.0, 0.0)));
        // A woken thread preempting its waker: half the switches are involuntary.
        assert!(!warned(&switch_raw("same-cpu", 0.5, 0.5)));
        // sched_yield: all involuntary.
        assert!(!warned(&switch_raw("same-cpu", 0.0, 1.0)));
    }

    #[test]
    fn other_placements_and_non_switch_experiments_are_not_checked() {
        assert!(!warned(&switch_raw("cross-cpu", 0.0, 0.0)));
        assert!(!warned(&switch_raw("unpinned", 0.0, 0.0)));
        let mut create = switch_raw("same-cpu", 0.0, 0.0);
        create.meta.expected_switches_per_op = None;
        assert!(!warned(&create));
    }
}
