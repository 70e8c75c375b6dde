//! `concbench compare`: B/A per matching result, with interval and significance after
//! false-discovery control, geometric means per unit, every run's verdicts side by side with
//! the changed ones flagged, and the `--fail-if` breaches — as terminal text (the changed rows
//! first, a count of the unchanged ones; every row with `--all`) and as markdown short enough
//! for a review comment. The statistics come from `concbench_analysis::comparison` and `gate`.

use crate::markdown::{cell, table as md_table};
use crate::sections::verdict_word;
use crate::{format, layout::table};
use concbench_analysis::comparison::{CompareSet, Compared, Pair, VerdictRow, ALPHA};
use concbench_analysis::gate::Breach;
use std::fmt::Write;

const HEADER: [&str; 7] = ["id", "params", "A", "B", "B/A", "95% CI", "p (q after BH)"];

/// One pair as table cells (the header above).
fn row(p: &Pair<'_>) -> [String; 7] {
    let (ratio, ci, pval) = match (p.comparison, p.why_not_compared()) {
        (Some(cmp), _) => (
            format!(
                "{}x{}",
                format::sig3(cmp.ratio),
                if p.significant() { "" } else { " (n.s.)" }
            ),
            cmp.ci
                .map(|(lo, hi)| format!("[{}, {}]", format::sig3(lo), format::sig3(hi)))
                .unwrap_or_else(|| "none: too few rounds".into()),
            format!("{:.3} ({:.3})", cmp.p_value, cmp.q_value),
        ),
        (None, why) => ("-".into(), why.unwrap_or_default(), "-".into()),
    };
    [
        p.a.id.clone(),
        p.a.params.compact(),
        format::value(p.a.summary.median, &p.a.unit),
        format::value(p.b.summary.median, &p.b.unit),
        ratio,
        ci,
        pval,
    ]
}

/// The pairs shown: every one with `all`, else the significant ones.
fn shown<'p>(r: &'p Compared<'_>, all: bool) -> Vec<&'p Pair<'p>> {
    r.comparison
        .pairs
        .iter()
        .filter(|p| all || p.significant())
        .collect()
}

/// The count line of what the quiet view leaves out, or `None` when it leaves nothing out.
fn unchanged_line(r: &Compared<'_>) -> Option<String> {
    let c = &r.comparison;
    let compared = c.pairs.iter().filter(|p| p.comparison.is_some()).count();
    let unchanged = compared - c.significant_count();
    let not_compared = c.pairs.len() - compared;
    let mut parts = vec![format!(
        "{unchanged} results unchanged (not significantly different)"
    )];
    if not_compared > 0 {
        parts.push(format!("{not_compared} not compared"));
    }
    let only = (c.only_in_a.len(), c.only_in_b.len());
    if only != (0, 0) {
        parts.push(format!(
            "{} only in A, {} only in {}",
            only.0, only.1, r.name
        ));
    }
    (unchanged + not_compared + only.0 + only.1 > 0).then(|| parts.join("; "))
}

/// One later run against A, as text.
fn run_text(out: &mut String, set: &CompareSet<'_>, r: &Compared<'_>, all: bool) {
    let c = &r.comparison;
    let _ = writeln!(out, "A = {}\n{} = {}", set.a_source, r.name, r.source);
    if !set.selection.is_empty() {
        let _ = writeln!(out, "Results selected by {}.", set.selection);
    }
    let rows: Vec<[String; 7]> = shown(r, all).into_iter().map(row).collect();
    if c.pairs.is_empty() {
        let _ = writeln!(out, "No result appears in both runs (same id and params).");
    } else if rows.is_empty() {
        let _ = writeln!(out, "No result changed significantly.");
    } else {
        let _ = writeln!(out, "{}", table(HEADER, &rows, None));
        let _ = writeln!(
            out,
            "B/A is the Hodges-Lehmann ratio of the two runs' rounds, its interval the one that \
             inverts the Mann-Whitney test, widened by the run-to-run variation below. (n.s.) = \
             not significant: the interval includes 1, or the p-value adjusted for {} comparisons \
             (Benjamini-Hochberg, q) is >= {ALPHA}.",
            c.pairs.len()
        );
    }
    if all {
        for (side, list) in [("A", &c.only_in_a), (r.name.as_str(), &c.only_in_b)] {
            for e in list.iter() {
                let _ = writeln!(out, "only in {side}: {} {}", e.id, e.params.compact());
            }
        }
    } else if let Some(line) = unchanged_line(r) {
        let _ = writeln!(out, "{line}: not shown (--all shows every row).");
    }
    let units = c.by_unit();
    if units.is_empty() {
        let _ = writeln!(out, "No result could be compared.");
    }
    for u in units {
        let _ = writeln!(
            out,
            "Geometric mean of B/A over {} results in {}: {}x ({} is better).",
            u.count,
            u.unit,
            format::sig3(u.geometric_mean),
            if u.higher_is_better {
                "higher"
            } else {
                "lower"
            }
        );
    }
    let _ = writeln!(
        out,
        "{} of {} compared results differ significantly.",
        c.significant_count(),
        c.pairs.iter().filter(|p| p.comparison.is_some()).count()
    );
}

