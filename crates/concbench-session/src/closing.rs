//! The warnings a run closes with — a machine that never settled, base passes that spent the
//! budget, figures left at their first round, a budget that grew, figures left unmeasured,
//! checks still open or on their margin — read from a plain summary of the run
//! ([`RunSummary`]), not from the run loop itself. Each is a typed [`RunWarning`]; its sentence
//! is said in `concbench_core::run_warning`.

use crate::plan::RunPlan;
use crate::settle::Settled;
use concbench_analysis::verdicts::Judged;
use concbench_core::{Check, MarginCheck, RunWarning, Verdict, VerdictKind};

/// Rounds that let one refuted condition among several clear Hochberg's correction
/// (docs/METHODOLOGY.md: with seven conditions, at least 9, all beyond the margin).
pub(crate) const CORRECTED_ROUNDS: usize = 9;

/// What a finished run's closing warnings read.
pub(crate) struct RunSummary<'a> {
    pub plan: &'a RunPlan,
    /// The budget after it grew for the deciding check sets, when it grew.
    pub grown: Option<f64>,
    /// Seconds the base passes took.
    pub base_took_s: f64,
    /// Stopped by Ctrl-C: nothing is blamed on the budget.
    pub cancelled: bool,
    pub settled: Option<Settled>,
    /// Figures no verdict reads that the budget left without a round.
    pub unmeasured: usize,
    /// Figures the budget gave their first round only while a deciding check wanted more.
    pub short: Option<LeftShort>,
    /// Figures kept at their first round because no undecided check compared them after it.
    pub withheld: Option<LeftAt>,
    /// Each verdict as judged at the end.
    pub verdicts: Vec<VerdictState>,
}

/// Figures left at their first round, and the claims that read them.
pub(crate) struct LeftAt {
    pub figures: usize,
    pub claims: Vec<String>,
}

/// Figures the budget left at their first round, the claims they would have decided, and what
/// their left-out rounds cost.
pub(crate) struct LeftShort {
    pub left: LeftAt,
    pub cost_s: f64,
}

/// A verdict as the closing warnings read it.
pub(crate) struct VerdictState {
    pub source: String,
    pub inconclusive: bool,
    /// A check that more rounds could decide is still undecided.
    pub open: bool,
    /// Its checks on their margin (empty unless it is undecided on its margin alone).
    pub on_margin: Vec<MarginCheck>,
}

impl VerdictState {
    pub fn of(j: &Judged<'_>) -> Self {
        let open = !j.undecided_checks.is_empty();
        // Named check by check: a verdict decided by its other checks (refuted, depends) keeps
        // its word, and the warning says which of its checks alone is inconclusive.
        let on_margin = if !j.undecided.is_empty() && !open {
            margin_checks(&j.verdict)
        } else {
            Vec::new()
        };
        VerdictState {
            source: j.verdict.source.clone(),
            inconclusive: j.verdict.verdict == VerdictKind::Inconclusive,
            open,
            on_margin,
        }
    }
}

impl RunSummary<'_> {
    /// The run's budget: the plan's, or what it grew to.
    fn budget_s(&self) -> f64 {
        self.grown.unwrap_or(self.plan.budget.as_secs_f64())
    }
}

