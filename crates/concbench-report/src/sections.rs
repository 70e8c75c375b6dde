//! The parts every text renderer shows, as rows of cells: results, replication, verdicts,
//! skipped and failed variants, warnings. Each renderer lays the rows out its own way.

use crate::format;
use concbench_analysis::answer::has_interval;
pub use concbench_analysis::answer::{verdict_label, verdict_word};
use concbench_analysis::answer::{Answer, CheckAnswer};
use concbench_analysis::published::{Figure, Measured};
use concbench_core::{ResultDoc, ResultEntry};
use serde::Serialize;

pub const RESULT_HEADER: [&str; 8] = [
    "id",
    "params",
    "median",
    "95% CI",
    "rounds",
    "spread between / within rounds",
    "switches/op",
    "notes",
];

/// The interval cell: the interval, or why there is none.
pub fn interval_cell(r: &ResultEntry) -> String {
    match r.summary.ci95 {
        Some(_) => format::interval(r.summary.median, r.summary.ci95, &r.unit),
        None => format!(
            "none: {} round(s), {} needed",
            r.rounds.len().max(1),
            concbench_analysis::MIN_VALUES_95
        ),
    }
}

/// The median, or for a difference that cannot be told from zero the most its interval allows
/// ("≤ 3.76 µs"): a bounded zero is not a measured one.
pub fn median_cell(r: &ResultEntry) -> String {
    if r.distinguishable() {
        format::value(r.summary.median, &r.unit)
    } else {
        format::at_most(r.summary.ci95, &r.unit)
    }
}

/// "4.1% / 0.8%": how much the value moves between rounds and within one; "-" without an
/// interval (one round has no spread between rounds to speak of).
pub fn spread_cell(r: &ResultEntry) -> String {
    r.spread
        .filter(|_| r.summary.ci95.is_some())
        .map(|s| {
            format!(
                "{:.1}% / {:.1}%",
                s.between_rounds * 100.0,
                s.within_round * 100.0
            )
        })
        .unwrap_or_else(|| "-".into())
}

/// One row per result; `notes` refers to numbered warnings. A warning that several results
/// carry word for word is one note, with the count of results it applies to (each row still
/// refers to it).
pub fn result_rows(doc: &ResultDoc) -> (Vec<[String; 8]>, Vec<String>) {
    let shared = shared_warnings(doc);
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut numbered: std::collections::HashMap<&str, usize> = Default::default();
    for r in &doc.results {
        let mut refs = Vec::new();
        if let Some(o) = &r.overhead {
            notes.push(overhead_note(r, o));
            refs.push(notes.len());
        }
        for w in &r.warnings {
            match shared.get(w.as_str()) {
                Some(&n) => {
                    let number = *numbered.entry(w.as_str()).or_insert_with(|| {
                        notes.push(format!("{n} results: {w}"));
                        notes.len()
                    });
                    refs.push(number);
                }
                None => {
                    notes.push(format!("{} {}: {w}", r.id, r.params.compact()));
                    refs.push(notes.len());
                }
            }
        }
        let switches = r.counters.get("voluntary_switches_per_op").map(|v| {
            let inv = r
                .counters
                .get("involuntary_switches_per_op")
                .copied()
                .unwrap_or(0.0);
            format!("{} (+{} inv)", format::sig3(*v), format::sig3(inv))
        });
        rows.push([
            r.id.clone(),
            r.params.compact(),
            median_cell(r),
            interval_cell(r),
            r.rounds.len().to_string(),
            spread_cell(r),
            switches.unwrap_or_else(|| "-".into()),
            refs.iter()
                .map(|n| format!("[{n}]"))
                .collect::<Vec<_>>()
                .join(" "),
        ]);
    }
    (rows, notes)
}

/// Warnings carried word for word by more than one result, with how many carry each.
fn shared_warnings(doc: &ResultDoc) -> std::collections::HashMap<&str, usize> {
    let mut counts: std::collections::HashMap<&str, usize> = Default::default();
    for w in doc.results.iter().flat_map(|r| &r.warnings) {
        *counts.entry(w.as_str()).or_default() += 1;
    }
    counts.retain(|_, n| *n > 1);
    counts
}

