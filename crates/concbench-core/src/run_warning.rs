//! A run-wide warning, typed: what went wrong with the whole run (a busy machine, a budget spent
//! with checks open, a check on its margin...) as data, and its sentence said in one place
//! ([`RunWarning`]'s `Display`, and [`RunWarning::brief`] for the first screen).
//!
//! Why typed: the terminal shortens a warning that names claims with their conditions to the
//! claims alone. It once found them by splitting the sentence on ": " and searching it for
//! "{claim} at ", so rewording the sentence where it was written silently stopped the
//! shortening. Now a renderer matches the variant and never reads the prose.
//!
//! In the document (`concbench/result/v1`) the warnings stay what older readers know,
//! `warnings: [string]` (each warning's sentence), and `warning_kinds` holds the same warnings
//! typed, in the same order. A document from before `warning_kinds` is read with each sentence
//! as [`RunWarning::Text`]; so is a kind this build does not know (a newer build's).

use serde::{Deserialize, Serialize};
use std::fmt;

/// One run-wide warning, each saying what to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunWarning {
    /// The clock source is not the TSC: every clock read is a system call.
    Clocksource { clocksource: String },
    /// A cgroup CPU quota below the machine's CPUs applied.
    CpuQuota { cpus: f64 },
    /// A claim's rule names a result this build does not register (a build defect).
    BrokenSelector { check: String },
    /// The machine was not known to be quiet before the run measured: other processes still
    /// used `others` CPUs after `waited_s` (`None`: /proc/stat could not be read).
    Unsettled { others: Option<f64>, waited_s: f64 },
    /// The hypervisor stole this share of the CPU time during the run.
    Steal { share: f64 },
    /// Another concbench run (as it describes itself) measured beside this one.
    OverlappingRun { run: String },
    /// The base passes alone spent the budget while checks were undecided.
    BaseOverran {
        took_s: f64,
        budget_s: f64,
        claim_rounds: usize,
        suggested_budget_s: f64,
    },
    /// The budget gave `figures` variants their first round only; `claims` are those they
    /// would have decided.
    ShortOfBase {
        budget_s: f64,
        figures: usize,
        claims: Vec<String>,
        claim_rounds: usize,
        suggested_budget_s: f64,
    },
    /// `figures` variants read by `claims` kept their first round: no undecided check compared
    /// them after it.
    Withheld { figures: usize, claims: Vec<String> },
    /// The budget grew after the first pass so that every deciding check may get `rounds`.
    BudgetGrew {
        from_s: f64,
        to_s: f64,
        rounds: usize,
    },
    /// `figures` variants no verdict reads were not measured: the budget was spent first.
    Unmeasured { figures: usize, budget_s: f64 },
    /// Checks were still inconclusive at the budget or the round cap: `undecided` names the
    /// verdicts still inconclusive, `decided_by_others` counts those their other checks decided.
    StillOpen {
        budget_s: f64,
        max_rounds: usize,
        undecided: Vec<String>,
        decided_by_others: usize,
    },
    /// Checks inconclusive because their quantity sits on the rule's margin.
    OnMargin { checks: Vec<MarginCheck> },
    /// The validation gate bounded a figure (of the run, or of its history when `history`).
    ValidationGate {
        found: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        history: bool,
    },
    /// Cross-CPU or unpinned switch results fell into separate modes; `rerun` is the command
    /// that measures them with the CPUs held awake, with how long it takes.
    HoldAwake { results: Vec<String>, rerun: String },
    /// A warning known only by its sentence: a document from before `warning_kinds`, or a kind
    /// this build does not know.
    Text { text: String },
}

/// One check on its margin: its claim, and its condition when the claim has several checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginCheck {
    pub claim: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

impl RunWarning {
    /// The warning for the first screen: one that names checks by their conditions names their
    /// claims alone, each once (the conditions are in `--all`); any other is its sentence.
    pub fn brief(&self) -> String {
        match self {
            RunWarning::OnMargin { checks } if checks.iter().any(|c| c.condition.is_some()) => {
                let mut claims: Vec<&str> = Vec::new();
                for c in checks {
                    if !claims.contains(&c.claim.as_str()) {
                        claims.push(&c.claim);
                    }
                }
                format!(
                    "{ON_MARGIN}: {} (each condition with --all)",
                    claims.join(", ")
                )
            }
            _ => self.to_string(),
        }
    }
}

const ON_MARGIN: &str = "inconclusive because a measured quantity sits on its rule's margin, \
                         where more rounds would decide it only by chance";

