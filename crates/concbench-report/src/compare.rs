//! `concbench compare`: B/A per matching result, with interval and significance, and the
//! geometric-mean summary line. The statistics come from `concbench_analysis::comparison`.

use crate::{format, terminal::table};
use concbench_analysis::comparison::{RunComparison, ALPHA};
use std::fmt::Write;

const HEADER: [&str; 7] = [
    "id",
    "params",
    "A",
    "B",
    "B/A",
    "95% CI",
    "p (Mann-Whitney)",
];

/// The comparison as text: a table, what matched nothing, and the summary line.
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
                    format!("[{}, {}]", format::sig3(cmp.ci.0), format::sig3(cmp.ci.1)),
                    format!("{:.3}", cmp.p_value),
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
            "(n.s.) = not significant: Mann-Whitney p >= {ALPHA}; the two runs may not differ."
        );
    }
    for (side, list) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        for r in list.iter() {
            let _ = writeln!(out, "only in {side}: {} {}", r.id, r.params.compact());
        }
    }
    match c.geometric_mean() {
        Some((g, n)) => {
            let _ = writeln!(
                out,
                "Geometric mean of B/A over {n} compared results: {}x ({} of them significant at {ALPHA}).",
                format::sig3(g),
                c.significant_count()
            );
        }
        None => {
            let _ = writeln!(
                out,
                "Geometric mean of B/A: none (no result could be compared)."
            );
        }
    }
    out
}
