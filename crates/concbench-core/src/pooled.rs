//! Verdicts judged over a host's history: this run together with the compatible runs stored on
//! the same machine, the run as the top level of the model (see
//! `concbench-analysis::verdicts::pooled`). Kept beside the run's own verdicts, never in their
//! place: a reader sees both "confirmed over 4 runs (62 rounds)" and what this run alone says.

use crate::mode::Mode;
use crate::verdict_kind::Judged;
use crate::verdict_kind::VerdictKind;
use serde::{Deserialize, Serialize};

/// The claims judged over this run and the compatible stored runs of its host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// Runs pooled, this one included.
    pub runs: usize,
    /// RFC 3339 start time of the oldest and of the newest run pooled.
    pub first: String,
    pub last: String,
    /// Stored runs of this host left out, each with the reason ("interrupted", "another mode
    /// class: full run", ...), so a reader knows why the count is what it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
    pub verdicts: Vec<PooledVerdict>,
    /// The results whose `ci95` includes the host's run-to-run drift, with their own interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<Drift>,
}

/// One claim judged over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PooledVerdict {
    /// The claim's id (`Verdict::source`).
    pub source: String,
    pub verdict: VerdictKind,
    /// This run's own verdict, for the line "confirmed over 4 runs …; this run alone: …".
    pub alone: VerdictKind,
    /// Runs that measured any of its deciding checks, and their rounds.
    pub runs: usize,
    pub rounds: usize,
    pub checks: Vec<PooledCheck>,
    /// `partly` unless the pooled runs, together, measured every deciding check (`unmeasured`
    /// lists those none of them did).
    #[serde(default)]
    pub judged: Judged,
    /// How much of the claim this run alone judged.
    #[serde(default)]
    pub alone_judged: Judged,
    /// The deciding checks none of the pooled runs measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmeasured: Vec<String>,
}

/// One check pooled over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PooledCheck {
    pub condition: String,
    pub rule: String,
    pub unit: String,
    /// The random-effects estimate and its 95% interval (None with fewer than two runs).
    pub estimate: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    /// The run-level spread: the standard deviation between runs beyond their rounds' noise,
    /// on the log scale for positive quantities (0.1: runs differ by about 10%).
    pub tau: Option<f64>,
    pub runs: usize,
    pub rounds: usize,
    pub decision: VerdictKind,
    /// This run's own decision.
    pub alone: VerdictKind,
    /// Shown beside another method's check, not deciding.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub beside: bool,
    /// The pooled rounds fall in separate modes: then no decision rests on their median.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<Mode>,
    /// With `modes`: the condition that separates them ("separated by idle state: …"), or why
    /// no condition can be named ("cause unknown: …").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub separation: String,
    /// Why it is as it is, when not plain ("bimodal", a guard, a correction).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl History {
    /// "4 runs, 2026-11-20 … 2026-11-26" (dates only).
    pub fn span(&self) -> String {
        let day = |s: &str| s.get(..10).unwrap_or(s).to_string();
        if day(&self.first) == day(&self.last) {
            format!("{} runs, {}", self.runs, day(&self.first))
        } else {
            format!(
                "{} runs, {} … {}",
                self.runs,
                day(&self.first),
                day(&self.last)
            )
        }
    }
}

impl History {
    /// "4 runs, 2026-11-20 … 2026-11-26; left out: 1 interrupted": the span and what was not
    /// pooled, for a report's heading.
    pub fn heading(&self) -> String {
        if self.excluded.is_empty() {
            self.span()
        } else {
            format!("{}; left out: {}", self.span(), self.excluded.join(", "))
        }
    }
}

impl History {
    /// "2 of 20 claims differ from this run alone: S0.create refuted (alone: inconclusive), ..."
    /// or "the same verdicts as this run alone".
    pub fn summary(&self) -> String {
        self.differences(true)
    }

    /// The same without each claim's own verdict: for a screen that shows this run's verdicts
    /// just above (a quick run's answer is held to 60 lines).
    pub fn brief(&self) -> String {
        self.differences(false)
    }

    fn differences(&self, with_alone: bool) -> String {
        let differ: Vec<String> = self
            .verdicts
            .iter()
            .filter(|v| v.verdict != v.alone || v.judged != v.alone_judged)
            .map(|v| match with_alone {
                true => format!("{} {} (alone: {})", v.source, v.word(), v.alone_word()),
                false => format!("{} {}", v.source, v.word()),
            })
            .collect();
        if differ.is_empty() {
            "the same verdicts as this run alone".to_string()
        } else {
            format!(
                "{} of {} claims differ from this run alone: {}",
                differ.len(),
                self.verdicts.len(),
                differ.join(", ")
            )
        }
    }
}

