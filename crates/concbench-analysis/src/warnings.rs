//! When a number should not be trusted, and what the user can do about it.
//!
//! Each warning is one sentence naming the problem and the remedy (hyperfine's style).

use concbench_core::{RawMeasurement, ResultEntry};
use concbench_stats::{tukey_outliers, Stats};

/// The CI half-width, relative to the median, above which a result is called noisy.
pub const NOISY_RELATIVE_HALF_WIDTH: f64 = 0.10;

/// A switch experiment that caused fewer than this fraction of its expected voluntary switches
/// did not exercise the mechanism it names.
pub const SWITCH_SHORTFALL: f64 = 0.5;

/// Warnings about one measured variant, from its samples and counters.
pub fn for_measurement(raw: &RawMeasurement, entry: &ResultEntry, stats: &Stats) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(w) = mechanism_not_exercised(raw, entry) {
        out.push(w);
    }
    if raw.values.len() > 1 && stats.relative_ci_half_width() > NOISY_RELATIVE_HALF_WIDTH {
        out.push(format!(
            "noisy: the 95% CI spans +-{:.0}% of the median; close other programs or rerun with \
             more repetitions (--repeat 30)",
            stats.relative_ci_half_width() * 100.0
        ));
    }
    let outliers = tukey_outliers(&raw.values);
    if outliers.high_severe + outliers.low_severe > 0 {
        out.push(format!(
            "{} of {} samples are severe outliers (something else ran during them); the median \
             is robust to them, but rerun if the CI is wide",
            outliers.high_severe + outliers.low_severe,
            raw.values.len()
        ));
    }
    let shortest = raw.sample_ns.iter().cloned().fold(f64::INFINITY, f64::min);
    if shortest.is_finite() && shortest < 0.1 * raw.target_sample_ns && raw.target_sample_ns > 0.0 {
        out.push(format!(
            "samples lasted only {:.0} us (target {:.0} us): timer resolution and scheduling \
             noise weigh on each one",
            shortest / 1e3,
            raw.target_sample_ns / 1e3
        ));
    }
    out
}

/// The "did it really switch?" check for experiments that state their expected switches.
pub fn mechanism_not_exercised(raw: &RawMeasurement, entry: &ResultEntry) -> Option<String> {
    let expected = raw.meta.expected_switches_per_op?;
    if entry.params.get_str("placement") != Some("same-cpu") {
        // Across CPUs a waiter may spin or find work already done: fewer switches are legitimate.
        return None;
    }
    let measured = *entry.counters.get("voluntary_switches_per_op")?;
    (measured < SWITCH_SHORTFALL * expected).then(|| {
        format!(
            "mechanism not exercised: {measured:.2} voluntary context switches per operation \
             where {expected:.1} were expected; the hand-over did not block (spinning or \
             batching?), so this is not the cost of a context switch"
        )
    })
}
