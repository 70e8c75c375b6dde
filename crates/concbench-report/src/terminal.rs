//! The terminal table printed after a run (and by `concbench report`).

use crate::{anatomy, runtimes, sections, Exporter};
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use concbench_core::ResultDoc;
use std::fmt::Write;

/// Tables sized to the terminal (or 120 columns when not a terminal).
pub struct Terminal {
    pub width: Option<u16>,
}

impl Terminal {
    fn table<const N: usize>(&self, header: [&str; N], rows: &[[String; N]]) -> Table {
        table(header, rows, self.width)
    }
}

/// A terminal table (120 columns unless `width` says otherwise), for every command's output.
pub fn table<const N: usize>(header: [&str; N], rows: &[[String; N]], width: Option<u16>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(width.unwrap_or(120));
    t.set_header(header);
    for r in rows {
        t.add_row(r.iter());
    }
    t
}

impl Exporter for Terminal {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        let mut out = String::new();
        writeln!(out, "concbench {} — {}", doc.tool.version, doc.started_at)?;
        writeln!(out, "{}", sections::host_line(doc))?;
        for w in &doc.warnings {
            writeln!(out, "warning: {w}")?;
        }
        let (rows, notes) = sections::result_rows(doc);
        if !rows.is_empty() {
            writeln!(out, "{}", self.table(sections::RESULT_HEADER, &rows))?;
        }
        for (i, n) in notes.iter().enumerate() {
            writeln!(out, "[{}] {n}", i + 1)?;
        }
        let across = runtimes::runtime_rows(doc);
        if !across.is_empty() {
            writeln!(out, "\nAcross runtimes (median per operation):")?;
            writeln!(out, "{}", self.table(runtimes::RUNTIMES_HEADER, &across))?;
        }
        for n in runtimes::runtime_notes(doc) {
            writeln!(out, "{n}")?;
        }
        out.push_str(&anatomy::text(doc, self.width));
        let replication = sections::replication_rows(doc);
        if !replication.is_empty() {
            writeln!(out, "\nPublished vs measured here:")?;
            writeln!(
                out,
                "{}",
                self.table(sections::REPLICATION_HEADER, &replication)
            )?;
        }
        let verdicts = sections::verdict_rows(doc);
        if !verdicts.is_empty() {
            writeln!(out, "\nVerdicts:")?;
            writeln!(out, "{}", self.table(sections::VERDICT_HEADER, &verdicts))?;
        }
        if sections::s0_table_judged(doc) {
            writeln!(out, "\nSeed S0's comparison table, re-verified:")?;
            let rows = sections::s0_table_rows(doc);
            writeln!(out, "{}", self.table(sections::S0_TABLE_HEADER, &rows))?;
        }
        for s in sections::skipped_lines(doc) {
            writeln!(out, "skipped: {s}")?;
        }
        for f in sections::failure_lines(doc) {
            writeln!(out, "FAILED: {f}")?;
        }
        for i in sections::invalid_lines(doc) {
            writeln!(out, "INVALID (not a measurement): {i}")?;
        }
        if doc.interrupted {
            writeln!(
                out,
                "(interrupted: the run stopped early; results above are complete variants only)"
            )?;
        }
        Ok(out)
    }
}