/// The run's closing warnings, in the order the run says them.
pub(crate) fn warnings(s: &RunSummary<'_>) -> Vec<RunWarning> {
    let open: Vec<&VerdictState> = s.verdicts.iter().filter(|v| v.open).collect();
    let mut out: Vec<RunWarning> = s.settled.and_then(unsettled).into_iter().collect();
    out.extend(base_overran(s, open.len()));
    if !s.cancelled {
        out.extend(s.short.as_ref().map(|short| short_of_base(s, short)));
        out.extend(s.withheld.as_ref().map(|w| RunWarning::Withheld {
            figures: w.figures,
            claims: w.claims.clone(),
        }));
    }
    if let Some(grown) = s.grown {
        out.push(RunWarning::BudgetGrew {
            from_s: s.plan.budget.as_secs_f64(),
            to_s: grown,
            rounds: CORRECTED_ROUNDS.max(s.plan.claim_rounds),
        });
    }
    if s.unmeasured > 0 {
        out.push(RunWarning::Unmeasured {
            figures: s.unmeasured,
            budget_s: s.budget_s(),
        });
    }
    // Only when the plan allowed extra rounds at all: a smoke run (one round, a cap of one)
    // stopped nothing at a budget or a cap, and "a longer run may decide it" would be noise
    // under a run that is not a measurement.
    let could_add = s.plan.max_rounds > s.plan.claim_rounds;
    if !open.is_empty() && could_add && !s.cancelled {
        // Named are the verdicts still inconclusive; those their other checks decided are
        // counted, so that the warning names no verdict the table calls decided.
        let undecided: Vec<String> = (open.iter())
            .filter(|v| v.inconclusive)
            .map(|v| v.source.clone())
            .collect();
        out.push(RunWarning::StillOpen {
            budget_s: s.budget_s(),
            max_rounds: s.plan.max_rounds,
            decided_by_others: open.len() - undecided.len(),
            undecided,
        });
    }
    let on_margin: Vec<MarginCheck> = (s.verdicts.iter())
        .flat_map(|v| v.on_margin.iter().cloned())
        .collect();
    if !on_margin.is_empty() && !s.cancelled {
        out.push(RunWarning::OnMargin { checks: on_margin });
    }
    out
}

/// What a run says when the machine was not known to be quiet before it measured.
fn unsettled(s: Settled) -> Option<RunWarning> {
    (!s.quiet).then_some(RunWarning::Unsettled {
        others: s.others,
        waited_s: s.waited.as_secs_f64(),
    })
}

/// The warning for a run whose base passes spent its whole budget while `open` claims were
/// undecided. Why say it apart from the open checks: the remedy differs. An open check after
/// adaptive rounds is a close call; here no check had a round beyond its first six (whose 95%
/// interval is [min, max]), because the machine was slower than the budget assumes — measured
/// on 2026-11-26, a full run's base passes took 545-557 s of its 540 s.
fn base_overran(s: &RunSummary<'_>, open: usize) -> Option<RunWarning> {
    let (took, budget) = (s.base_took_s, s.budget_s());
    if open == 0 || took < budget || s.cancelled {
        return None;
    }
    // A budget that leaves the undecided checks a quarter of it beyond the base passes,
    // rounded up to a minute.
    Some(RunWarning::BaseOverran {
        took_s: took,
        budget_s: budget,
        claim_rounds: s.plan.claim_rounds,
        suggested_budget_s: ((took / 0.75) / 60.0).ceil() * 60.0,
    })
}

/// The warning for figures the budget gave their first round only, with the budget that would
/// measure them: what their left-out rounds add, given the share base rounds may take and the
/// reserve kept for adaptive rounds (a share of the budget, so it grows too).
fn short_of_base(s: &RunSummary<'_>, short: &LeftShort) -> RunWarning {
    let budget = s.budget_s();
    let needed = (budget + short.cost_s / s.plan.base_share) / (1.0 - s.plan.reserve);
    RunWarning::ShortOfBase {
        budget_s: budget,
        figures: short.left.figures,
        claims: short.left.claims.clone(),
        claim_rounds: s.plan.claim_rounds,
        suggested_budget_s: (needed / 60.0).ceil() * 60.0,
    }
}

