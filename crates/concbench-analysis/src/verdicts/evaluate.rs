//! Judging one claim: every check on every condition present, combined into the verdict, with
//! the rule and the numbers printed beside the decision.

use super::decide::{combine, decide, num, Rule};
use super::robustness::{robustness, robustness_partial};
use super::series::{instances, series, Instance, Series};
use super::spec::{CheckSpec, GuardEffect};
use crate::published::Claim;
use concbench_core::unit::cannot_be_negative;
use concbench_core::{human, Check, ResultDoc, ResultEntry, Verdict, VerdictKind};
use concbench_stats::{
    decision_chance, median, median_interval, sequential_interval, MIN_VALUES_95, SEQUENTIAL_ALPHA,
};

/// A claim judged, with the results that fed its undecided checks (more rounds of those could
/// decide it), all together and check by check.
#[derive(Debug, Clone)]
pub struct Judged<'a> {
    pub verdict: Verdict,
    pub undecided: Vec<&'a ResultEntry>,
    /// For each undecided check, the results it rests on: measured again together (one pass),
    /// they give that check another pair of rounds.
    pub undecided_checks: Vec<Vec<&'a ResultEntry>>,
    /// For each decided but fragile check (fewer than 90% (`STABLE`) of the resamples of its rounds
    /// repeat its decision), the results it rests on: a decision reached by chance at an early
    /// look is what makes a rerun disagree, so the run keeps measuring these too.
    pub fragile_checks: Vec<Vec<&'a ResultEntry>>,
    /// For each check shown only beside the checks that decide, the results it rests on.
    pub beside_checks: Vec<Vec<&'a ResultEntry>>,
    /// Every check judged (one per condition): its index among the claim's checks and the
    /// results it rests on. What none of them reads — a deciding check withheld by a guard
    /// among them — the run gives no rounds for it (a full run's S4 checks on a CPU-bound
    /// reader kept rounds that could have decided S4.degrade's 100-thread read).
    pub instances: Vec<(usize, Vec<&'a ResultEntry>)>,
}

/// A decision repeated by at least this share of the resamples of its rounds counts as stable.
pub const STABLE: f64 = 0.9;

/// One check on one condition, with the series it rests on (kept for the robustness figure).
struct Checked<'a> {
    check: Check,
    rule: Rule,
    series: Series,
    results: Vec<&'a ResultEntry>,
    facet: Option<String>,
    /// A guard made it inconclusive: more rounds cannot decide it.
    withheld: bool,
    /// Its spec's index among the claim's checks.
    spec: usize,
}