impl fmt::Display for RunWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunWarning::Clocksource { clocksource } => write!(
                f,
                "clocksource is {clocksource}, not tsc: every clock read is a slow system call, \
                 inflating short samples"
            ),
            RunWarning::CpuQuota { cpus } => write!(
                f,
                "a cgroup CPU quota of {cpus:.2} CPUs applies: throttling can stretch samples"
            ),
            RunWarning::BrokenSelector { check } => write!(
                f,
                "the rule of {check} names a result this build does not have; that check cannot \
                 be judged (a renamed experiment or param: please report it)"
            ),
            RunWarning::Unsettled {
                others: Some(others),
                waited_s,
            } => write!(
                f,
                "other processes still used {others:.1} CPUs after waiting {waited_s:.0} s for \
                 the machine to settle; rounds taken under interference are left out and \
                 replaced, but close other programs for figures you can trust"
            ),
            RunWarning::Unsettled { others: None, .. } => write!(
                f,
                "whether other programs used the CPUs could not be told (/proc/stat could not be \
                 read), so rounds taken under interference cannot be found and left out; close \
                 other programs for figures you can trust"
            ),
            RunWarning::Steal { share } => write!(
                f,
                "the hypervisor took {:.1}% of the CPU time during the run (steal): other guests \
                 on the host competed with the measurement; rerun at a quieter time and compare \
                 the two runs (`concbench compare`) before trusting small differences",
                share * 100.0
            ),
            RunWarning::OverlappingRun { run } => write!(
                f,
                "another concbench run ({run}) measured on this machine during this run: both \
                 runs' figures are disturbed by it; rerun alone before trusting them"
            ),
            RunWarning::BaseOverran {
                took_s,
                budget_s,
                claim_rounds,
                suggested_budget_s,
            } => {
                let span = if *claim_rounds == 6 {
                    " (a 95% interval of six rounds spans their min to max)"
                } else {
                    ""
                };
                write!(
                    f,
                    "the base passes alone took {took_s:.0} s of the {budget_s:.0}-s budget, so \
                     no undecided check got a round beyond its first {claim_rounds}{span}; on a \
                     quieter machine, or with --budget {suggested_budget_s:.0}, they get rounds \
                     to decide"
                )
            }
            RunWarning::ShortOfBase {
                budget_s,
                figures: n,
                claims,
                claim_rounds,
                suggested_budget_s,
            } => {
                let of = if claims.is_empty() {
                    String::new()
                } else {
                    format!(" (deciding {})", claims.join(", "))
                };
                write!(
                    f,
                    "the budget ({budget_s:.0} s) had room for one round only of {}{of}, not the \
                     {claim_rounds} an interval needs: their dearer rounds would have left the \
                     undecided checks none; --budget {suggested_budget_s:.0} measures them too",
                    figures(*n)
                )
            }
            RunWarning::Withheld { figures: n, claims } => write!(
                f,
                "{} read by {} kept their first round only: no undecided check compared them \
                 after it (a guard withheld it, or they are shown beside; each verdict says which)",
                figures(*n),
                claims.join(", ")
            ),
            RunWarning::BudgetGrew {
                from_s,
                to_s,
                rounds,
            } => write!(
                f,
                "the budget grew from {from_s:.0} s to {to_s:.0} s after the first pass, so that \
                 every deciding check of this run may get up to {rounds} rounds (replicate \
                 --quick; `--budget` fixes it)"
            ),
            RunWarning::Unmeasured {
                figures: n,
                budget_s,
            } => {
                let was = if *n == 1 { "was" } else { "were" };
                write!(
                    f,
                    "{} no verdict reads {was} not measured: the budget ({budget_s:.0} s) was \
                     spent first; each is listed as skipped with the way to measure it",
                    figures(*n)
                )
            }
            RunWarning::StillOpen {
                budget_s,
                max_rounds,
                undecided,
                decided_by_others,
            } => {
                let also = match decided_by_others {
                    0 => String::new(),
                    1 => "1 verdict its other checks decided".to_string(),
                    n => format!("{n} verdicts their other checks decided"),
                };
                let named = match (undecided.is_empty(), also.is_empty()) {
                    (true, _) => also,
                    (false, true) => undecided.join(", "),
                    (false, false) => format!("{}, and in {also}", undecided.join(", ")),
                };
                write!(
                    f,
                    "a check was still inconclusive when the budget ({budget_s:.0} s) or the \
                     round cap ({max_rounds}) was reached in: {named}; a longer run (--budget, \
                     or without --quick) may decide it"
                )
            }
            RunWarning::OnMargin { checks } => {
                let named: Vec<String> = checks
                    .iter()
                    .map(|c| match &c.condition {
                        Some(condition) => format!("{} at {condition}", c.claim),
                        None => c.claim.clone(),
                    })
                    .collect();
                write!(f, "{ON_MARGIN}: {}", named.join(", "))
            }
            RunWarning::ValidationGate { found, history } => {
                let of = if *history { " of the history" } else { "" };
                write!(
                    f,
                    "the validation gate held a figure{of} to what it can be: {found}; please \
                     report it"
                )
            }
            RunWarning::HoldAwake { results, rerun } => {
                let first = results.first().map_or("", String::as_str);
                let more = if results.len() > 1 { ", ..." } else { "" };
                write!(
                    f,
                    "{} cross-CPU or unpinned switch result(s) ({first}{more}) fall into separate \
                     modes: a wake-up costs more when the other CPU was asleep; {rerun} measures \
                     them with the CPUs held awake, and `concbench check` shows the idle settings",
                    results.len()
                )
            }
            RunWarning::Text { text } => f.write_str(text),
        }
    }
}