/// What was subtracted, the raw figure beside the difference; a difference that cannot be told
/// from zero says so (the result is the difference in every run, never the raw figure).
fn overhead_note(r: &ResultEntry, o: &concbench_core::Overhead) -> String {
    let difference = match (o.difference, o.difference_ci95) {
        (Some(d), Some(ci)) => format!(
            "{} {}",
            format::value(d, &r.unit),
            format::interval(d, Some(ci), &r.unit)
        ),
        (Some(d), None) => format::value(d, &r.unit),
        _ => "-".into(),
    };
    let head = format!(
        "{} {}: the difference: raw median {} minus {} ({}) subtracted round by round",
        r.id,
        r.params.compact(),
        format::value(o.raw_median, &r.unit),
        format::value(o.median, &r.unit),
        o.method
    );
    if r.distinguishable() {
        format!("{head} = {difference}")
    } else {
        format!(
            "{head} = {difference}: not distinguishable from zero (bounded at zero); no check \
             decides on it"
        )
    }
}

pub const REPLICATION_HEADER: [&str; 7] = [
    "seed",
    "what",
    "published",
    "machine",
    "here: concbench's method",
    "here: the article's program",
    "here / published",
];

/// A measured figure, marked when it lies within the article's own runs, and when it is a
/// per-operation result scaled to more operations than one round ran (extrapolated).
fn measured_cell(m: Option<&Measured<'_>>, unit: &str) -> String {
    let Some(m) = m else {
        return "-".into();
    };
    let mut text = format::value(m.value, unit);
    if m.extrapolated {
        text += " (extrapolated)";
    }
    if m.as_published {
        text += ", as published";
    }
    text
}

fn ratio_cell(m: Option<&Measured<'_>>) -> Option<String> {
    m?.ratio.map(|x| format!("{}x", format::sig3(x)))
}

/// Published figures beside matching results: concbench's method and the article's own
/// program side by side where both ran. When one figure matches several results (one per
/// placement, say), each row names the params that tell them apart.
pub fn replication_rows(answer: &Answer<'_>) -> Vec<[String; 7]> {
    let reps = &answer.replications;
    let matches_of = |f: &Figure| reps.iter().filter(|r| std::ptr::eq(r.figure, f)).count();
    reps.iter()
        .map(|r| {
            let what = if matches_of(r.figure) > 1 {
                format!(
                    "{} [{}]",
                    r.figure.what,
                    distinguishing_params(r.figure, r.entry())
                )
            } else {
                r.figure.what.clone()
            };
            let unit = &r.figure.unit;
            let ratios: Vec<String> = [
                ratio_cell(r.native.as_ref()),
                ratio_cell(r.article.as_ref()),
            ]
            .into_iter()
            .flatten()
            .collect();
            [
                r.figure.seed.clone(),
                what,
                r.figure.display(),
                r.figure.machine.clone(),
                measured_cell(r.native.as_ref(), unit),
                measured_cell(r.article.as_ref(), unit),
                if ratios.is_empty() {
                    "-".into()
                } else {
                    ratios.join(" / ")
                },
            ]
        })
        .collect()
}

/// The result's params that the figure does not fix, compact (`placement=same-cpu`).
fn distinguishing_params(figure: &Figure, entry: &ResultEntry) -> String {
    let mut extra = entry.params.clone();
    extra.0.retain(|k, _| !figure.params.contains_key(k));
    extra.compact()
}

pub const VERDICT_HEADER: [&str; 5] = [
    "claim",
    "verdict",
    "rule, measured -> decision",
    "rounds",
    "robustness",
];

/// "COUNT = 1000: thread / process >= 0.870; measured 0.93 [0.89, 0.97] -> confirmed".
pub fn check_line(c: &concbench_core::Check) -> String {
    let measured = match c.estimate {
        Some(e) => format::measured(e, c.ci95, &c.unit),
        None => "nothing".into(),
    };
    let note = if c.note.is_empty() {
        String::new()
    } else {
        format!(" ({})", c.note)
    };
    // Marked by the check's typed label, never by what its note says (issue 44): the note's
    // sentence gives the distances, so the mark here is the short form.
    format!(
        "{}: rule {}; measured {measured}{} over {} rounds -> {}{note}",
        c.condition,
        c.rule,
        margin_label(c),
        c.rounds,
        verdict_word(c.decision)
    )
}