/// Everything `compare` prints: each later run against A (changed rows only unless `all`),
/// then the verdicts run by run (changed claims only unless `all`).
pub fn compare_text(set: &CompareSet<'_>, all: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}.", capitalised(&set.variation_sentence()));
    for r in &set.runs {
        if set.runs.len() > 1 {
            let _ = writeln!(out, "== {} against A", r.name);
        }
        run_text(&mut out, set, r, all);
    }
    let _ = writeln!(out, "\nVerdicts, run by run:");
    out.push_str(&verdicts_text(&set.verdicts, &set.names(), all));
    out
}

/// Every run's verdict per claim, side by side, with the changed ones flagged (only those
/// unless `all`).
pub fn verdicts_text(rows: &[VerdictRow], runs: &[String], all: bool) -> String {
    let mut out = String::new();
    if rows.is_empty() {
        let _ = writeln!(out, "No run judged any claim.");
        return out;
    }
    let changed = rows.iter().filter(|r| r.changed()).count();
    if all || changed > 0 {
        let mut t = comfy_table::Table::new();
        t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
            .set_width(120);
        let mut header = vec!["claim".to_string()];
        header.extend(runs.iter().cloned());
        header.push("changed".into());
        t.set_header(header);
        for r in rows.iter().filter(|r| all || r.changed()) {
            let mut cells = vec![r.source.clone()];
            cells.extend(decision_words(r));
            cells.push(if r.changed() {
                "CHANGED".into()
            } else {
                String::new()
            });
            t.add_row(cells);
        }
        let _ = writeln!(out, "{t}");
    }
    let _ = writeln!(
        out,
        "{changed} of {} claims changed verdict between the runs that judged them.",
        rows.len()
    );
    out
}

/// Each run's verdict as said, "partly judged" kept.
fn decision_words(r: &VerdictRow) -> impl Iterator<Item = String> + '_ {
    (0..r.decisions.len()).map(|i| r.word(i).unwrap_or_else(|| "not judged".to_string()))
}

/// `s` with its first letter upper case (a sentence opening a paragraph).
fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A percentage of change with its sign: `+50.1%`.
fn pct(v: f64) -> String {
    format!("{v:+.1}%")
}

/// One breach in a sentence: what, by how much, with its interval and q.
pub fn breach_text(b: &Breach<'_>) -> String {
    match b {
        Breach::Result {
            gate,
            pair,
            change_percent,
            interval_percent: (lo, hi),
        } => {
            let q = pair.comparison.map_or(f64::NAN, |c| c.q_value);
            format!(
                "{gate}: {} {} {} (A {} -> B {}, 95% CI [{}, {}], q = {q:.3})",
                pair.a.id,
                pair.a.params.compact(),
                pct(*change_percent),
                format::value(pair.a.summary.median, &pair.a.unit),
                format::value(pair.b.summary.median, &pair.b.unit),
                pct(*lo),
                pct(*hi),
            )
        }
        Breach::Verdict { row, a, b, column } => format!(
            "verdict-changed: {} {} -> {} ({})",
            row.source,
            row.word(0).unwrap_or_else(|| verdict_word(*a).to_string()),
            row.word(*column)
                .unwrap_or_else(|| verdict_word(*b).to_string()),
            row.claim
        ),
    }
}

