//! How far a result moves between two runs of one build on one machine: what `compare` counts
//! beside the rounds' own noise, so that an A/A pair is not called a change.
//!
//! Two sources, said in the output:
//!
//! * **The host's history**: the stored runs of the same machine, build and mode class as B
//!   (A and B themselves left out: a real change between them must not widen its own interval).
//!   With at least [`HISTORY_MIN_RUNS`] of them holding the result (same id, params and
//!   quantity), its run-level standard deviation τ is the random-effects one over their rounds,
//!   on logarithms — the spread between runs the pooled verdicts count.
//! * **A floor** otherwise: a τ per family and placement measured on a 2-CPU KVM VM from
//!   back-to-back quick runs of one build ([`FLOOR`]; `bench/run-variation.py --floor`
//!   re-measures it on any machine, docs/CI.md has the figures). Why by placement: a hand-over
//!   across CPUs wakes a CPU whose idle state varies from run to run, and an unpinned figure
//!   shares its CPUs with whatever else runs: both moved far more between runs (median τ 0.15,
//!   against 0.008 on one CPU). The price of a floor is sensitivity: across CPUs it hides changes
//!   of 2x and more, which a history of the build's own runs (its own τ per result) does not.

use concbench_core::{Quantity, ResultDoc, ResultEntry};
use concbench_stats::random_effects;
use std::collections::BTreeMap;

/// Runs (other than A and B) a result needs in the history before its own τ is used: with
/// fewer, τ rests on too few differences between run medians (three runs gave a τ of zero to
/// results that moved 20% between other runs).
pub const HISTORY_MIN_RUNS: usize = 5;

/// The floor's τ (log scale), by family and by where a result ran (`true`: across CPUs or
/// unpinned): the 90th percentile of the family's τ over five back-to-back quick runs of one
/// build on the 2-CPU KVM development VM, 2026-11-28, while two other builds ran beside them
/// (load average 10-16: the upper side of what a quiet machine shows). A family with fewer than
/// five results in those runs takes its class's ([`FLOOR_SAME_CPU`], [`FLOOR_ACROSS_CPUS`]).
/// `python3 bench/run-variation.py --floor RUN.json...` prints this table from any runs.
pub const FLOOR: &[(&str, bool, f64)] = &[
    ("create", false, 0.060),
    ("memory", false, 0.003),
    ("probes", false, 0.082),
    ("share", false, 0.052),
    ("switch", false, 0.160),
    ("workload", false, 0.369),
    ("contend", true, 0.507),
    ("io", true, 0.525),
    ("server", true, 0.323),
    ("share", true, 0.801),
    ("switch", true, 1.086),
    ("workload", true, 0.525),
];

/// The floor's τ for a result on one CPU (or without placement) of a family [`FLOOR`] does not
/// list: the 90th percentile over all such results in the same runs.
pub const FLOOR_SAME_CPU: f64 = 0.130;

/// The same for a result across CPUs or unpinned.
pub const FLOOR_ACROSS_CPUS: f64 = 0.565;

/// Where a result's run-to-run variation comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Counted {
    /// No variation between runs counted: the rounds alone (the comparison of two samples).
    RoundsOnly,
    /// The host's history: τ over this many runs.
    History { tau: f64, runs: usize },
    /// The stated floor for its class.
    Floor { tau: f64 },
}

impl Counted {
    /// The run-level standard deviation counted (log scale).
    pub fn tau(self) -> f64 {
        match self {
            Counted::RoundsOnly => 0.0,
            Counted::History { tau, .. } | Counted::Floor { tau } => tau,
        }
    }
}

/// What `compare` counts between two runs, result by result.
#[derive(Debug, Clone, Default)]
pub struct RunVariation {
    /// Per result (id, params): τ from the history and the runs it rests on.
    history: BTreeMap<Key, (f64, usize)>,
    /// The history it came from ("12 runs of concbench 0.1.0, quick, on vm"), when one was read.
    pub history_label: Option<String>,
    /// No floor: the rounds alone (a comparison of two samples, as before run variation).
    rounds_only: bool,
}

impl RunVariation {
    /// The rounds alone: two runs compared as two samples, no variation between runs counted.
    pub fn rounds_only() -> Self {
        RunVariation {
            rounds_only: true,
            ..Default::default()
        }
    }

    /// From the stored runs `history` (compatible with B, without A and B), described by
    /// `label`; the floor for results they hold too rarely. No runs: the floor for every result.
    pub fn from_history(history: &[&ResultDoc], label: Option<String>) -> Self {
        let mut values: BTreeMap<Key, (Quantity, Vec<Vec<f64>>)> = BTreeMap::new();
        for doc in history {
            for e in &doc.results {
                let Some(logs) = log_rounds(e) else { continue };
                let slot = values
                    .entry(key(e))
                    .or_insert_with(|| (e.quantity(), Vec::new()));
                if slot.0 == e.quantity() {
                    slot.1.push(logs);
                }
            }
        }
        let history = values
            .into_iter()
            .filter(|(_, (_, runs))| runs.len() >= HISTORY_MIN_RUNS)
            .filter_map(|(k, (_, runs))| {
                let slices: Vec<&[f64]> = runs.iter().map(Vec::as_slice).collect();
                let pooled = random_effects(&slices, 0.95)?;
                Some((k, (pooled.tau, runs.len())))
            })
            .collect();
        RunVariation {
            history,
            history_label: label,
            rounds_only: false,
        }
    }