/// "S0.print at COUNT = 500": each inconclusive check of a verdict, named by its claim and its
/// condition (the claim alone when it has one check, or no open one).
fn margin_checks(v: &Verdict) -> Vec<MarginCheck> {
    let open: Vec<&Check> = (v.checks.iter())
        .filter(|c| c.decision == VerdictKind::Inconclusive && !c.beside)
        .collect();
    if open.is_empty() || v.checks.len() == 1 {
        return vec![MarginCheck {
            claim: v.source.clone(),
            condition: None,
        }];
    }
    open.iter()
        .map(|c| MarginCheck {
            claim: v.source.clone(),
            condition: Some(c.condition.clone()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::RunMode;
    use std::time::Duration;

    fn check(condition: &str, decision: VerdictKind) -> Check {
        concbench_analysis::synthetic::check(condition, "t / p >= 0.870", 0.9, decision)
    }

    #[test]
    fn regression_the_margin_warning_named_refuted_verdicts_as_inconclusive() {
        // S0.print: refuted at COUNT = 5, its COUNT = 500 check alone on the margin.
        let v = Verdict {
            claim: "threads print faster".into(),
            source: "S0.print".into(),
            verdict: VerdictKind::Refuted,
            evidence: Vec::new(),
            explanation: String::new(),
            checks: vec![
                check("COUNT = 5", VerdictKind::Refuted),
                check("COUNT = 500", VerdictKind::Inconclusive),
            ],
            rounds: Some(6),
            robustness: Some(1.0),
            unmeasured: Vec::new(),
            judged: Default::default(),
            full_run: Vec::new(),
        };
        let named: Vec<String> = (margin_checks(&v).into_iter())
            .map(|c| format!("{} at {}", c.claim, c.condition.unwrap_or_default()))
            .collect();
        assert_eq!(named, ["S0.print at COUNT = 500"]);
    }

    fn summary(plan: &RunPlan) -> RunSummary<'_> {
        RunSummary {
            plan,
            grown: None,
            base_took_s: 0.0,
            cancelled: false,
            settled: None,
            unmeasured: 0,
            short: None,
            withheld: None,
            verdicts: Vec::new(),
        }
    }

    #[test]
    fn regression_an_unreadable_proc_stat_is_said_not_taken_for_quiet() {
        let unknown = Settled {
            waited: Duration::from_millis(300),
            others: None,
            quiet: false,
        };
        let w = unsettled(unknown).expect("a warning").to_string();
        assert!(w.contains("could not be told"), "{w}");
        let quiet = Settled {
            others: Some(0.01),
            quiet: true,
            ..unknown
        };
        assert_eq!(unsettled(quiet), None);
        let busy = Settled {
            others: Some(1.2),
            quiet: false,
            ..unknown
        };
        assert!(unsettled(busy).unwrap().to_string().contains("1.2 CPUs"));
    }

    #[test]
    fn a_cancelled_run_blames_nothing_on_the_budget() {
        let plan = RunPlan::new(RunMode::Quick);
        let open = VerdictState {
            source: "S0.create".into(),
            inconclusive: true,
            open: true,
            on_margin: vec![MarginCheck {
                claim: "S0.print".into(),
                condition: None,
            }],
        };
        let left = LeftAt {
            figures: 2,
            claims: vec!["S0.create".into()],
        };
        let mut s = RunSummary {
            base_took_s: 1e6,
            short: Some(LeftShort {
                left: LeftAt {
                    figures: 2,
                    claims: vec!["S0.create".into()],
                },
                cost_s: 10.0,
            }),
            withheld: Some(left),
            verdicts: vec![open],
            ..summary(&plan)
        };
        let kinds = |s: &RunSummary<'_>| -> Vec<String> {
            (warnings(s).iter())
                .map(|w| serde_json::to_value(w).unwrap()["kind"].to_string())
                .collect()
        };
        assert_eq!(
            kinds(&s),
            [
                "\"base_overran\"",
                "\"short_of_base\"",
                "\"withheld\"",
                "\"still_open\"",
                "\"on_margin\""
            ]
        );
        s.cancelled = true;
        assert!(kinds(&s).is_empty(), "{:?}", kinds(&s));
    }
}