/// A check's line and, under it, the figures its quantity is computed from, each named by the
/// result it comes from, so that its ratio can be recomputed from what is printed.
pub fn check_with_figures(c: &CheckAnswer<'_>) -> String {
    match figures_line(c) {
        Some(figures) => format!("{}\n  {figures}", check_line(c.check)),
        None => check_line(c.check),
    }
}

/// "from fork = 197 µs (create.fork), thread = 49.6 µs (create.thread); ratio of these medians
/// 3.97x" (the check's own figure is the median of its per-round ratios: the two agree within
/// its interval).
pub fn figures_line(c: &CheckAnswer<'_>) -> Option<String> {
    if c.operands.is_empty() {
        return None;
    }
    let figures: Vec<String> = c
        .operands
        .iter()
        .map(|o| {
            let value = if o.unit.is_empty() {
                format::sig3(o.value)
            } else {
                format::value(o.value, &o.unit)
            };
            let reading = o
                .reading
                .as_ref()
                .map(|r| format!(", {r}"))
                .unwrap_or_default();
            let paired = o
                .paired
                .map(|n| format!("; the median of the {n} rounds the check pairs"))
                .unwrap_or_default();
            format!("{} = {value} ({}{reading}{paired})", o.name, o.source)
        })
        .collect();
    let recomputed = match (c.from_operands, c.operands.len()) {
        (Some(x), n) if n > 1 => format!(
            "; ratio of these medians {}",
            quantity_text(x, &c.check.unit)
        ),
        _ => String::new(),
    };
    Some(format!("from {}{recomputed}", figures.join(", ")))
}

/// A quantity in its check's unit: "3.97x" for a ratio, "5.59 µs" for a time.
pub fn quantity_text(x: f64, unit: &str) -> String {
    if unit == "x" {
        format!("{}x", format::sig3(x))
    } else {
        format::value(x, unit)
    }
}

/// ", at the margin (0.11 from 8.70; a rerun may say inconclusive)" after a decided check whose
/// estimate lies within one interval half-width of its rule's number; empty otherwise (an
/// undecided check is on its margin by definition).
pub fn margin_mark(c: &concbench_core::Check) -> String {
    match c.at_margin {
        Some(m) if c.decision != concbench_core::VerdictKind::Inconclusive => format!(
            ", at the margin ({} from {}; a rerun may say inconclusive)",
            format::value(m.distance.abs(), &c.unit),
            format::value(m.margin, &c.unit)
        ),
        _ => String::new(),
    }
}

/// ", at the margin" after a decided check labelled at its margin ([`margin_mark`] without the
/// distances); empty otherwise.
pub fn margin_label(c: &concbench_core::Check) -> &'static str {
    if margin_mark(c).is_empty() {
        ""
    } else {
        ", at the margin"
    }
}

/// A verdict's word as the rows say it ([`verdict_label`]); a claim whose deciding checks
/// were not all measured is "partly judged", its word for what was measured beside ("partly
/// judged: refuted"), never a plain one.
pub fn verdict_cell(v: &concbench_core::Verdict) -> String {
    if v.partly_judged() && v.verdict == concbench_core::VerdictKind::Inconclusive {
        "partly judged".to_string()
    } else if v.partly_judged() {
        format!("partly judged: {}", verdict_label(v))
    } else {
        verdict_label(v)
    }
}

/// The mark a quick run's verdict line carries when a full run judges deciding checks of it
/// that a quick run cannot measure.
pub const FULL_RUN_MARK: &str = "[full run: article's own]";

/// "about 10 minutes": how long a full run takes, from what a quick run recorded.
pub fn full_run_time(doc: &ResultDoc) -> Option<String> {
    let s = doc.full_run_s()?;
    Some(format!("about {:.0} minutes", (s / 60.0).ceil()))
}

/// The line under a quick run's verdicts that keys the mark: which claims a full run judges on
/// the articles' own programs or systems, and how long it takes ("[full run: article's own]
/// S2.memory, S4.one_thread: `concbench run` (about 10 minutes) judges them"); `None` when no
/// verdict has deciding checks only a full run measures. Short, so that the screen keys the
/// articles as well in the lines it had (issue 44): the mark itself says "article's own".
pub fn full_run_line(doc: &ResultDoc) -> Option<String> {
    let claims: Vec<&str> = doc
        .verdicts
        .iter()
        .filter(|v| !v.full_run.is_empty())
        .map(|v| v.source.as_str())
        .collect();
    if claims.is_empty() {
        return None;
    }
    let time = full_run_time(doc)
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    Some(format!(
        "{FULL_RUN_MARK} {}: `concbench run`{time} judges them",
        claims.join(", ")
    ))
}

