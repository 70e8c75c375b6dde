//! `concbench compare --json`: the comparison as a document a machine reads, described by
//! `schema/compare-v1.schema.json` (kept beside the result schema). Every figure is one the
//! terminal shows; nothing is computed here that the text does not say.

use concbench_analysis::comparison::{CompareSet, Compared, Pair, ALPHA};
use concbench_analysis::gate::{moved, Breach};
use concbench_analysis::variation::Counted;
use concbench_core::{Params, ResultEntry};
use serde::Serialize;

/// The value of the document's `schema` field.
pub const COMPARE_SCHEMA_ID: &str = "concbench-compare-v1";

#[derive(Serialize)]
struct Doc<'a> {
    schema: &'static str,
    /// The false discovery rate significance is decided at.
    alpha: f64,
    a: &'a str,
    selection: &'a str,
    /// The run-to-run variation counted, and where it came from (the history or the floor).
    variation: String,
    runs: Vec<Run<'a>>,
    verdicts: Verdicts,
    gate: Gate,
}

#[derive(Serialize)]
struct Run<'a> {
    name: &'a str,
    source: &'a str,
    results: Vec<Row<'a>>,
    only_in_a: Vec<Key<'a>>,
    only_in_b: Vec<Key<'a>>,
    by_unit: Vec<Unit>,
    compared: usize,
    significant: usize,
}

#[derive(Serialize)]
struct Key<'a> {
    id: &'a str,
    params: &'a Params,
}

#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    family: &'a str,
    params: &'a Params,
    unit: &'a str,
    a_median: f64,
    b_median: f64,
    /// Hodges-Lehmann B/A; null when the pair could not be compared (`why_not_compared`).
    ratio: Option<f64>,
    ci95: Option<[f64; 2]>,
    p_value: Option<f64>,
    q_value: Option<f64>,
    significant: bool,
    /// The run-level standard deviation counted (log scale) and where it came from:
    /// "history", "floor" or "rounds" (none counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    run_tau: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_tau_from: Option<&'static str>,
    /// "slower", "faster" (significant times and rates), "changed" (other units), "unchanged".
    change: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    why_not_compared: Option<String>,
}

#[derive(Serialize)]
struct Unit {
    unit: String,
    higher_is_better: bool,
    geometric_mean: f64,
    count: usize,
}

#[derive(Serialize)]
struct Verdicts {
    runs: Vec<String>,
    claims: Vec<Claim>,
    changed: usize,
}

#[derive(Serialize)]
struct Claim {
    source: String,
    claim: String,
    decisions: Vec<Option<concbench_core::VerdictKind>>,
    /// How much of the claim each run judged ("whole", "partly"), parallel to `decisions`.
    judged: Vec<Option<concbench_core::Judged>>,
    changed: bool,
}

#[derive(Serialize)]
struct Gate {
    rules: Vec<String>,
    /// False when any run breaks a rule (the command then exits 1).
    passed: bool,
    breaches: Vec<BreachJson>,
}

#[derive(Serialize)]
struct BreachJson {
    run: String,
    rule: String,
    kind: &'static str,
    /// The result's id, or the claim's source.
    subject: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<Params>,
    #[serde(skip_serializing_if = "Option::is_none")]
    change_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci95_percent: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    q_value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<concbench_core::VerdictKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<concbench_core::VerdictKind>,
    message: String,
}

fn key(e: &ResultEntry) -> Key<'_> {
    Key {
        id: &e.id,
        params: &e.params,
    }
}

fn row<'a>(p: &'a Pair<'a>) -> Row<'a> {
    let c = p.comparison;
    let change = match moved(p) {
        Some(d) => d.word(),
        None if p.significant() => "changed",
        None => "unchanged",
    };
    Row {
        id: &p.a.id,
        family: &p.a.family,
        params: &p.a.params,
        unit: &p.a.unit,
        a_median: p.a.summary.median,
        b_median: p.b.summary.median,
        ratio: c.map(|c| c.ratio),
        ci95: c.and_then(|c| c.ci).map(|(lo, hi)| [lo, hi]),
        p_value: c.map(|c| c.p_value),
        q_value: c.map(|c| c.q_value),
        significant: p.significant(),
        run_tau: c.map(|c| c.counted.tau()),
        run_tau_from: c.map(|c| match c.counted {
            Counted::RoundsOnly => "rounds",
            Counted::History { .. } => "history",
            Counted::Floor { .. } => "floor",
        }),
        change,
        why_not_compared: p.why_not_compared(),
    }
}

fn run<'a>(r: &'a Compared<'a>) -> Run<'a> {
    let c = &r.comparison;
    Run {
        name: &r.name,
        source: &r.source,
        results: c.pairs.iter().map(row).collect(),
        only_in_a: c.only_in_a.iter().map(|e| key(e)).collect(),
        only_in_b: c.only_in_b.iter().map(|e| key(e)).collect(),
        by_unit: c
            .by_unit()
            .into_iter()
            .map(|u| Unit {
                unit: u.unit,
                higher_is_better: u.higher_is_better,
                geometric_mean: u.geometric_mean,
                count: u.count,
            })
            .collect(),
        compared: c.pairs.iter().filter(|p| p.comparison.is_some()).count(),
        significant: c.significant_count(),
    }
}

fn breach(run: &str, b: &Breach<'_>) -> BreachJson {
    let message = crate::compare::breach_text(b);
    match b {
        Breach::Result {
            gate,
            pair,
            change_percent,
            interval_percent: (lo, hi),
        } => BreachJson {
            run: run.into(),
            rule: gate.to_string(),
            kind: "result",
            subject: pair.a.id.clone(),
            params: Some(pair.a.params.clone()),
            change_percent: Some(*change_percent),
            ci95_percent: Some([*lo, *hi]),
            q_value: pair.comparison.map(|c| c.q_value),
            from: None,
            to: None,
            message,
        },
        Breach::Verdict { row, a, b, .. } => BreachJson {
            run: run.into(),
            rule: "verdict-changed".into(),
            kind: "verdict",
            subject: row.source.clone(),
            params: None,
            change_percent: None,
            ci95_percent: None,
            q_value: None,
            from: Some(*a),
            to: Some(*b),
            message,
        },
    }
}

/// The comparison as pretty JSON (schema `concbench-compare-v1`).
pub fn compare_json(set: &CompareSet<'_>) -> anyhow::Result<String> {
    let breaches: Vec<BreachJson> = set
        .runs
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            set.breaches(i)
                .iter()
                .map(|b| breach(&r.name, b))
                .collect::<Vec<_>>()
        })
        .collect();
    let doc = Doc {
        schema: COMPARE_SCHEMA_ID,
        alpha: ALPHA,
        a: &set.a_source,
        selection: &set.selection,
        variation: set.variation_sentence(),
        runs: set.runs.iter().map(run).collect(),
        verdicts: Verdicts {
            runs: set.names(),
            claims: set
                .verdicts
                .iter()
                .map(|r| Claim {
                    source: r.source.clone(),
                    claim: r.claim.clone(),
                    decisions: r.decisions.clone(),
                    judged: r.judged.clone(),
                    changed: r.changed(),
                })
                .collect(),
            changed: set.verdicts.iter().filter(|r| r.changed()).count(),
        },
        gate: Gate {
            rules: set.gates.iter().map(ToString::to_string).collect(),
            passed: breaches.is_empty(),
            breaches,
        },
    };
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}