    /// What is counted for `e` (B's result).
    pub fn for_entry(&self, e: &ResultEntry) -> Counted {
        if self.rounds_only {
            return Counted::RoundsOnly;
        }
        match self.history.get(&key(e)) {
            Some(&(tau, runs)) => Counted::History { tau, runs },
            None => Counted::Floor { tau: floor(e) },
        }
    }

    /// "run-to-run variation counted: from this host's history (12 runs …) for 118 results, the
    /// floor (τ 0.10 on one CPU, 0.25 across CPUs) for 16", from what the pairs used.
    pub fn sentence(&self, counted: &[Counted]) -> String {
        if self.rounds_only || counted.is_empty() {
            return "run-to-run variation not counted: the rounds alone".to_string();
        }
        let from_history = counted
            .iter()
            .filter(|c| matches!(c, Counted::History { .. }))
            .count();
        let floor = counted.len() - from_history;
        let floor_text = "the stated floor (τ by family and placement, from 0.003 for memory \
                          to 1.09 for switches across CPUs: measured between back-to-back quick \
                          runs, docs/CI.md)"
            .to_string();
        let mut parts = Vec::new();
        if from_history > 0 {
            parts.push(format!(
                "this host's history ({}) for {from_history} result(s)",
                self.history_label.as_deref().unwrap_or("stored runs")
            ));
        }
        if floor > 0 {
            let why = match &self.history_label {
                Some(_) if from_history == 0 => {
                    format!("; the history holds fewer than {HISTORY_MIN_RUNS} runs of each result")
                }
                Some(_) => String::new(),
                None => "; no stored run of this build and mode on this host".to_string(),
            };
            parts.push(format!("{floor_text} for {floor} result(s){why}"));
        }
        format!("run-to-run variation counted: {}", parts.join(", "))
    }
}

/// The floor's τ for a result: its family's where it ran ([`FLOOR`]), else its class's.
pub fn floor(e: &ResultEntry) -> f64 {
    let across = matches!(
        e.params.get_str("placement"),
        Some("cross-cpu" | "unpinned")
    );
    FLOOR
        .iter()
        .find(|(family, a, _)| *family == e.family && *a == across)
        .map(|(_, _, tau)| *tau)
        .unwrap_or(if across {
            FLOOR_ACROSS_CPUS
        } else {
            FLOOR_SAME_CPU
        })
}

/// A result's id and params (compact): what matches it across runs.
type Key = (String, String);

fn key(e: &ResultEntry) -> Key {
    (e.id.clone(), e.params.compact())
}

/// The logarithms of a result's usable rounds' values; `None` when there are none or one is not
/// positive.
fn log_rounds(e: &ResultEntry) -> Option<Vec<f64>> {
    Some(crate::verdicts::drift::log_values(e)).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{entry, entry_with};
    use concbench_core::Params;

    fn run(level: f64) -> ResultDoc {
        crate::synthetic::steady_run("switch.pipe.thread", level)
    }

    #[test]
    fn a_history_of_enough_runs_gives_each_result_its_own_spread() {
        let runs: Vec<ResultDoc> = [10.0, 12.0, 8.0, 11.0, 9.0]
            .iter()
            .map(|l| run(*l))
            .collect();
        let refs: Vec<&ResultDoc> = runs.iter().collect();
        let v = RunVariation::from_history(&refs, Some("5 runs".into()));
        let e = &runs[0].results[0];
        let Counted::History { tau, runs } = v.for_entry(e) else {
            panic!("{:?}", v.for_entry(e))
        };
        assert_eq!(runs, 5);
        assert!(tau > 0.1 && tau < 0.3, "{tau}");
        // Too few runs: the floor, and the sentence says why.
        let v = RunVariation::from_history(&refs[..3], Some("3 runs".into()));
        assert_eq!(v.for_entry(e), Counted::Floor { tau: floor(e) });
        let s = v.sentence(&[v.for_entry(e)]);
        assert!(s.contains("fewer than 5 runs"), "{s}");
    }

    #[test]
    fn without_history_each_result_gets_its_class_floor() {
        let v = RunVariation::from_history(&[], None);
        let across = entry_with(
            "switch.pipe.process",
            "ns",
            Params::new().with("placement", "cross-cpu"),
            &[1.0; 6],
        );
        assert_eq!(v.for_entry(&across), Counted::Floor { tau: 1.086 });
        let same = entry("switch.pipe.process", &[1.0; 6]);
        assert_eq!(v.for_entry(&same).tau(), 0.160);
        // A family the table does not list takes its class's.
        let syscall = entry("syscall.getppid", &[1.0; 6]);
        assert_eq!(v.for_entry(&syscall).tau(), FLOOR_SAME_CPU);
        assert!(v
            .sentence(&[v.for_entry(&same)])
            .contains("no stored run of this build and mode"));
        assert_eq!(
            RunVariation::rounds_only().for_entry(&same),
            Counted::RoundsOnly
        );
    }
}