/// The gate's outcome, one line per breach then a summary (for stderr); empty without
/// `--fail-if`.
pub fn gate_lines(set: &CompareSet<'_>) -> Vec<String> {
    if set.gates.is_empty() {
        return Vec::new();
    }
    let rules = rules_text(set);
    let mut lines = Vec::new();
    let mut total = 0;
    for (i, r) in set.runs.iter().enumerate() {
        for b in set.breaches(i) {
            total += 1;
            lines.push(format!(
                "compare: breach ({} against A): {}",
                r.name,
                breach_text(&b)
            ));
        }
    }
    lines.push(if total == 0 {
        format!("compare: no breach of --fail-if {rules}")
    } else {
        format!("compare: {total} breach(es) of --fail-if {rules}: failing (exit 1)")
    });
    lines
}

fn rules_text(set: &CompareSet<'_>) -> String {
    set.gates
        .iter()
        .map(|g| format!("'{g}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The comparison as markdown for a review comment: the gate's outcome, the changed results
/// and verdicts only, then a count of the unchanged ones.
pub fn compare_markdown(set: &CompareSet<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### concbench compare\n");
    if !set.gates.is_empty() {
        let n: usize = (0..set.runs.len()).map(|i| set.breaches(i).len()).sum();
        let outcome = if n == 0 {
            "passed".to_string()
        } else {
            format!("**failed**, {n} breach(es)")
        };
        let note = if n == 0 {
            ""
        } else {
            " (the breaching rows in bold)"
        };
        let _ = writeln!(out, "Gate {}: {outcome}{note}.\n", cell(&rules_text(set)));
    }
    let _ = writeln!(out, "A: {}  ", cell(&set.a_source));
    for r in &set.runs {
        let _ = writeln!(out, "{}: {}  ", r.name, cell(&r.source));
    }
    if !set.selection.is_empty() {
        let _ = writeln!(out, "Results selected by `{}`.", set.selection);
    }
    let _ = writeln!(out, "{}.", capitalised(&set.variation_sentence()));
    out.push('\n');
    for i in 0..set.runs.len() {
        run_markdown(&mut out, set, i);
    }
    verdicts_markdown(&mut out, set);
    out
}

fn run_markdown(out: &mut String, set: &CompareSet<'_>, i: usize) {
    let r = &set.runs[i];
    let breaches = set.breaches(i);
    let breached: Vec<&Pair<'_>> = breaches
        .iter()
        .filter_map(|b| match b {
            Breach::Result { pair, .. } => Some(*pair),
            Breach::Verdict { .. } => None,
        })
        .collect();
    let rows: Vec<[String; 7]> = shown(r, false)
        .into_iter()
        .map(|p| {
            let mut cells = row(p);
            if breached.iter().any(|b| std::ptr::eq(*b, p)) {
                cells[4] = format!("**{}**", cells[4]);
            }
            cells
        })
        .collect();
    let mut header = HEADER;
    header[3] = &r.name;
    let of = format!("{}/A", r.name);
    header[4] = &of;
    if rows.is_empty() {
        let _ = writeln!(out, "{}: no result changed significantly.", r.name);
    } else {
        let _ = md_table(out, header, &rows);
    }
    if let Some(line) = unchanged_line(r) {
        let _ = writeln!(
            out,
            "\n{line}: significance after Benjamini-Hochberg at q < {ALPHA}; `concbench compare \
             --all` lists every row.\n"
        );
    } else {
        out.push('\n');
    }
}

fn verdicts_markdown(out: &mut String, set: &CompareSet<'_>) {
    let changed: Vec<&VerdictRow> = set.verdicts.iter().filter(|r| r.changed()).collect();
    if !changed.is_empty() {
        let names = set.names();
        let _ = writeln!(out, "| claim | {} |", names.join(" | "));
        let _ = writeln!(out, "|{}", "---|".repeat(names.len() + 1));
        for r in &changed {
            let cells: Vec<String> = decision_words(r).collect();
            let _ = writeln!(out, "| {} | {} |", cell(&r.source), cells.join(" | "));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{} of {} claims changed verdict; {} unchanged.",
        changed.len(),
        set.verdicts.len(),
        set.verdicts.len() - changed.len()
    );
}
