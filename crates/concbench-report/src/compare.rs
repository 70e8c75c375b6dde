//! `concbench compare`: B/A per matching result, with interval and significance after
//! false-discovery control, geometric means per unit, and every run's verdicts side by side with
//! the changed ones flagged. The statistics come from `concbench_analysis::comparison`.

use crate::sections::verdict_word;
use crate::{format, terminal::table};
use concbench_analysis::comparison::{RunComparison, VerdictRow, ALPHA};
use std::fmt::Write;

const HEADER: [&str; 7] = ["id", "params", "A", "B", "B/A", "95% CI", "p (q after BH)"];

/// Results of run B against run A, as text: a table, what matched nothing, summaries per unit.
pub fn comparison_text(c: &RunComparison<'_>, a: &str, b: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "A = {a}\nB = {b}");
    let rows: Vec<[String; 7]> = c
        .pairs
        .iter()
        .map(|p| {
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
        })
        .collect();
    if rows.is_empty() {
        let _ = writeln!(out, "No result appears in both runs (same id and params).");
    } else {
        let _ = writeln!(out, "{}", table(HEADER, &rows, None));
        let _ = writeln!(
            out,
            "B/A is the Hodges-Lehmann ratio of the two runs' rounds, its interval the one that \
             inverts the Mann-Whitney test. (n.s.) = not significant: the interval includes 1, or \
             the p-value adjusted for {} comparisons (Benjamini-Hochberg, q) is >= {ALPHA}.",
            c.pairs.len()
        );
    }
    for (side, list) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        for r in list.iter() {
            let _ = writeln!(out, "only in {side}: {} {}", r.id, r.params.compact());
        }
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
    out
}

/// Every run's verdict per claim, side by side, with the changed ones flagged.
pub fn verdicts_text(rows: &[VerdictRow], runs: &[String]) -> String {
    let mut out = String::new();
    if rows.is_empty() {
        let _ = writeln!(out, "No run judged any claim.");
        return out;
    }
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
        .set_width(120);
    let mut header = vec!["claim".to_string()];
    header.extend(runs.iter().cloned());
    header.push("changed".into());
    t.set_header(header);
    for r in rows {
        let mut cells = vec![r.source.clone()];
        cells.extend(
            r.decisions
                .iter()
                .map(|d| d.map(verdict_word).unwrap_or("not judged").to_string()),
        );
        cells.push(if r.changed() {
            "CHANGED".into()
        } else {
            String::new()
        });
        t.add_row(cells);
    }
    let changed = rows.iter().filter(|r| r.changed()).count();
    let _ = writeln!(out, "{t}");
    let _ = writeln!(
        out,
        "{changed} of {} claims changed verdict between the runs that judged them.",
        rows.len()
    );
    out
}
