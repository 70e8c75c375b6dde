//! Each claim judged over this run and the compatible stored runs of its host, the run as the
//! top level of the model (see [`super::compatible`] for which runs).
//!
//! Why: the rounds of one run describe that run; the development VM changed speed by 30-45%
//! within an afternoon, and a check on its margin changes between a decision and
//! "inconclusive" from run to run. Each check's per-pass values are taken from every run (the
//! same check, condition and results, matched by id and params) and pooled with
//! [`random_effects`] — each run's median and its standard error, the spread between runs
//! beyond those errors as the run-level variance — on logarithms for positive quantities
//! (run-to-run changes are multiplicative). The pooled interval is decided by the same rule.
//! Two things differ from one run's judgement, each for a reason:
//!
//! * **No sequential boundary.** Each stored run was already judged at its own looks; the
//!   pooled judgement is one look at all of them, with the t quantile on runs − 1 degrees of
//!   freedom carrying the uncertainty of τ.
//! * **Bimodal figures decide nothing.** When the pooled values fall in separate modes
//!   ([`modes`]), which mode a run lands in is a condition of the machine (a halted or an awake
//!   CPU), not of the claim: a median between them answers no question, so the check is
//!   "inconclusive: bimodal" with the modes and their shares.
//!
//! Refutations across a claim's conditions keep Hochberg's correction, as in one run.

use super::decide::{combine, decide, Rule};
use super::margin::Spread;
use super::separation::{separation, Evidenced, EVIDENCE};
use super::series::{instances, series, Instance};
use super::spec::CheckSpec;
use crate::published::{published, Claim};
use concbench_core::{History, PooledCheck, PooledVerdict, ResultDoc, Verdict, VerdictKind};
use concbench_stats::{
    hochberg_step_up, modes, random_effects, sequential_interval, MIN_VALUES_95, SEQUENTIAL_ALPHA,
};

/// Everything a run gains from its host's history, in place: checks labelled at the margin by
/// their typical half-width ([`label_over_history`]), results' intervals widened by the
/// run-to-run drift ([`super::drift::widen`]), and `doc.history` with the claims judged over
/// the runs ([`pool`]). Without `others`, nothing changes and `doc.history` is `None`.
///
/// A stored run's result that holds another quantity than this run's (same id and params) is
/// left out of all three, and the history says so ([`super::compatible::one_quantity`]).
pub fn over_history(doc: &mut ResultDoc, others: &[&ResultDoc], mut excluded: Vec<String>) {
    if others.is_empty() {
        doc.history = None;
        return;
    }
    let this = doc.clone();
    let runs: Vec<&ResultDoc> = std::iter::once(&this)
        .chain(others.iter().copied())
        .collect();
    let (kept, refused) = super::compatible::one_quantity(&runs);
    excluded.extend(refused);
    let others: Vec<&ResultDoc> = kept[1..].iter().map(|d| d.as_ref()).collect();
    label_over_history(doc, &others);
    let drift = super::drift::widen(doc, &others);
    let runs: Vec<&ResultDoc> = std::iter::once(&this)
        .chain(others.iter().copied())
        .collect();
    // A run without verdicts (`--only memory`) still had its intervals widened: its history
    // says by what, with no verdict pooled.
    let pooled = pool(doc, &others, excluded.clone()).or_else(|| {
        (!drift.is_empty())
            .then(|| span(&runs, excluded, Vec::new()))
            .flatten()
    });
    doc.history = pooled.map(|mut h| {
        h.drift = drift;
        h
    });
    // The pooled intervals pass the gate every run's figures pass.
    for found in crate::validate::document(doc) {
        doc.warnings
            .push(concbench_core::RunWarning::ValidationGate {
                found,
                history: true,
            });
    }
}