/// Judge `claim` on `doc`; `None` when none of its checks has evidence in the document.
pub fn judge_claim<'a>(doc: &'a ResultDoc, claim: &'a Claim) -> Option<Judged<'a>> {
    let mut checked = Vec::new();
    // The rounds a check of this run can reach: the plan's cap per variant.
    let horizon = doc.max_rounds();
    for (i, spec) in claim.checks.iter().enumerate() {
        let (Ok(rule), Ok(quantity)) = (spec.rule(), spec.quantity()) else {
            continue; // a malformed rule fails the published-data tests, never a run
        };
        for instance in instances(doc, spec) {
            let s = series(&instance, &quantity, spec.unit.as_deref());
            if !s.values.is_empty() {
                let mut c = check(spec, rule, &instance, s, horizon);
                c.spec = i;
                c.withheld = apply_guards(&mut c.check, spec, &instance);
                c.check.withheld = c.withheld;
                if !deciding(claim, spec) {
                    set_not_deciding(&mut c, spec);
                }
                checked.push(c);
            }
        }
    }
    set_beside(&mut checked);
    let (unmeasured, stood_in) = unmeasured(claim, &checked);
    apply_family_correction(&mut checked, horizon);
    label_at_margin(&mut checked);
    let mut evidence: Vec<String> = Vec::new();
    let mut undecided: Vec<&ResultEntry> = Vec::new();
    let mut undecided_checks: Vec<Vec<&ResultEntry>> = Vec::new();
    let mut fragile_checks: Vec<Vec<&ResultEntry>> = Vec::new();
    let mut beside_checks: Vec<Vec<&ResultEntry>> = Vec::new();
    let mut instances: Vec<(usize, Vec<&ResultEntry>)> = Vec::new();
    for c in &mut checked {
        let deciding = !c.check.beside && !c.withheld;
        instances.push((c.spec, c.results.clone()));
        if c.check.beside {
            beside_checks.push(c.results.clone());
        }
        let open = deciding && c.check.decision == VerdictKind::Inconclusive;
        if open && decidable(c.rule, &c.series.values, horizon) {
            undecided_checks.push(c.results.clone());
        } else if open {
            add_note(&mut c.check, AT_THE_MARGIN);
        } else if deciding && check_robustness(c, &claim.id, horizon) < STABLE {
            fragile_checks.push(c.results.clone());
        }
        for r in &c.results {
            if !evidence.contains(&r.id) {
                evidence.push(r.id.clone());
            }
            if open && !undecided.iter().any(|u| std::ptr::eq(*u, *r)) {
                undecided.push(r);
            }
        }
    }
    let deciding: Vec<&Checked<'_>> = checked.iter().filter(|c| !c.check.beside).collect();
    let mut decisions: Vec<VerdictKind> = deciding.iter().map(|c| c.check.decision).collect();
    if checked.is_empty() || claim.unjudged.is_some() {
        return None;
    }
    // A deciding check the run did not measure counts as undecided: it can keep a claim from
    // being confirmed, and the verdict says the claim is only partly judged.
    decisions.extend(unmeasured.iter().map(|_| VerdictKind::Inconclusive));
    let kind = combine(claim.combine, &decisions)?;
    let series: Vec<(Rule, &[f64])> = deciding
        .iter()
        .map(|c| (c.rule, c.series.values.as_slice()))
        .collect();
    let verdict = Verdict {
        claim: claim.text.clone(),
        source: claim.id.clone(),
        verdict: kind,
        evidence,
        explanation: explanation(claim, kind, &checked, &unmeasured),
        robustness: Some(robustness_partial(
            claim.combine,
            &series,
            unmeasured.len(),
            kind,
            &claim.id,
            horizon,
        )),
        rounds: deciding.iter().map(|c| c.check.rounds).max(),
        checks: checked.into_iter().map(|c| c.check).collect(),
        judged: if unmeasured.is_empty() && stood_in.is_empty() {
            concbench_core::Judged::Whole
        } else {
            concbench_core::Judged::Partly
        },
        // Both make the claim partly judged; only the unmeasured ones count as undecided above
        // (a stand-in did decide its facet, on concbench's method rather than the article's).
        unmeasured: unmeasured.into_iter().chain(stood_in).collect(),
        // Filled by the session, which knows what a full run measures that this one did not.
        full_run: Vec::new(),
    };
    Some(Judged {
        verdict,
        undecided,
        undecided_checks,
        fragile_checks,
        beside_checks,
        instances,
    })
}

/// Whether a check may decide its claim: stated so, and the claim is judged here at all.
fn deciding(claim: &Claim, spec: &CheckSpec) -> bool {
    spec.decides && claim.unjudged.is_none()
}

/// A check shown beside the verdict, never deciding: out of its facet (it must not take a
/// facet's lead), with this machine's ratio to the article's figure when it carries one.
fn set_not_deciding(c: &mut Checked<'_>, spec: &CheckSpec) {
    c.facet = None;
    c.check.beside = true;
    let mut sentence = "shown beside, not deciding".to_string();
    if let (Some(published), Some(estimate)) = (spec.published, c.check.estimate) {
        if published > 0.0 {
            sentence.push_str(&format!(
                ": this machine's figure is {}x the article's {}",
                num(estimate / published),
                human::value(published, &c.check.unit)
            ));
        }
    }
    add_note(&mut c.check, &sentence);
}

