//! What `run`, `replicate` and `report` print on the terminal: the answer, on about one screen —
//! what one unit of each kind costs, the cheapest model per typical workload, one line per
//! verdict, the run-wide warnings with counts of what else the document holds, and where the
//! document and the page are. With `all`, every table comes first (every result with its
//! notes, the runtimes, the anatomy, published vs measured, the verdicts in full, S0's table,
//! every skipped, failed and invalid variant), then the summary, so that the answer is what
//! stays on the screen.

use crate::{anatomy, answer, runtimes, sections, Exporter};
use comfy_table::presets::{NOTHING, UTF8_FULL_CONDENSED};
use comfy_table::{ContentArrangement, Table};
use concbench_core::{human, Check, ResultDoc, Verdict, VerdictKind};
use std::fmt::Write;
use std::path::PathBuf;

/// The terminal output, sized to `width` columns (120 when not given).
#[derive(Debug, Clone, Default)]
pub struct Terminal {
    pub width: Option<u16>,
    /// Every table before the summary (`--all`, `-v`).
    pub all: bool,
    /// Where the run's files are, for the summary's last lines.
    pub files: Files,
}

/// The files a summary points to.
#[derive(Debug, Clone, Default)]
pub struct Files {
    /// The result document (JSON).
    pub document: Option<PathBuf>,
    /// The HTML page, when one was written.
    pub page: Option<PathBuf>,
}

impl Terminal {
    fn table<const N: usize>(&self, header: [&str; N], rows: &[[String; N]]) -> Table {
        table(header, rows, self.width)
    }
}