/// The claims of `doc` judged over `doc` and `others` (compatible runs of its host, see
/// [`super::compatible::compatible`]); `excluded` lists the stored runs left out, with why.
/// `None` when `doc` has no verdicts.
pub fn pool(doc: &ResultDoc, others: &[&ResultDoc], excluded: Vec<String>) -> Option<History> {
    if doc.verdicts.is_empty() {
        return None;
    }
    let published = published();
    let mut runs: Vec<&ResultDoc> = vec![doc];
    runs.extend(others.iter().copied());
    let verdicts = doc
        .verdicts
        .iter()
        .filter_map(|v| {
            let claim = published.claims.iter().find(|c| c.id == v.source)?;
            Some(pool_claim(claim, v, &runs))
        })
        .collect();
    span(&runs, excluded, verdicts)
}

/// The history of `runs` (this one first): how many, from when to when, what was left out.
fn span(
    runs: &[&ResultDoc],
    excluded: Vec<String>,
    verdicts: Vec<PooledVerdict>,
) -> Option<History> {
    let first = runs
        .iter()
        .map(|d| d.started_at.as_str())
        .min()?
        .to_string();
    let last = runs
        .iter()
        .map(|d| d.started_at.as_str())
        .max()?
        .to_string();
    Some(History {
        runs: runs.len(),
        first,
        last,
        excluded,
        verdicts,
        drift: Vec::new(),
    })
}

/// One check's values in each run that measured it (this run first).
struct Evidence {
    runs: Vec<Vec<f64>>,
    rule: Rule,
}

/// One condition of a check as the pooled runs have it: from the first run (this one first)
/// that measured it, with that run's own check on it.
struct Condition<'a> {
    instance: Instance<'a>,
    own: &'a concbench_core::Check,
    /// Whether this run measured it (its `alone` decision is then this run's own).
    here: bool,
}

/// The conditions of `spec` that any run judging the claim measured, each once, this run's
/// first: a run measured in part (`--only switch.pipe`) is pooled with the runs that measured
/// the rest, so the pooled verdict judges what the runs together measured.
fn conditions<'a>(
    spec: &'a CheckSpec,
    judged_in: &[(&'a ResultDoc, &'a Verdict)],
) -> Vec<Condition<'a>> {
    let mut out: Vec<Condition<'a>> = Vec::new();
    for (i, (doc, verdict)) in judged_in.iter().enumerate() {
        for instance in instances(doc, spec) {
            if out
                .iter()
                .any(|c| c.instance.condition == instance.condition)
            {
                continue;
            }
            let Some(own) = verdict
                .checks
                .iter()
                .find(|c| c.condition == instance.condition)
            else {
                continue;
            };
            out.push(Condition {
                instance,
                own,
                here: i == 0,
            });
        }
    }
    out
}