/// The deciding checks (one per facet; each facet-less check on its own) of which the run
/// measured nothing, by their condition (a `{param}` left as "each param"). A facet stated
/// without a `{param}` is measured when any check's facet came out the same (concbench's byte
/// reader at 50 MiB measures the Java reader's facet); one with a `{param}` when any check of
/// that template has evidence.
/// The deciding checks (or facets) this run did not measure, and those measured only by
/// concbench's stand-in for the article's own program (`stand_in`), each as a reader meets it.
fn unmeasured(claim: &Claim, checked: &[Checked<'_>]) -> (Vec<String>, Vec<String>) {
    let mut out: Vec<String> = Vec::new();
    let mut stood_in: Vec<String> = Vec::new();
    let mut facets_seen: Vec<&str> = Vec::new();
    for (i, spec) in claim.checks.iter().enumerate() {
        if !deciding(claim, spec) {
            continue;
        }
        let measured = match spec.facet.as_deref() {
            Some(f) if facets_seen.contains(&f) => continue,
            Some(f) => {
                facets_seen.push(f);
                let in_facet = |c: &Checked<'_>| {
                    claim.checks[c.spec].facet.as_deref() == Some(f)
                        || (!f.contains('{') && c.facet.as_deref() == Some(f))
                };
                // A facet whose article program was not measured is judged on a stand-in only:
                // measured in part (the stand-in decides, and the claim says what is missing).
                let has_article = claim
                    .checks
                    .iter()
                    .any(|s| s.facet.as_deref() == Some(f) && !s.stand_in && deciding(claim, s));
                let by_article = checked
                    .iter()
                    .any(|c| in_facet(c) && !claim.checks[c.spec].stand_in);
                let any = checked.iter().any(in_facet);
                if any && has_article && !by_article {
                    stood_in.push(format!("{} {STOOD_IN}", unmeasured_text(spec)));
                }
                any
            }
            None => checked.iter().any(|c| c.spec == i),
        };
        if !measured {
            out.push(unmeasured_text(spec));
        }
    }
    (out, stood_in)
}

/// A check's condition as a reader meets it in "not measured: …" (`{count}` as "each count").
pub(super) fn unmeasured_text(spec: &CheckSpec) -> String {
    let mut text = spec.condition.clone();
    for k in &spec.for_each {
        text = text.replace(&format!("{{{k}}}"), &format!("each {k}"));
    }
    text
}

