//! The fleet as markdown (GitHub-flavoured tables): the same sections as the page, with the
//! dot plots' numbers as tables (one row per host, one column per kind of unit).

use super::{Figure, Fleet};
use crate::format;
use std::fmt::Write;

/// Escape a cell: pipes would end it, newlines would end the row.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for r in rows {
        let cells: Vec<String> = r.iter().map(|c| cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

/// The whole fleet report.
pub fn markdown(fleet: &Fleet) -> String {
    let mut out = String::new();
    let names: Vec<String> = fleet.members.iter().map(|m| m.name.clone()).collect();
    let _ = writeln!(out, "# concbench fleet: {} hosts\n", names.len());
    let _ = writeln!(out, "## Hosts\n");
    let header = [
        "host",
        "machine id",
        "kernel",
        "CPU",
        "run shown",
        "started",
        "older runs",
    ];
    let rows: Vec<Vec<String>> = fleet
        .members
        .iter()
        .map(|m| {
            vec![
                m.name.clone(),
                m.machine.clone(),
                m.doc.host.kernel.clone(),
                m.doc.host.cpu_model.clone(),
                m.source.clone(),
                m.doc.started_at.clone(),
                m.older.to_string(),
            ]
        })
        .collect();
    table(&mut out, &header.map(String::from), &rows);
    for e in &fleet.excluded {
        let _ = writeln!(out, "- left out: {e}");
    }
    for n in &fleet.notes {
        let _ = writeln!(out, "- note: {n}");
    }
    if !fleet.excluded.is_empty() || !fleet.notes.is_empty() {
        out.push('\n');
    }

    let _ = writeln!(out, "## Verdicts by host\n");
    let mut header = vec!["claim (seed)".to_string()];
    header.extend(names.iter().cloned());
    let rows: Vec<Vec<String>> = fleet
        .claims
        .iter()
        .map(|c| {
            let mut row = vec![format!("{} ({})", c.claim, c.source)];
            row.extend((0..c.verdicts.len()).map(|i| c.word(i)));
            row
        })
        .collect();
    table(&mut out, &header, &rows);

    let _ = writeln!(out, "## Headline figures (median [95% interval])\n");
    for f in &fleet.figures {
        figure(&mut out, f, &names);
    }

    let _ = writeln!(out, "## What differs between the hosts\n");
    let mut header = vec!["fact".to_string()];
    header.extend(names.iter().cloned());
    let rows: Vec<Vec<String>> = fleet
        .facts
        .iter()
        .filter(|f| f.differs)
        .map(|f| {
            let mut row = vec![f.fact.to_string()];
            row.extend(f.values.iter().cloned());
            row
        })
        .collect();
    if rows.is_empty() {
        let _ = writeln!(out, "Nothing: every host reports the same facts.\n");
    } else {
        table(&mut out, &header, &rows);
    }
    let same: Vec<String> = fleet
        .facts
        .iter()
        .filter(|f| !f.differs)
        .map(|f| {
            format!(
                "{} {}",
                f.fact,
                f.values.first().cloned().unwrap_or_default()
            )
        })
        .collect();
    if !same.is_empty() {
        let _ = writeln!(out, "The same on every host: {}.", same.join("; "));
    }
    out
}

fn figure(out: &mut String, f: &Figure, names: &[String]) {
    let _ = writeln!(out, "### {}\n\n{}\n", f.title, f.caption);
    let mut header = vec!["host".to_string()];
    header.extend(f.series.iter().map(|s| s.to_string()));
    let rows: Vec<Vec<String>> = names
        .iter()
        .zip(&f.marks)
        .map(|(name, marks)| {
            let mut row = vec![name.clone()];
            row.extend((0..f.series.len()).map(|s| {
                marks
                    .iter()
                    .find(|m| m.series == s)
                    .map(|m| match m.interval {
                        Some((lo, hi)) => format!(
                            "{} {}",
                            format::value(m.value, f.unit),
                            format::interval(m.value, Some([lo, hi]), f.unit)
                        ),
                        None => format!("{} (no interval)", format::value(m.value, f.unit)),
                    })
                    .unwrap_or_else(|| "not measured".into())
            }));
            row
        })
        .collect();
    table(out, &header, &rows);
}