fn pool_claim(claim: &Claim, v: &Verdict, runs: &[&ResultDoc]) -> PooledVerdict {
    let horizon = runs[0].max_rounds();
    // The runs that judged this claim, this one first.
    let judged_in: Vec<(&ResultDoc, &Verdict)> = runs
        .iter()
        .filter_map(|d| Some((*d, d.verdicts.iter().find(|o| o.source == v.source)?)))
        .collect();
    let mut checks: Vec<PooledCheck> = Vec::new();
    let mut evidence: Vec<Evidence> = Vec::new();
    let mut facets_deciding: Vec<String> = Vec::new();
    for spec in &claim.checks {
        let (Ok(rule), Ok(quantity)) = (spec.rule(), spec.quantity()) else {
            continue;
        };
        for cond in conditions(spec, &judged_in) {
            let evidenced: Vec<Vec<Evidenced>> = runs
                .iter()
                .map(|d| condition_values(d, spec, &cond.instance.condition, &quantity))
                .filter(|vals| !vals.is_empty())
                .collect();
            if evidenced.is_empty() {
                continue;
            }
            let values: Vec<Vec<f64>> = evidenced
                .iter()
                .map(|r| r.iter().map(|e| e.value).collect())
                .collect();
            let mut check = pooled_check(cond.own, rule, &values);
            check.beside = !spec.decides
                || cond
                    .instance
                    .facet
                    .as_ref()
                    .is_some_and(|f| facets_deciding.contains(f));
            if let Some(f) = cond.instance.facet.as_ref().filter(|_| !check.beside) {
                facets_deciding.push(f.clone());
            }
            if !cond.here {
                check.alone = VerdictKind::Inconclusive;
                check.note = "not measured in this run: pooled over the runs that did".into();
            }
            if !check.modes.is_empty() {
                let all: Vec<Evidenced> = evidenced.into_iter().flatten().collect();
                check.separation = separation(&check.modes, &all, &check.unit);
                check.note = join(&check.note, &check.separation);
            }
            if withheld(cond.own, spec, &cond.instance) {
                check.decision = VerdictKind::Inconclusive;
                check.note = "withheld: a guard withholds the decision in this run".into();
            }
            super::bounds::pooled(&mut check, super::bounds::reads_difference(&cond.instance));
            checks.push(check);
            evidence.push(Evidence { runs: values, rule });
        }
    }
    correct_refutations(&mut checks, &evidence, horizon);
    let deciding: Vec<&PooledCheck> = checks.iter().filter(|c| !c.beside).collect();
    let mut decisions: Vec<VerdictKind> = deciding.iter().map(|c| c.decision).collect();
    // What none of the pooled runs measured keeps the claim partly judged, and a deciding check
    // among it keeps the claim from being confirmed, as in one run. A facet a stand-in decided
    // was measured: it counts by its pooled check, as in one run.
    let unmeasured = unmeasured_in_all(&judged_in);
    decisions.extend(
        unmeasured
            .iter()
            .filter(|u| !u.ends_with(super::evaluate::STOOD_IN))
            .map(|_| VerdictKind::Inconclusive),
    );
    let verdict = combine(claim.combine, &decisions).unwrap_or(VerdictKind::Inconclusive);
    PooledVerdict {
        source: v.source.clone(),
        verdict,
        alone: v.verdict,
        runs: deciding.iter().map(|c| c.runs).max().unwrap_or(0),
        rounds: deciding.iter().map(|c| c.rounds).max().unwrap_or(0),
        checks,
        judged: concbench_core::Judged::from_unmeasured(&unmeasured),
        alone_judged: v.judged(),
        unmeasured,
    }
}

/// The deciding checks (as `Verdict::unmeasured` names them) that no run judging the claim
/// measured: a pooled verdict is partly judged unless the runs together measured every one.
fn unmeasured_in_all(judged_in: &[(&ResultDoc, &Verdict)]) -> Vec<String> {
    let Some(((_, first), rest)) = judged_in.split_first() else {
        return Vec::new();
    };
    first
        .unmeasured
        .iter()
        .filter(|u| rest.iter().all(|(_, v)| v.unmeasured.contains(u)))
        .cloned()
        .collect()
}

/// Two sentences of a note, either possibly empty.
fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}; {b}"),
    }
}

/// The per-pass values of `spec` under `condition` in `doc`, each with the idle-state
/// evidence of its pass's rounds (empty when it has none).
fn condition_values(
    doc: &ResultDoc,
    spec: &CheckSpec,
    condition: &str,
    quantity: &super::expr::Expr,
) -> Vec<Evidenced> {
    let Some(instance) = instances(doc, spec)
        .into_iter()
        .find(|i| i.condition == condition)
    else {
        return Vec::new();
    };
    let s = series(&instance, quantity, spec.unit.as_deref());
    s.values
        .iter()
        .zip(&s.passes)
        .map(|(&value, &pass)| Evidenced {
            value,
            sleeps_per_op: sleeps_at(&instance, pass),
        })
        .collect()
}