/// The width of the terminal stdout is, when it is one (a pipe or a file gets the default 120
/// columns, so that what is written there does not depend on the window it was started from).
pub fn stdout_width() -> Option<u16> {
    Table::new().width()
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

/// Rows laid out in columns without borders or header (long cells wrap within `width`).
fn columns<const N: usize>(rows: &[[String; N]], width: Option<u16>) -> String {
    let mut t = Table::new();
    t.load_preset(NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(width.unwrap_or(120));
    for r in rows {
        t.add_row(r.iter());
    }
    let text = t.to_string();
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n")
}

impl Exporter for Terminal {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        let mut out = String::new();
        if self.all {
            out += &self.detail(doc)?;
            writeln!(out)?;
        }
        out += &self.summary(doc)?;
        Ok(out)
    }
}

impl Terminal {
    /// The answer on one screen.
    fn summary(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        let mut out = String::new();
        writeln!(
            out,
            "concbench {} — {}{}",
            doc.tool.version,
            doc.started_at,
            mode(doc)
        )?;
        writeln!(out, "{}", short_host_line(doc))?;
        let units = answer::unit_rows(doc);
        if answer::any_unit_cost(&units) {
            writeln!(out, "\nWhat one unit costs here (median [95% CI]):")?;
            let mut rows = vec![answer::UNIT_HEADER.map(String::from)];
            rows.extend(answer::unit_text_rows(&units));
            writeln!(out, "{}", columns(&rows, self.width))?;
            writeln!(
                out,
                "\nCheapest here for typical workloads (CPU spent creating and switching; yours: \
                 `concbench advise`):"
            )?;
            writeln!(out, "{}", columns(&answer::workload_rows(doc), self.width))?;
        }
        if !doc.verdicts.is_empty() {
            writeln!(
                out,
                "\nVerdicts ({}) — the rule: what was measured [95% CI]:",
                tally(&doc.verdicts)
            )?;
            let rows: Vec<[String; 4]> = doc.verdicts.iter().map(verdict_row).collect();
            writeln!(out, "{}", columns(&rows, self.width))?;
        }
        writeln!(out)?;
        // Wrapped like the tables above: a long warning is still read on an 80-column screen.
        let warnings: Vec<[String; 2]> = doc
            .warnings
            .iter()
            .map(|w| ["warning:".to_string(), w.clone()])
            .collect();
        if !warnings.is_empty() {
            writeln!(out, "{}", columns(&warnings, self.width))?;
        }
        if let Some(line) = self.elsewhere(doc) {
            writeln!(out, "{line}")?;
        }
        if doc.interrupted {
            writeln!(
                out,
                "interrupted: the run stopped early; the results are its complete variants only"
            )?;
        }
        out += &self.where_files();
        Ok(out)
    }

    /// "Also in the document: 108 results with 12 notes, 1 skipped, 1 FAILED — `concbench
    /// report FILE --all` or the page lists each." (`None` with `all`: they are above.)
    fn elsewhere(&self, doc: &ResultDoc) -> Option<String> {
        if self.all {
            return None;
        }
        let notes: usize = doc
            .results
            .iter()
            .map(|r| r.warnings.len() + usize::from(r.overhead.is_some()))
            .sum();
        let mut parts = vec![format!(
            "{}{}",
            count(doc.results.len(), "result"),
            if notes > 0 {
                format!(" with {}", count(notes, "note"))
            } else {
                String::new()
            }
        )];
        for (n, what) in [
            (doc.failures.len(), "FAILED"),
            (doc.invalid.len(), "invalid (not measurements)"),
            (doc.skipped.len(), "skipped"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        let file = self
            .files
            .document
            .as_ref()
            .map_or("FILE".into(), |p| p.display().to_string());
        Some(format!(
            "In the document: {} — every one with `concbench report {file} --all`{}.",
            parts.join(", "),
            if self.files.page.is_some() {
                " or on the page"
            } else {
                ""
            }
        ))
    }

    /// Where the document and the page are (or how to make the page).
    fn where_files(&self) -> String {
        let mut out = String::new();
        if let Some(doc) = &self.files.document {
            let _ = writeln!(out, "Result document: {}", doc.display());
            match &self.files.page {
                Some(page) => {
                    let _ = writeln!(
                        out,
                        "Page with charts: {} (open it in a browser)",
                        page.display()
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "Page with charts: `concbench report {} --html report.html`",
                        doc.display()
                    );
                }
            }
        }
        out
    }

    /// Every table, as before the summary existed.
    fn detail(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        let mut out = String::new();
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
        Ok(out)
    }
}

/// The machine in a few words (the document and `--all` have the whole line: clocksource,
/// governor, mitigations): "AMD EPYC, 2 logical CPUs, virtualized (KVM), kernel 6.1, load 0.20".
fn short_host_line(doc: &ResultDoc) -> String {
    let h = &doc.host;
    let machine = match (h.virtualized, &h.hypervisor) {
        (true, Some(name)) => format!("virtualized ({name})"),
        (true, None) => "virtualized".to_string(),
        (false, _) => "bare metal".to_string(),
    };
    format!(
        "{}, {} logical CPUs, {machine}, kernel {}, load {:.2}",
        h.cpu_model, h.logical_cpus, h.kernel, h.load_average[0]
    )
}

/// "1 result", "2 results".
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// " — quick run (short samples, fewer rounds)" when the run was not a full one.
fn mode(doc: &ResultDoc) -> &'static str {
    let flag = |k: &str| doc.settings.get(k).and_then(|v| v.as_bool()) == Some(true);
    if flag("smoke") {
        " — smoke test, not a measurement"
    } else if flag("quick") {
        " — quick run (short samples, fewer rounds)"
    } else {
        ""
    }
}

/// "5 confirmed, 3 refuted, 2 depend, 1 inconclusive".
fn tally(verdicts: &[Verdict]) -> String {
    let count = |k: VerdictKind| verdicts.iter().filter(|v| v.verdict == k).count();
    [
        (VerdictKind::Confirmed, "confirmed"),
        (VerdictKind::Refuted, "refuted"),
        (VerdictKind::Depends, "depend"),
        (VerdictKind::Inconclusive, "inconclusive"),
    ]
    .into_iter()
    .filter(|(k, _)| count(*k) > 0)
    .map(|(k, word)| format!("{} {word}", count(k)))
    .collect::<Vec<_>>()
    .join(", ")
}

/// What a check measured: "5.80x [5.57, 6.15]".
fn measured(c: &Check) -> String {
    let text = c.estimate.map_or("nothing measured".into(), |e| {
        human::measured(e, c.ci95, &c.unit)
    });
    format!("{text}{}", sections::margin_mark(c))
}

/// A condition without its parenthesis: "one switch" from "one switch (pipe ping-pong, same
/// CPU)".
fn short_condition(c: &Check) -> &str {
    c.condition
        .split_once(" (")
        .map_or(c.condition.as_str(), |(head, _)| head)
}

/// The key figure of a verdict that depends, and how many checks it shows: the first check of
/// each of two decisions. Checks under one rule are told apart by their condition ("COUNT =
/// 5"), the rule said once; checks under different rules by the rule itself.
fn depends_figure(checks: &[Check]) -> (String, usize) {
    let mut shown: Vec<&Check> = Vec::new();
    for c in checks {
        if shown.len() < 2 && !shown.iter().any(|s| s.decision == c.decision) {
            shown.push(c);
        }
    }
    let same_rule = shown.iter().all(|c| c.rule == shown[0].rule);
    // Conditions that read the same once shortened are named in full.
    let short_alike = shown
        .windows(2)
        .any(|w| short_condition(w[0]) == short_condition(w[1]));
    let parts: Vec<String> = shown
        .iter()
        .map(|c| {
            let which = match (same_rule, short_alike) {
                (true, false) => short_condition(c),
                (true, true) => &c.condition,
                (false, _) => &c.rule,
            };
            format!(
                "{which}: {} {}",
                measured(c),
                sections::verdict_word(c.decision)
            )
        })
        .collect();
    let text = if same_rule {
        format!("{} — {}", shown[0].rule, parts.join("; "))
    } else {
        parts.join("; ")
    };
    (text, shown.len())
}

/// claim id, decision, the key figure (the check that decided it; for a verdict that depends,
/// one check of each decision), rounds.
fn verdict_row(v: &Verdict) -> [String; 4] {
    // Checks shown beside another method's do not decide: the key figure is a deciding one.
    let deciding: Vec<Check> = v.checks.iter().filter(|c| !c.beside).cloned().collect();
    let checks = if deciding.is_empty() {
        &v.checks
    } else {
        &deciding
    };
    let figure = if checks.is_empty() {
        "(see the document)".to_string()
    } else if v.verdict == VerdictKind::Depends {
        let (text, shown) = depends_figure(checks);
        more(text, v.checks.len(), shown)
    } else {
        let key = checks
            .iter()
            .find(|c| c.decision == v.verdict)
            .unwrap_or(&checks[0]);
        more(
            format!("{}: {}", key.rule, measured(key)),
            v.checks.len(),
            1,
        )
    };
    [
        v.source.clone(),
        sections::verdict_word(v.verdict).to_string(),
        figure,
        rounds_cell(v),
    ]
}

/// "22 rounds, 97% robust"; without a robustness figure (an older document), the rounds alone.
fn rounds_cell(v: &Verdict) -> String {
    match (v.rounds, v.robustness) {
        (Some(r), Some(_)) => format!("{r} rounds, {} robust", sections::robustness_cell(v)),
        (Some(r), None) => format!("{r} rounds"),
        (None, _) => String::new(),
    }
}

/// `text`, and how many checks it leaves out.
fn more(text: String, checks: usize, shown: usize) -> String {
    match checks.saturating_sub(shown) {
        0 => text,
        n => format!("{text} (+{n} more)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(condition: &str, rule: &str, estimate: f64, decision: VerdictKind) -> Check {
        Check {
            condition: condition.into(),
            rule: rule.into(),
            estimate: Some(estimate),
            ci95: Some([estimate * 0.9, estimate * 1.1]),
            unit: "x".into(),
            rounds: 6,
            decision,
            note: String::new(),
            beside: false,
            boundary: None,
            at_margin: None,
        }
    }

    #[test]
    fn a_verdict_that_depends_shows_one_check_of_each_decision_under_its_condition() {
        use VerdictKind::*;
        let checks = [
            check("COUNT = 5 (pipe)", "t / p >= 0.870", 0.2, Refuted),
            check("COUNT = 10 (pipe)", "t / p >= 0.870", 0.3, Refuted),
            check("COUNT = 1000 (pipe)", "t / p >= 0.870", 1.0, Confirmed),
        ];
        assert_eq!(
            depends_figure(&checks),
            (
                "t / p >= 0.870 — COUNT = 5: 0.200x [0.180, 0.220] refuted; COUNT = 1000: 1.00x \
                 [0.900, 1.10] confirmed"
                    .to_string(),
                2
            )
        );
        // Conditions alike once shortened are named in full.
        let alike = [
            check("switches (block reader)", "t / o >= 1.15", 2.0, Confirmed),
            check("switches (direct reader)", "t / o >= 1.15", 1.0, Refuted),
        ];
        let (text, _) = depends_figure(&alike);
        assert!(
            text.contains("switches (block reader): 2.00x") && text.contains("(direct reader)"),
            "{text}"
        );
    }

    #[test]
    fn every_verdict_row_shows_its_rounds_and_robustness() {
        let mut v = Verdict {
            claim: "a process switch costs more than a thread switch".into(),
            source: "S2.switch_order".into(),
            verdict: VerdictKind::Confirmed,
            evidence: Vec::new(),
            explanation: String::new(),
            checks: vec![check(
                "same CPU",
                "p / t >= 1.15",
                1.2,
                VerdictKind::Confirmed,
            )],
            rounds: Some(22),
            robustness: Some(0.97),
        };
        let row = verdict_row(&v);
        assert_eq!(row[3], "22 rounds, 97% robust");
        assert!(
            row[2].contains("p / t >= 1.15: 1.20x [1.08, 1.32]"),
            "{}",
            row[2]
        );
        // A document from before robustness was recorded shows the rounds alone.
        v.robustness = None;
        assert_eq!(verdict_row(&v)[3], "22 rounds");
    }

    #[test]
    fn a_decision_at_its_margin_says_so_on_its_verdict_line() {
        let mut c = check("same CPU", "p / t >= 1.15", 1.2, VerdictKind::Confirmed);
        c.at_margin = Some(concbench_core::AtMargin {
            margin: 1.15,
            distance: 0.05,
            half_width: 0.12,
        });
        let line = measured(&c);
        assert!(line.contains("at the margin (0.05"), "{line}");
        assert!(line.contains("a rerun may say inconclusive"), "{line}");
        assert!(sections::check_line(&c).contains("at the margin"), "{c:?}");
        // An undecided check is on its margin by definition: no label.
        c.decision = VerdictKind::Inconclusive;
        assert!(!measured(&c).contains("margin"));
    }
}