/// "(a full run judges it on the article's own program or system: ...)" after a verdict's word,
/// for the tables of every verdict; empty when a full run adds nothing to it.
pub fn full_run_note(v: &concbench_core::Verdict) -> String {
    if v.full_run.is_empty() {
        String::new()
    } else {
        format!(
            " (a full run judges it on the article's own program or system: {})",
            v.full_run.join("; ")
        )
    }
}

/// "97%" of resamples agreeing, or "-" for documents without the figure and for verdicts on
/// too few rounds for an interval (resampling one round agrees with itself: no robustness).
pub fn robustness_cell(v: &concbench_core::Verdict) -> String {
    v.robustness
        .filter(|_| has_interval(v))
        .map(|r| format!("{:.0}%", r * 100.0))
        .unwrap_or_else(|| "-".into())
}

pub fn verdict_rows(answer: &Answer<'_>) -> Vec<[String; 5]> {
    answer
        .verdicts
        .iter()
        .map(|va| {
            let v = va.verdict;
            let checks: Vec<String> = va.checks.iter().map(check_with_figures).collect();
            let detail = if checks.is_empty() {
                v.explanation.clone()
            } else {
                checks.join("\n")
            };
            [
                format!("{} ({})", v.claim, v.source),
                format!("{}{}", verdict_cell(v), full_run_note(v)),
                detail,
                v.rounds
                    .map(|r| r.to_string())
                    .unwrap_or_else(|| "-".into()),
                robustness_cell(v),
            ]
        })
        .collect()
}

/// "id params: reason" lines for results the validation gate rejected.
pub fn invalid_lines(doc: &ResultDoc) -> Vec<String> {
    doc.invalid
        .iter()
        .map(|i| {
            let shown = i
                .median
                .map(|m| format!(" (it would have shown {})", format::value(m, &i.unit)))
                .unwrap_or_default();
            format!("{} {}: {}{shown}", i.id, i.params.compact(), i.reason)
        })
        .collect()
}

/// "id params: reason" lines for skipped and failed variants.
pub fn skipped_lines(doc: &ResultDoc) -> Vec<String> {
    doc.skipped
        .iter()
        .map(|s| format!("{} {}: {}", s.id, s.params.compact(), s.reason))
        .collect()
}

pub fn failure_lines(doc: &ResultDoc) -> Vec<String> {
    doc.failures
        .iter()
        .map(|f| format!("{} {}: {}", f.id, f.params.compact(), f.error))
        .collect()
}

/// One line describing the host and its confounders.
pub fn host_line(doc: &ResultDoc) -> String {
    let h = &doc.host;
    let vulnerable = h
        .mitigations
        .values()
        .filter(|v| v.starts_with("Vulnerable"))
        .count();
    format!(
        "{} | kernel {} | {} logical CPUs{} | {} | clocksource {} | governor {} | load {:.2} | {} of {} vulnerabilities unmitigated",
        h.cpu_model,
        h.kernel,
        h.logical_cpus,
        if h.smt { " (SMT on)" } else { "" },
        match (&h.virtualized, &h.hypervisor) {
            (true, Some(name)) => format!("virtualized ({name})"),
            (true, None) => "virtualized".to_string(),
            (false, _) => "bare metal".to_string(),
        },
        h.clocksource,
        h.governor.as_deref().unwrap_or("none"),
        h.load_average[0],
        vulnerable,
        h.mitigations.len()
    )
}

/// A seed claim with this run's verdict on it (`None`: not judged).
#[derive(Debug, Clone, Serialize)]
pub struct ClaimRow {
    pub id: String,
    pub seed: String,
    pub text: String,
    pub verdict: Option<String>,
    /// The verdict as said ("direction confirmed, size refuted" where "depends" would mislead).
    pub label: Option<String>,
    /// Some deciding checks were not measured: the verdict holds among what was.
    pub partly: bool,
    pub explanation: String,
    pub evidence: Vec<String>,
    /// The rule checked under each condition, what was measured and the decision.
    pub checks: Vec<String>,
    /// Beside each check, the figures it is computed from (empty when not known).
    pub figures: Vec<String>,
    /// "14 rounds, 97% of resamples agree".
    pub stability: Option<String>,
    /// What a full run adds to a quick run's verdict ([`full_run_note`]); empty otherwise.
    pub full_run: String,
}

