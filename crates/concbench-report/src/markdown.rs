//! Markdown: the same sections as the terminal, as GitHub-flavoured tables.

use crate::{runtimes, sections, Exporter};
use concbench_analysis::answer::Answer;
use concbench_core::ResultDoc;
use std::fmt::Write;

pub struct Markdown;

/// Escape a cell: pipes would end it, newlines would end the row.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

pub(crate) fn table<const N: usize>(
    out: &mut String,
    header: [&str; N],
    rows: &[[String; N]],
) -> std::fmt::Result {
    writeln!(out, "| {} |", header.join(" | "))?;
    writeln!(out, "|{}", "---|".repeat(N))?;
    for r in rows {
        writeln!(
            out,
            "| {} |",
            r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        )?;
    }
    Ok(())
}

impl Exporter for Markdown {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        self.render_answer(&Answer::of(doc))
    }
}

impl Markdown {
    /// The markdown of an answer computed beforehand: every figure in it is the answer's.
    pub fn render_answer(&self, answer: &Answer<'_>) -> anyhow::Result<String> {
        let doc = answer.doc;
        let mut out = String::new();
        writeln!(out, "# concbench results\n")?;
        writeln!(
            out,
            "concbench {}, started {}.\n",
            doc.tool.version, doc.started_at
        )?;
        writeln!(out, "**Host:** {}\n", cell(&sections::host_line(doc)))?;
        for w in &doc.warnings {
            writeln!(out, "> warning: {}\n", cell(&w.to_string()))?;
        }
        answer_section(&mut out, answer)?;
        capacity_sections(&mut out, doc)?;
        crossover_section(&mut out, doc)?;
        if doc.capacity.is_some() && doc.results.is_empty() {
            return Ok(out);
        }
        let (rows, notes) = sections::result_rows(doc);
        writeln!(out, "## Results\n")?;
        if let Some(line) = &answer.intervals_alone {
            writeln!(out, "{}\n", cell(line))?;
        }
        table(&mut out, sections::RESULT_HEADER, &rows)?;
        if !notes.is_empty() {
            writeln!(out)?;
            for (i, n) in notes.iter().enumerate() {
                writeln!(out, "{}. {}", i + 1, cell(n))?;
            }
        }
        let across = runtimes::runtime_rows(doc);
        if !across.is_empty() {
            writeln!(out, "\n## Across runtimes (median per operation)\n")?;
            table(&mut out, runtimes::RUNTIMES_HEADER, &across)?;
            for n in runtimes::runtime_notes(doc) {
                writeln!(out, "\n{}", cell(&n))?;
            }
        }
        let replication = sections::replication_rows(answer);
        if !replication.is_empty() {
            writeln!(out, "\n## Published vs measured here\n")?;
            table(&mut out, sections::REPLICATION_HEADER, &replication)?;
        }
        let verdicts = sections::verdict_rows(answer);
        if !verdicts.is_empty() {
            writeln!(out, "\n## Verdicts\n")?;
            table(&mut out, sections::VERDICT_HEADER, &verdicts)?;
        }
        if let Some(h) = doc.history.as_ref().filter(|h| !h.verdicts.is_empty()) {
            writeln!(out, "\n## Over this host's history ({})\n", h.heading())?;
            let rows: Vec<[String; 2]> = h
                .verdicts
                .iter()
                .map(|v| [v.source.clone(), v.sentence()])
                .collect();
            table(&mut out, ["claim", "over the runs"], &rows)?;
            // A check whose pooled rounds fall in separate modes: the modes and what separates
            // them, under the table (as the HTML page's evidence column).
            for v in &h.verdicts {
                for c in v.checks.iter().filter(|c| !c.modes.is_empty()) {
                    writeln!(out, "- {}, {}: {}", v.source, c.condition, cell(&c.note))?;
                }
            }
        }
        if sections::s0_table_judged(answer) {
            writeln!(out, "\n## Seed S0's comparison table, re-verified\n")?;
            writeln!(out, "{}\n", sections::S0_TABLE_OPENING)?;
            table(
                &mut out,
                sections::S0_TABLE_HEADER,
                &sections::s0_table_rows(answer),
            )?;
        }
        let skipped = sections::skipped_lines(doc);
        let failed = sections::failure_lines(doc);
        let invalid = sections::invalid_lines(doc);
        if !skipped.is_empty() || !failed.is_empty() || !invalid.is_empty() {
            writeln!(out, "\n## Not measured\n")?;
            for s in skipped {
                writeln!(out, "- skipped: {}", cell(&s))?;
            }
            for f in failed {
                writeln!(out, "- **failed**: {}", cell(&f))?;
            }
            for i in invalid {
                writeln!(out, "- **invalid** (not a measurement): {}", cell(&i))?;
            }
        }
        Ok(out)
    }
}