/// The mean idle-state entries per hand-over of the instance's usable rounds of `pass` that
/// count them (None when none does).
fn sleeps_at(instance: &Instance<'_>, pass: usize) -> Option<f64> {
    let found: Vec<f64> = instance
        .results
        .values()
        .flat_map(|(e, _)| concbench_core::usable_rounds(&e.rounds))
        .filter(|r| r.pass == pass)
        .filter_map(|r| r.counters.get(EVIDENCE).copied())
        .collect();
    (!found.is_empty()).then(|| found.iter().sum::<f64>() / found.len() as f64)
}

/// Whether a guard withholds this run's decision (the pooled one is withheld too: the guard
/// says the measurement does not answer the article's question here).
fn withheld(own: &concbench_core::Check, spec: &CheckSpec, instance: &Instance<'_>) -> bool {
    let mut scratch = own.clone();
    super::evaluate::apply_guards(&mut scratch, spec, instance)
}

/// The pooled estimate, interval and decision of one check over its runs' values.
fn pooled_check(own: &concbench_core::Check, rule: Rule, runs: &[Vec<f64>]) -> PooledCheck {
    let all: Vec<f64> = runs.iter().flatten().copied().collect();
    let mut check = PooledCheck {
        condition: own.condition.clone(),
        rule: own.rule.clone(),
        unit: own.unit.clone(),
        estimate: own.estimate,
        ci95: own.ci95,
        tau: None,
        runs: runs.len(),
        rounds: all.len(),
        decision: own.decision,
        alone: own.decision,
        beside: own.beside,
        modes: Vec::new(),
        separation: String::new(),
        note: String::new(),
    };
    if runs.len() >= 2 {
        if let Some((estimate, ci, tau)) = interval(runs, 0.95) {
            check.estimate = Some(estimate);
            check.ci95 = Some([ci.0, ci.1]);
            check.tau = Some(tau);
            check.decision = decide(rule, Some(ci));
        }
    }
    let found = modes(&all);
    if found.len() > 1 {
        check.decision = VerdictKind::Inconclusive;
        check.note = bimodal_note(&found, &own.unit);
        let median = concbench_stats::median(&all);
        check.modes = crate::entry::as_modes(&found, median);
    }
    check
}

/// "bimodal: 60% near 3.2 µs, 40% near 110 µs; no decision rests on a median between modes".
fn bimodal_note(found: &[concbench_stats::Mode], unit: &str) -> String {
    let parts: Vec<String> = found
        .iter()
        .map(|m| {
            format!(
                "{:.0}% near {}",
                m.share * 100.0,
                concbench_core::human::value(m.median, unit)
            )
        })
        .collect();
    format!(
        "bimodal over the runs ({}): which mode a run lands in is a condition of the machine, \
         so no decision rests on a median between them",
        parts.join(", ")
    )
}

/// The random-effects estimate, interval at `level` and τ of runs of values; on logarithms
/// when every value is positive.
fn interval(runs: &[Vec<f64>], level: f64) -> Option<(f64, (f64, f64), f64)> {
    let positive = runs.iter().flatten().all(|x| *x > 0.0);
    let logs: Vec<Vec<f64>> = if positive {
        runs.iter()
            .map(|r| r.iter().map(|x| x.ln()).collect())
            .collect()
    } else {
        runs.to_vec()
    };
    let slices: Vec<&[f64]> = logs.iter().map(Vec::as_slice).collect();
    let p = random_effects(&slices, level)?;
    if positive {
        Some((p.estimate.exp(), (p.ci.0.exp(), p.ci.1.exp()), p.tau))
    } else {
        Some((p.estimate, p.ci, p.tau))
    }
}