/// Within each facet, the first check with evidence decides; the others are shown beside it,
/// and say so — and whether they reach the same decision.
fn set_beside(checked: &mut [Checked<'_>]) {
    for i in 0..checked.len() {
        let Some(facet) = checked[i].facet.clone() else {
            continue;
        };
        let Some(first) = checked[..i]
            .iter()
            .position(|c| c.facet.as_deref() == Some(facet.as_str()))
        else {
            continue;
        };
        let decision = checked[first].check.decision;
        let decider = checked[first].check.condition.clone();
        let c = &mut checked[i].check;
        c.beside = true;
        let sentence = if c.decision == decision {
            "another method, shown beside the one that decides; they agree".to_string()
        } else {
            format!(
                "another method, shown beside the one that decides; the two methods \
                 disagree: {} there, {} here, and \"{decider}\" decides",
                decision_word(decision),
                decision_word(c.decision)
            )
        };
        c.note = if c.note.is_empty() {
            sentence
        } else {
            format!("{sentence}; {}", c.note)
        };
    }
}

/// A counter's median over the rounds the result's statistics use (the result's own counter
/// for documents without rounds).
fn counter_median(entry: &ResultEntry, counter: &str) -> Option<f64> {
    let values = counter_rounds(entry, counter);
    if values.is_empty() {
        return entry.counters.get(counter).copied();
    }
    Some(median(&values))
}

/// A counter's value in each round the result's statistics use.
fn counter_rounds(entry: &ResultEntry, counter: &str) -> Vec<f64> {
    let sel = super::spec::Selector {
        id: entry.id.clone(),
        params: Default::default(),
        counter: Some(super::spec::Counter::One(counter.to_string())),
        take: Default::default(),
    };
    super::series::per_pass(entry, &sel).into_values().collect()
}

/// How a facet decided by concbench's stand-in for the article's program is listed among a
/// verdict's `unmeasured` (measured, but not by the article's method: it does not count as
/// undecided).
pub(super) const STOOD_IN: &str = "(concbench's own method decided in its place)";

/// What an open check that more rounds would not decide says.
pub const AT_THE_MARGIN: &str = "more rounds would not decide this: the run's remaining rounds \
would leave its interval across the rule's margin in at least 95 of 100 futures";

/// Rounds a check needs before more rounds are refused to it: below this its estimate is too
/// unsteady to say where it sits relative to the margin.
pub const FUTILITY_MIN_ROUNDS: usize = 10;

/// A check whose chance to be decided by the rounds its run still allows is below this stops.
pub const FUTILITY_CHANCE: f64 = 0.05;

/// Whether more rounds could decide an inconclusive check: it has fewer than
/// [`FUTILITY_MIN_ROUNDS`] rounds, or its chance to be decided by `horizon` rounds
/// ([`decision_chance`]) is at least [`FUTILITY_CHANCE`].
///
/// Why: adding rounds to a check until its interval happens to clear the margin decides,
/// sooner or later, a quantity that sits on the margin — by chance, and a rerun then disagrees
/// (repeated looks at a growing sample inflate the error rate of any fixed-level interval). A
/// check that is hopeless stops and stays inconclusive, and the budget goes to checks that more
/// rounds can settle. Why a chance of 5% and not a projection centred on the estimate (the rule
/// before): the estimate at ten rounds of a check a little off its margin lands on the near side
/// often enough that the projection stopped checks more rounds would have decided — replayed on
/// fifteen quick runs' rounds, the chance rule made five runs agree more often on five of six
/// margin-near checks (docs/METHODOLOGY.md).
///
/// Invariant: a check with fewer than [`FUTILITY_MIN_ROUNDS`] rounds is always decidable.
pub fn decidable(rule: Rule, values: &[f64], horizon: usize) -> bool {
    if values.len() < FUTILITY_MIN_ROUNDS {
        return true;
    }
    let (low, high) = rule.region();
    decision_chance(values, horizon, low, high) >= FUTILITY_CHANCE
}

fn add_note(check: &mut Check, sentence: &str) {
    check.note = if check.note.is_empty() {
        sentence.to_string()
    } else {
        format!("{}; {sentence}", check.note)
    };
}

/// Share of the resamples of one check's rounds that repeat its decision.
fn check_robustness(c: &Checked<'_>, claim: &str, horizon: usize) -> f64 {
    let id = format!("{claim} {}", c.check.condition);
    robustness(
        super::Combine::All,
        &[(c.rule, c.series.values.as_slice())],
        c.check.decision,
        &id,
        horizon,
    )
}

/// A refutation among several deciding checks stands only if the family-wise correction keeps
/// it (one counter-example refutes a general claim, so the conditions are a family of tests).
fn apply_family_correction(checked: &mut [Checked<'_>], horizon: usize) {
    let deciding: Vec<usize> = (0..checked.len())
        .filter(|&i| !checked[i].check.beside && !checked[i].withheld)
        .collect();
    if deciding.len() < 2 {
        return;
    }
    let family: Vec<(Rule, &[f64])> = deciding
        .iter()
        .map(|&i| (checked[i].rule, checked[i].series.values.as_slice()))
        .collect();
    let holding = super::multiplicity::refutations_holding(&family, horizon);
    for (&i, holds) in deciding.iter().zip(holding) {
        let c = &mut checked[i].check;
        if c.decision == VerdictKind::Refuted && !holds {
            c.decision = VerdictKind::Inconclusive;
            add_note(c, &super::multiplicity::sentence(deciding.len()));
        }
    }
}

/// Label every check whose estimate lies within one half-width of its deciding interval of
/// its rule's margin.
fn label_at_margin(checked: &mut [Checked<'_>]) {
    for c in checked {
        let Some(estimate) = c.check.estimate else {
            continue;
        };
        let interval = c.check.boundary.or(c.check.ci95).map(|[lo, hi]| (lo, hi));
        c.check.at_margin = super::margin::at_margin(c.rule, estimate, interval, &c.series.values);
        if let Some(m) = c
            .check
            .at_margin
            .filter(|_| c.check.decision != VerdictKind::Inconclusive)
        {
            let sentence = super::margin::sentence(&m, &c.check.unit);
            add_note(&mut c.check, &sentence);
        }
    }
}

/// Withhold or qualify the decision when a guard's counter lies outside its bound (a counter
/// the result does not carry leaves the check as it is); true when one withheld the decision.
pub(super) fn apply_guards(check: &mut Check, spec: &CheckSpec, instance: &Instance<'_>) -> bool {
    let mut withheld = false;
    for g in &spec.guards {
        let Some((entry, _)) = instance.results.get(g.name.as_str()) else {
            continue;
        };
        let Some(value) = counter_median(entry, &g.counter) else {
            continue;
        };
        let holds = if g.every_round {
            counter_rounds(entry, &g.counter)
                .iter()
                .all(|v| g.holds(*v))
                && g.holds(value)
        } else {
            g.holds(value)
        };
        if holds {
            continue;
        }
        let sentence = g.say.replace("{value}", &num(value));
        if g.effect == GuardEffect::Withhold {
            check.decision = VerdictKind::Inconclusive;
            withheld = true;
        }
        check.note = if check.note.is_empty() {
            sentence
        } else {
            format!("{sentence}; {}", check.note)
        };
    }
    withheld
}

fn check<'a>(
    spec: &CheckSpec,
    rule: Rule,
    instance: &Instance<'a>,
    s: Series,
    horizon: usize,
) -> Checked<'a> {
    let ci = median_interval(&s.values, 0.95);
    // The decision uses the sequential boundary: the run looks after every pass up to its cap,
    // and the boundary keeps the chance of a decision at any of those looks, for a quantity on
    // its margin, within 5% (docs/METHODOLOGY.md, "Error control across looks").
    let boundary = sequential_interval(&s.values, MIN_VALUES_95, horizon, SEQUENTIAL_ALPHA);
    let decision = decide(rule, boundary);
    let results: Vec<&ResultEntry> = instance.results.values().map(|(e, _)| *e).collect();
    let check = Check {
        condition: instance.condition.clone(),
        rule: rule.describe_in(&spec.quantity, &s.unit),
        estimate: Some(median(&s.values)),
        ci95: ci.map(|(lo, hi)| [lo, hi]),
        unit: s.unit.clone(),
        rounds: s.values.len(),
        decision,
        note: note(&s, ci.is_some(), &results),
        beside: false,
        withheld: false,
        boundary: boundary.map(|(lo, hi)| [lo, hi]),
        at_margin: None,
    };
    let mut check = check;
    if decision == VerdictKind::Inconclusive && ci.is_some() && decide(rule, ci) != decision {
        add_note(
            &mut check,
            &boundary_sentence(boundary, s.values.len(), horizon, &s.unit),
        );
    }
    super::bounds::undecided_on_zero(&mut check, &super::bounds::undistinguished(instance));
    super::bounds::bound(&mut check);
    Checked {
        check,
        rule,
        series: s,
        results,
        withheld: false,
        facet: instance.facet.clone(),
        spec: 0,
    }
}

/// Why a check is as it is: too few rounds, dropped passes, results in several modes.
fn note(s: &Series, has_interval: bool, results: &[&ResultEntry]) -> String {
    let mut parts = Vec::new();
    if !has_interval {
        parts.push(format!(
            "{} rounds give no 95% interval (at least {MIN_VALUES_95} are needed)",
            s.values.len()
        ));
    }
    // Why two sentences: "a result had no usable round there" read as lost rounds where the
    // plan had measured a shared result for another check alone (a full run's S4.one_thread:
    // "5 pass(es) left out", all of them S4.degrade's passes of the ten-thread read).
    if s.apart > 0 {
        parts.push(format!(
            "{} pass(es) left out: a result it shares with another check was measured there \
             for that one alone",
            s.apart
        ));
    }
    if s.dropped > s.apart {
        parts.push(format!(
            "{} pass(es) left out: a round there was excluded (taken under interference) or \
             gave no usable value",
            s.dropped - s.apart
        ));
    }
    for r in results.iter().filter(|r| r.modes.len() > 1) {
        let modes: Vec<String> = r
            .modes
            .iter()
            .map(|m| {
                format!(
                    "{:.0}% near {}",
                    m.share * 100.0,
                    human::value(m.median, &r.unit)
                )
            })
            .collect();
        parts.push(format!(
            "{} {} falls in {} modes ({}); the decision rests on rounds from each",
            r.id,
            r.params.compact(),
            r.modes.len(),
            modes.join(", ")
        ));
    }
    parts.join("; ")
}

/// Why a check whose 95% interval clears its margin is still inconclusive. The boundary of a
/// quantity that cannot be negative (a time, a size, a ratio of positive quantities) is shown
/// bounded at zero, as every other interval is (regression: "the boundary for this look ...
/// ([-2.12, 14.2] x)" for S3.cold's cost ratio reached the screen in a quick run).
fn boundary_sentence(boundary: Option<(f64, f64)>, n: usize, horizon: usize, unit: &str) -> String {
    let looks = format!("look at {n} rounds of up to {}", horizon.max(n));
    let boundary = boundary.map(|(lo, hi)| match cannot_be_negative(unit) {
        true => (lo.max(0.0), hi.max(0.0)),
        false => (lo, hi),
    });
    match boundary {
        Some((lo, hi)) => format!(
            "its 95% interval clears the margin, but the boundary for this {looks} ({}) does \
             not: deciding at every look spends the 5% error over the looks",
            concbench_core::human::interval((lo + hi) / 2.0, Some([lo, hi]), unit)
        ),
        None => format!(
            "its 95% interval clears the margin, but a {looks} cannot decide: deciding at every \
             look spends the 5% error over the looks"
        ),
    }
}

fn decision_word(k: VerdictKind) -> &'static str {
    match k {
        VerdictKind::Confirmed => "confirmed",
        VerdictKind::Refuted => "refuted",
        VerdictKind::Depends => "depends",
        VerdictKind::Inconclusive => "inconclusive",
    }
}