/// The crossover sweep: where each pair crosses, the error, every point, the method.
fn crossover_section(out: &mut String, doc: &ResultDoc) -> std::fmt::Result {
    use crate::crossover as x;
    let Some(c) = &doc.crossover else {
        return Ok(());
    };
    writeln!(
        out,
        "## The crossover: where each design stops keeping up, measured and predicted\n"
    )?;
    table(out, x::PAIR_HEADER, &x::pair_rows(c))?;
    writeln!(out, "\n{}.\n", cell(&x::error_line(c)))?;
    writeln!(out, "### Every point: requests/s measured and predicted\n")?;
    table(out, x::POINT_HEADER, &x::point_rows(c))?;
    writeln!(out)?;
    for line in x::method_lines(c) {
        writeln!(out, "- {}", cell(&line))?;
    }
    writeln!(out)
}

/// `capacity`'s table, the limits read and each model in full; the CPU limit and what each
/// runtime sized itself for under it.
fn capacity_sections(out: &mut String, doc: &ResultDoc) -> std::fmt::Result {
    use crate::capacity as cap;
    if let Some(c) = &doc.capacity {
        writeln!(
            out,
            "## How many idle units fit here, and what stops them first\n"
        )?;
        table(out, cap::CAPACITY_HEADER, &cap::capacity_rows(c))?;
        writeln!(out)?;
        for line in cap::capacity_setting_lines(c) {
            writeln!(out, "{}\n", cell(&line))?;
        }
        writeln!(out, "### The limits read (never raised)\n")?;
        table(out, cap::LIMIT_HEADER, &cap::limit_rows(c))?;
        writeln!(out)?;
        for line in cap::model_lines(c) {
            writeln!(out, "- {}", cell(&line))?;
        }
        writeln!(out)?;
    }
    if let Some(k) = &doc.container {
        writeln!(out, "## Under a CPU limit\n")?;
        writeln!(out, "{}\n", cell(&cap::limit_line(k)))?;
        table(out, cap::CONTAINER_HEADER, &cap::container_rows(k))?;
        let figures = cap::under_limit_lines(doc);
        if !figures.is_empty() {
            writeln!(out, "\nUnder this limit:\n")?;
            for f in figures {
                writeln!(out, "- {}", cell(&f))?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// What one unit costs and the cheapest model per typical workload, as the terminal's first
/// screen says them ("among what was measured" when a kind of unit was not).
fn answer_section(out: &mut String, answer: &Answer<'_>) -> std::fmt::Result {
    if !answer.any_unit_cost() {
        return Ok(());
    }
    let among = answer
        .among_measured()
        .map(|a| format!(", {a}"))
        .unwrap_or_default();
    let units = crate::answer::unit_rows(answer);
    writeln!(out, "## What one unit costs here{among}\n")?;
    table(
        out,
        crate::answer::UNIT_HEADER,
        &crate::answer::unit_text_rows(&units),
    )?;
    writeln!(out)?;
    for d in crate::answer::unit_definitions(&units) {
        writeln!(out, "{}\n", cell(&d))?;
    }
    writeln!(
        out,
        "## Cheapest here{among}, and units per second in 10% of one CPU\n"
    )?;
    table(
        out,
        [
            "workload",
            "terms",
            "cheapest",
            "units/s in 10% of one CPU (work + overhead); overhead / work",
        ],
        &crate::answer::workload_rows(answer),
    )?;
    writeln!(out)
}