/// A row of seed S0's six-dimension table with this run's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct DimensionRow {
    pub dimension: String,
    pub processes: String,
    pub threads: String,
    pub article_verdict: String,
    pub verdict: Option<String>,
    pub label: Option<String>,
    /// Some deciding checks were not measured: the verdict holds among what was.
    pub partly: bool,
    pub explanation: String,
    pub evidence: Vec<String>,
    pub checks: Vec<String>,
    /// Beside each check, the figures it is computed from (empty when not known).
    pub figures: Vec<String>,
    pub stability: Option<String>,
}

/// Every claim of `data/published.toml` except S0's table rows, and the six rows of S0's table,
/// each with its verdict from the document or the reason it has none.
pub fn claims_and_s0_table(answer: &Answer<'_>) -> (Vec<ClaimRow>, Vec<DimensionRow>) {
    let p = answer.published;
    let judged = |claim: &str| answer.verdict(claim).map(|va| va.verdict);
    let verdict = |claim: &str| judged(claim).map(|v| verdict_word(v.verdict).to_string());
    let label = |claim: &str| judged(claim).map(verdict_label);
    let partly = |claim: &str| judged(claim).is_some_and(|v| v.partly_judged());
    let unjudged = |claim: &str| {
        p.claims
            .iter()
            .find(|c| c.id == claim)
            .and_then(|c| c.unjudged.clone())
    };
    let explanation = |claim: &str, needs: Option<&[String]>| match (answer.verdict(claim), needs) {
        (Some(va), _) => va.prose.clone(),
        (None, _) if unjudged(claim).is_some() => {
            format!("Not judged here: {}", unjudged(claim).unwrap_or_default())
        }
        (None, Some([])) => {
            "Not measurable by a benchmark: it is a matter of practice, not of cost.".into()
        }
        (None, Some(needs)) => format!(
            "Not judged: this run lacks the evidence (measure it with `concbench run --only {}`).",
            needs.join(",")
        ),
        (None, None) => "Not judged: this run lacks the evidence for it.".into(),
    };
    let evidence = |claim: &str| {
        judged(claim)
            .map(|v| v.evidence.clone())
            .unwrap_or_default()
    };
    let checks = |claim: &str| {
        answer
            .verdict(claim)
            .map(|va| va.checks.iter().map(|c| check_line(c.check)).collect())
            .unwrap_or_default()
    };
    let figures = |claim: &str| {
        answer
            .verdict(claim)
            .map(|va| {
                va.checks
                    .iter()
                    .map(|c| figures_line(c).unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default()
    };
    let stability = |claim: &str| {
        judged(claim).and_then(|v| {
            let rounds = v.rounds?;
            Some(if has_interval(v) && v.robustness.is_some() {
                format!("{rounds} rounds, {} of resamples agree", robustness_cell(v))
            } else {
                format!("{rounds} round(s): too few for an interval")
            })
        })
    };
    let in_table = |id: &str| p.dimensions.iter().any(|d| d.claim == id);
    let claims = p
        .claims
        .iter()
        .filter(|c| !in_table(&c.id))
        .map(|c| ClaimRow {
            id: c.id.clone(),
            seed: c.seed.clone(),
            text: c.text.clone(),
            verdict: verdict(&c.id),
            label: label(&c.id),
            partly: partly(&c.id),
            explanation: explanation(&c.id, None),
            evidence: evidence(&c.id),
            checks: checks(&c.id),
            figures: figures(&c.id),
            stability: stability(&c.id),
            full_run: judged(&c.id)
                .map(|v| full_run_note(v).trim().to_string())
                .unwrap_or_default(),
        })
        .collect();
    let dimensions = p
        .dimensions
        .iter()
        .map(|d| DimensionRow {
            dimension: d.dimension.clone(),
            processes: d.processes.clone(),
            threads: d.threads.clone(),
            article_verdict: d.article_verdict.clone(),
            verdict: verdict(&d.claim),
            label: label(&d.claim),
            partly: partly(&d.claim),
            explanation: explanation(&d.claim, Some(&d.needs)),
            evidence: evidence(&d.claim),
            checks: checks(&d.claim),
            figures: figures(&d.claim),
            stability: stability(&d.claim),
        })
        .collect();
    (claims, dimensions)
}

/// What opens S0's table in every renderer: the article's own heading over it, and what the run
/// does with it.
pub const S0_TABLE_OPENING: &str = "The article heads this table 「FIXME:需要重新验证」 \
     (‘FIXME: needs re-verification’). This is that re-verification: each row that a benchmark \
     can decide is answered by this run's measurements on this machine, with its verdict.";

pub const S0_TABLE_HEADER: [&str; 6] = [
    "dimension",
    "article: processes",
    "article: threads",
    "article's verdict",
    "verdict here",
    "evidence and explanation",
];

/// S0's table as text rows, for the terminal and markdown.
pub fn s0_table_rows(answer: &Answer<'_>) -> Vec<[String; 6]> {
    claims_and_s0_table(answer)
        .1
        .into_iter()
        .map(|d| {
            let evidence = if d.evidence.is_empty() {
                String::new()
            } else {
                format!(" (evidence: {})", d.evidence.join(", "))
            };
            [
                d.dimension,
                d.processes,
                d.threads,
                d.article_verdict,
                match (d.label, d.partly) {
                    (Some(v), true) => format!("partly judged: {v}"),
                    (Some(v), false) => v,
                    (None, _) => "not judged".into(),
                },
                format!("{}{evidence}", d.explanation),
            ]
        })
        .collect()
}

/// Whether any row of S0's table has a verdict in this document (text renderers show the table
/// only then, to keep a partial run's output short).
pub fn s0_table_judged(answer: &Answer<'_>) -> bool {
    claims_and_s0_table(answer)
        .1
        .iter()
        .any(|d| d.verdict.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result document with one `contend.alternate` entry per placement.
    fn doc_with_alternates(placements: &[&str]) -> ResultDoc {
        use concbench_analysis::synthetic::{doc, entry_with};
        let params = |p: &str| {
            concbench_core::Params::new()
                .with("placement", p)
                .with("event", "eventfd")
        };
        doc(placements
            .iter()
            .map(|p| entry_with("contend.alternate", "ns", params(p), &[2000.0]))
            .collect())
    }

    #[test]
    fn a_figure_matching_several_results_names_what_tells_them_apart() {
        let doc = doc_with_alternates(&["same-cpu", "unpinned"]);
        let rows = replication_rows(&Answer::of(&doc));
        let whats: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
        assert_eq!(whats.len(), 2, "{whats:?}");
        assert!(
            whats[0].ends_with("[event=eventfd placement=same-cpu]"),
            "{whats:?}"
        );
        assert!(
            whats[1].ends_with("[event=eventfd placement=unpinned]"),
            "{whats:?}"
        );
    }

    #[test]
    fn regression_a_check_was_marked_at_the_margin_by_its_notes_wording() {
        use concbench_analysis::synthetic::check;
        use concbench_core::{AtMargin, VerdictKind};
        // The line once left out the mark when the note said "at the margin" and showed it
        // otherwise: a note's wording decided what the typed label says.
        let marked = |c: &concbench_core::Check| check_line(c).contains(", at the margin over ");
        let mut c = check("same CPU", "p / t >= 1.15", 1.5, VerdictKind::Confirmed);
        c.note = "clear of its rule, not at the margin".into();
        assert!(!marked(&c), "{}", check_line(&c));
        c.at_margin = Some(AtMargin {
            margin: 1.15,
            distance: 0.05,
            half_width: 0.12,
        });
        for note in [
            "at the margin: the estimate is 0.05 from 1.15",
            "close to its rule's number: a rerun may well say otherwise",
        ] {
            c.note = note.into();
            assert!(marked(&c), "{}", check_line(&c));
        }
    }

    #[test]
    fn a_single_match_keeps_the_published_wording() {
        let doc = doc_with_alternates(&["unpinned"]);
        let rows = replication_rows(&Answer::of(&doc));
        assert_eq!(rows.len(), 1);
        assert!(!rows[0][1].contains('['), "{}", rows[0][1]);
    }
}