/// The sentence a verdict's explanation gives a check: "COUNT = 1000: rule t / p >= 0.870;
/// measured 0.93 [0.89, 0.97] over 6 rounds -> confirmed (its note)." The pages list the checks
/// apart and take these sentences out of the explanation by this same function
/// (`answer::prose`), so rewording it cannot leave a check said twice.
pub fn check_sentence(ch: &Check) -> String {
    let measured = match ch.estimate {
        Some(e) => human::measured(e, ch.ci95, &ch.unit),
        None => "nothing".to_string(),
    };
    let note = if ch.note.is_empty() {
        String::new()
    } else {
        format!(" ({})", ch.note)
    };
    format!(
        "{}: rule {}; measured {measured} over {} rounds -> {}{note}.",
        ch.condition,
        ch.rule,
        ch.rounds,
        decision_word(ch.decision)
    )
}

/// One sentence per check, then the claim's own note for its verdict; a partly judged claim
/// says first what was not measured.
fn explanation(
    claim: &Claim,
    kind: VerdictKind,
    checked: &[Checked<'_>],
    unmeasured: &[String],
) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !unmeasured.is_empty() {
        parts.push(format!(
            "Partly judged: {} among what was measured; not measured in this run: {}.",
            decision_word(kind),
            unmeasured.join("; ")
        ));
    }
    parts.extend(checked.iter().map(|c| check_sentence(&c.check)));
    let open = checked
        .iter()
        .any(|c| !c.check.beside && c.check.decision == VerdictKind::Inconclusive);
    if kind == VerdictKind::Refuted && open {
        parts.push(
            "Refuted by the conditions decided: a general claim falls on a counter-example; the \
             undecided ones could make it \"depends\", not \"confirmed\"."
                .to_string(),
        );
    }
    if let Some(text) = claim.explain.get(decision_word(kind)) {
        parts.push(text.clone());
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GREATER: Rule = Rule::Greater { min_effect: 1.15 };

    /// Regression: S3.cold's note read "the boundary for this look at 10 rounds of up to 20
    /// ([-2.12, 14.2] x)" on the terminal, the markdown and the page of a quick run.
    #[test]
    fn regression_a_boundary_below_zero_is_bounded_for_a_ratio_and_a_time_not_a_difference() {
        let ratio = boundary_sentence(Some((-2.12, 14.2)), 10, 20, "x");
        assert!(ratio.contains("[0, 14.2] x"), "{ratio}");
        let time = boundary_sentence(Some((-2.87, 19.4)), 10, 20, "us");
        assert!(!time.contains('-'), "{time}");
        // A share of the CPU's time, ten threads minus one, may well be negative.
        let share = boundary_sentence(Some((-0.02, 0.1)), 10, 20, "share");
        assert!(share.contains("-0.02"), "{share}");
    }

    /// `n` values spread evenly around `centre` (+-`spread`).
    fn around(centre: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| centre + spread * (2.0 * i as f64 / (n - 1) as f64 - 1.0))
            .collect()
    }

    #[test]
    fn a_check_on_its_margin_is_not_decidable_one_beside_it_is() {
        // On the margin: no number of rounds decides it.
        assert!(!decidable(GREATER, &around(1.15, 0.2, 12), 20));
        // Clearly below the margin, but with an interval that still reaches it: more rounds
        // refute it.
        assert!(decidable(GREATER, &around(1.0, 0.2, 12), 20));
        assert!(decidable(GREATER, &around(1.3, 0.2, 12), 20));
        // ... unless the run allows it no more rounds.
        assert!(!decidable(GREATER, &around(1.3, 0.2, 12), 12));
        // Too few rounds to say where the estimate sits.
        assert!(decidable(
            GREATER,
            &around(1.15, 0.2, FUTILITY_MIN_ROUNDS - 1),
            20
        ));
    }

    #[test]
    fn regression_a_check_a_little_off_its_margin_keeps_its_rounds() {
        // 6% above ">= 0.87" with a wide spread at ten rounds (S1.lock's 100-vs-2 threads,
        // 0.92x): the old projection centred on the estimate stopped it; by twenty rounds it is
        // decided in a good share of futures, so it keeps measuring.
        assert!(decidable(
            Rule::AtLeast { bound: 0.87 },
            &around(0.92, 0.25, 10),
            20
        ));
    }
}