/// Hochberg's correction over the claim's deciding checks: a pooled refutation stands only
/// when the step-up keeps it (the interval at the step's level, on the same evidence).
fn correct_refutations(checks: &mut [PooledCheck], evidence: &[Evidence], horizon: usize) {
    let deciding: Vec<usize> = (0..checks.len())
        .filter(|&i| !checks[i].beside && checks[i].modes.is_empty())
        .collect();
    if deciding.len() < 2 {
        return;
    }
    let holding = hochberg_step_up(deciding.len(), SEQUENTIAL_ALPHA, |j, level| {
        let e = &evidence[deciding[j]];
        refuted_at(e, level, horizon)
    });
    for (&i, holds) in deciding.iter().zip(holding) {
        if checks[i].decision == VerdictKind::Refuted && !holds {
            checks[i].decision = VerdictKind::Inconclusive;
            checks[i].note = super::multiplicity::sentence(deciding.len());
        }
    }
}

/// Whether the evidence refutes the rule at error `alpha`: the pooled interval at 1 − alpha
/// over several runs, the run's own boundary for one.
fn refuted_at(e: &Evidence, alpha: f64, horizon: usize) -> bool {
    let ci = if e.runs.len() >= 2 {
        interval(&e.runs, 1.0 - alpha).map(|(_, ci, _)| ci)
    } else {
        sequential_interval(&e.runs[0], MIN_VALUES_95, horizon, alpha)
    };
    decide(e.rule, ci) == VerdictKind::Refuted
}

/// Label "at the margin" every decided check of `doc` whose estimate lies within the *typical*
/// half-width of its deciding interval over the host's runs (the median over `doc` and
/// `others` of the check's half-width) of its rule's number, when its own half-width did not.
///
/// Why: a run whose interval happens to be narrow decides a check that its usual interval
/// would leave open; the next run, with its usual width, says "inconclusive". Replayed on ten
/// recorded quick runs, the label from the run's own half-width missed 5 of the 11 checks that
/// changed between a decision and "inconclusive"; from the typical half-width it missed the two
/// whose change came from the correction across a claim's conditions (which their note says),
/// and labelled 50 of 344 decisions instead of 28. One rule for every check, nothing tuned.
pub fn label_over_history(doc: &mut ResultDoc, others: &[&ResultDoc]) {
    let rules = rules_of(doc);
    for v in &mut doc.verdicts {
        for check in &mut v.checks {
            if check.decision == VerdictKind::Inconclusive || check.at_margin.is_some() {
                continue;
            }
            let rule = rules
                .iter()
                .find(|(claim, condition, _)| *claim == v.source && *condition == check.condition)
                .map(|(_, _, rule)| *rule);
            let (Some(estimate), Some(rule)) = (check.estimate, rule) else {
                continue;
            };
            let mut intervals: Vec<(f64, f64)> = others
                .iter()
                .filter_map(|d| d.verdicts.iter().find(|o| o.source == v.source))
                .filter_map(|o| o.checks.iter().find(|c| c.condition == check.condition))
                .filter_map(deciding_interval)
                .collect();
            intervals.extend(deciding_interval(check));
            if intervals.len() < 2 {
                continue;
            }
            let Some(typical) = Spread::typical(&intervals) else {
                continue;
            };
            if let Some(m) = super::margin::at_spread(rule, estimate, typical) {
                check.at_margin = Some(m);
                let sentence = super::margin::sentence(&m, &check.unit).replace(
                    "its interval reaches",
                    "its typical interval over this host's runs reaches",
                );
                check.note = if check.note.is_empty() {
                    sentence
                } else {
                    format!("{}; {sentence}", check.note)
                };
            }
        }
    }
}

/// A check's deciding interval (the boundary, else the 95% interval).
fn deciding_interval(c: &concbench_core::Check) -> Option<(f64, f64)> {
    c.boundary.or(c.ci95).map(|[lo, hi]| (lo, hi))
}

/// Each (claim, condition, rule) of the checks `doc` has evidence for.
fn rules_of(doc: &ResultDoc) -> Vec<(String, String, Rule)> {
    let mut out = Vec::new();
    for claim in &published().claims {
        for spec in &claim.checks {
            let Ok(rule) = spec.rule() else { continue };
            for i in instances(doc, spec) {
                out.push((claim.id.clone(), i.condition, rule));
            }
        }
    }
    out
}