impl PooledVerdict {
    /// "confirmed over 4 runs (62 rounds); this run alone: inconclusive"; a claim measured in
    /// part keeps its qualifier on either side ("partly judged: refuted over 11 runs …").
    pub fn sentence(&self) -> String {
        format!(
            "{} over {} runs ({} rounds); this run alone: {}",
            self.word(),
            self.runs,
            self.rounds,
            self.alone_word()
        )
    }

    /// The pooled verdict's word with its qualifier ("partly judged: refuted").
    pub fn word(&self) -> String {
        self.judged.qualify(self.verdict, word(self.verdict))
    }

    /// This run's own verdict's word with its qualifier.
    pub fn alone_word(&self) -> String {
        self.alone_judged.qualify(self.alone, word(self.alone))
    }
}

fn word(k: VerdictKind) -> &'static str {
    match k {
        VerdictKind::Confirmed => "confirmed",
        VerdictKind::Refuted => "refuted",
        VerdictKind::Depends => "depends",
        VerdictKind::Inconclusive => "inconclusive",
    }
}

/// A result whose 95% interval was widened by the run-to-run drift of its host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    pub id: String,
    pub params: crate::Params,
    /// The run-level standard deviation of its median over the runs (log scale).
    pub tau: f64,
    /// Runs it was estimated from, this one included.
    pub runs: usize,
    /// The interval of this run's rounds alone, before widening.
    pub own_ci95: [f64; 2],
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(source: &str, verdict: VerdictKind, alone: VerdictKind) -> PooledVerdict {
        PooledVerdict {
            source: source.into(),
            verdict,
            alone,
            runs: 5,
            rounds: 30,
            checks: Vec::new(),
            judged: Judged::Whole,
            alone_judged: Judged::Whole,
            unmeasured: Vec::new(),
        }
    }

    fn history(verdicts: Vec<PooledVerdict>) -> History {
        History {
            runs: 5,
            first: "2026-11-27T03:36:00Z".into(),
            last: "2026-11-27T03:41:00Z".into(),
            excluded: Vec::new(),
            verdicts,
            drift: Vec::new(),
        }
    }

    #[test]
    fn regression_the_history_line_pushed_a_quick_answer_past_60_lines() {
        // The summary repeated each claim's own verdict ("(alone: inconclusive)"), which the
        // screen shows just above: three wrapped lines where two suffice.
        let h = history(vec![
            verdict("S0.create", VerdictKind::Refuted, VerdictKind::Inconclusive),
            verdict("S0.print", VerdictKind::Depends, VerdictKind::Inconclusive),
            verdict("S0.30x", VerdictKind::Refuted, VerdictKind::Refuted),
        ]);
        assert_eq!(
            h.brief(),
            "2 of 3 claims differ from this run alone: S0.create refuted, S0.print depends"
        );
        assert!(h.summary().contains("(alone: inconclusive)"));
    }

    #[test]
    fn regression_partly_judged_was_lost_on_the_pooled_line() {
        // `--only switch.pipe` gave "S0.table.create_switch partly judged: refuted"; the pooled
        // line said "refuted over 11 runs".
        let mut v = verdict(
            "S0.table.create_switch",
            VerdictKind::Refuted,
            VerdictKind::Refuted,
        );
        v.judged = Judged::Partly;
        v.alone_judged = Judged::Partly;
        assert_eq!(
            v.sentence(),
            "partly judged: refuted over 5 runs (30 rounds); this run alone: partly judged: refuted"
        );
        v.verdict = VerdictKind::Inconclusive;
        v.judged = Judged::Whole;
        assert!(v.sentence().starts_with("inconclusive over 5 runs"));
        let h = history(vec![v]);
        assert_eq!(
            h.summary(),
            "1 of 1 claims differ from this run alone: S0.table.create_switch inconclusive \
             (alone: partly judged: refuted)"
        );
    }

    #[test]
    fn a_history_that_agrees_says_so() {
        let h = history(vec![verdict(
            "S0.30x",
            VerdictKind::Refuted,
            VerdictKind::Refuted,
        )]);
        assert_eq!(h.brief(), "the same verdicts as this run alone");
    }
}