/// "1 figure", "5 figures".
fn figures(n: usize) -> String {
    match n {
        1 => "1 figure".to_string(),
        n => format!("{n} figures"),
    }
}

/// A document's run-wide warnings: in JSON, `warnings` (their sentences, as older readers know
/// them) and `warning_kinds` (the same warnings typed, in the same order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunWarnings(pub Vec<RunWarning>);

impl std::ops::Deref for RunWarnings {
    type Target = Vec<RunWarning>;
    fn deref(&self) -> &Vec<RunWarning> {
        &self.0
    }
}

impl std::ops::DerefMut for RunWarnings {
    fn deref_mut(&mut self) -> &mut Vec<RunWarning> {
        &mut self.0
    }
}

impl From<Vec<RunWarning>> for RunWarnings {
    fn from(warnings: Vec<RunWarning>) -> Self {
        RunWarnings(warnings)
    }
}

impl<'a> IntoIterator for &'a RunWarnings {
    type Item = &'a RunWarning;
    type IntoIter = std::slice::Iter<'a, RunWarning>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// The two JSON fields of [`RunWarnings`].
#[derive(Serialize, Deserialize)]
struct WarningsJson {
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    warning_kinds: Vec<serde_json::Value>,
}

impl Serialize for RunWarnings {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kinds = self
            .0
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<Vec<_>, _>>()
            .map_err(serde::ser::Error::custom)?;
        WarningsJson {
            warnings: self.0.iter().map(ToString::to_string).collect(),
            warning_kinds: kinds,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RunWarnings {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = WarningsJson::deserialize(deserializer)?;
        // The kinds are read only when they stand beside the sentences one for one; a kind this
        // build does not know keeps its sentence.
        let typed = json.warning_kinds.len() == json.warnings.len();
        let warnings = json
            .warnings
            .into_iter()
            .enumerate()
            .map(|(i, text)| {
                typed
                    .then(|| serde_json::from_value(json.warning_kinds[i].clone()).ok())
                    .flatten()
                    .unwrap_or(RunWarning::Text { text })
            })
            .collect();
        Ok(RunWarnings(warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn margin(checks: &[(&str, Option<&str>)]) -> RunWarning {
        RunWarning::OnMargin {
            checks: checks
                .iter()
                .map(|(claim, condition)| MarginCheck {
                    claim: claim.to_string(),
                    condition: condition.map(str::to_string),
                })
                .collect(),
        }
    }

    #[test]
    fn the_brief_form_names_each_claim_once_whatever_its_conditions_say() {
        // A condition that reads like another claim's ("S1.lock at ...") and one with ": " in
        // it: the brief form is built from the claims, not from the sentence.
        let w = margin(&[
            ("S0.print", Some("COUNT = 500: S1.lock at 100 threads")),
            ("S0.create", None),
            ("S0.print", Some("COUNT = 5")),
        ]);
        assert_eq!(
            w.brief(),
            format!("{ON_MARGIN}: S0.print, S0.create (each condition with --all)")
        );
        assert!(w.to_string().contains("S0.print at COUNT = 5"), "{w}");
        // Claims alone are their sentence already.
        let plain = margin(&[("S0.create", None)]);
        assert_eq!(plain.brief(), plain.to_string());
    }

    #[test]
    fn a_text_warning_is_never_shortened_even_when_it_reads_like_a_margin_warning() {
        let text = margin(&[("S0.print", Some("COUNT = 5"))]).to_string();
        let w = RunWarning::Text { text: text.clone() };
        assert_eq!(w.brief(), text);
    }

    #[test]
    fn warnings_keep_their_sentences_for_older_readers_and_their_kinds_for_this_one() {
        let ws = RunWarnings(vec![
            RunWarning::Steal { share: 0.125 },
            margin(&[("S0.print", Some("COUNT = 5"))]),
        ]);
        let json = serde_json::to_value(&ws).unwrap();
        assert_eq!(json["warnings"][0], ws[0].to_string());
        assert_eq!(json["warning_kinds"][0]["kind"], "steal");
        assert_eq!(json["warning_kinds"][1]["kind"], "on_margin");
        let back: RunWarnings = serde_json::from_value(json).unwrap();
        assert_eq!(back, ws);
    }

    #[test]
    fn an_older_document_and_an_unknown_kind_are_read_as_their_sentences() {
        let old: RunWarnings = serde_json::from_value(serde_json::json!({
            "warnings": ["the machine was busy"]
        }))
        .unwrap();
        assert_eq!(
            old.0,
            [RunWarning::Text {
                text: "the machine was busy".into()
            }]
        );
        let newer: RunWarnings = serde_json::from_value(serde_json::json!({
            "warnings": ["a", "the hypervisor took ..."],
            "warning_kinds": [{"kind": "from_the_future"}, {"kind": "steal", "share": 0.5}]
        }))
        .unwrap();
        assert_eq!(newer[0], RunWarning::Text { text: "a".into() });
        assert_eq!(newer[1], RunWarning::Steal { share: 0.5 });
    }
}
