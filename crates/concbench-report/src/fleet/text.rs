//! The fleet on the terminal: the hosts, the verdict matrix and the headline medians, as
//! tables sized to the terminal. The full picture (dot plots with intervals) is the HTML page.

use super::Fleet;
use crate::format;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use std::fmt::Write;

fn table(header: Vec<String>, rows: Vec<Vec<String>>, width: u16) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(header);
    for r in rows {
        t.add_row(r);
    }
    t
}

/// Hosts, verdicts by host, and each headline figure's medians by host.
pub fn text(fleet: &Fleet, width: Option<u16>) -> String {
    let width = width.unwrap_or(120);
    let mut out = String::new();
    let names: Vec<String> = fleet.members.iter().map(|m| m.name.clone()).collect();
    let hosts = fleet
        .members
        .iter()
        .map(|m| {
            vec![
                m.name.clone(),
                m.machine.chars().take(12).collect(),
                m.doc.host.kernel.clone(),
                m.source.clone(),
                m.doc.started_at.clone(),
            ]
        })
        .collect();
    let header = ["host", "machine", "kernel", "run shown", "started"].map(String::from);
    let _ = writeln!(out, "{} hosts:", names.len());
    let _ = writeln!(out, "{}", table(header.to_vec(), hosts, width));
    for e in &fleet.excluded {
        let _ = writeln!(out, "left out: {e}");
    }
    for n in &fleet.notes {
        let _ = writeln!(out, "note: {n}");
    }
    if !fleet.claims.is_empty() {
        let mut header = vec!["claim".to_string()];
        header.extend(names.iter().cloned());
        let rows = fleet
            .claims
            .iter()
            .map(|c| {
                let mut row = vec![c.source.clone()];
                row.extend((0..c.verdicts.len()).map(|i| c.word(i)));
                row
            })
            .collect();
        let _ = writeln!(out, "Verdicts by host:\n{}", table(header, rows, width));
    }
    for f in &fleet.figures {
        let mut header = vec![format!("{} (median)", f.title)];
        header.extend(names.iter().cloned());
        let rows = f
            .series
            .iter()
            .enumerate()
            .map(|(s, series)| {
                let mut row = vec![series.to_string()];
                row.extend(f.marks.iter().map(|marks| {
                    marks
                        .iter()
                        .find(|m| m.series == s)
                        .map(|m| format::value(m.value, f.unit))
                        .unwrap_or_else(|| "-".into())
                }));
                row
            })
            .collect();
        let _ = writeln!(out, "{}", table(header, rows, width));
    }
    let differing: Vec<&str> = fleet
        .facts
        .iter()
        .filter(|f| f.differs)
        .map(|f| f.fact)
        .collect();
    if !differing.is_empty() {
        let _ = writeln!(out, "Differs between hosts: {}.", differing.join(", "));
    }
    out
}
