//! What `run`, `replicate` and `report` print on the terminal: the answer, on about one screen —
//! what one unit of each kind costs, the cheapest model per typical workload, one line per
//! verdict, the run-wide warnings with counts of what else the document holds, and where the
//! document and the page are. With `all`, every table comes first (every result with its
//! notes, the runtimes, the anatomy, published vs measured, the verdicts in full, S0's table,
//! every skipped, failed and invalid variant), then the summary, so that the answer is what
//! stays on the screen.

use crate::layout::{self, columns, text_width};
pub use crate::layout::{stdout_width, table};
use crate::{anatomy, answer, capacity, crossover, runtimes, sections, Exporter};
use comfy_table::Table;
use concbench_analysis::answer::{Answer, KeyChecks, Shown, VerdictAnswer};
use concbench_analysis::published::Article;
use concbench_core::{human, Check, ResultDoc, RunMode, Verdict, VerdictKind};
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

impl Exporter for Terminal {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        self.render_answer(&Answer::of(doc))
    }
}

impl Terminal {
    /// The screen of an answer computed beforehand (once: the tables and the summary only
    /// format it).
    pub fn render_answer(&self, answer: &Answer<'_>) -> anyhow::Result<String> {
        let doc = answer.doc;
        if let (Some(c), true) = (&doc.capacity, doc.results.is_empty()) {
            return self.capacity_screen(doc, c);
        }
        if let (Some(c), true) = (&doc.crossover, crossover::is_command(doc)) {
            return self.crossover_screen(doc, c);
        }
        let mut out = String::new();
        if self.all {
            out += &self.detail(answer)?;
            writeln!(out)?;
        }
        out += &self.summary(answer)?;
        Ok(out)
    }
}

impl Terminal {
    /// The answer on one screen (60 lines for a quick run at 100 columns): every verdict on a
    /// line of its own, the detail behind each with `--all`.
    fn summary(&self, answer: &Answer<'_>) -> anyhow::Result<String> {
        let doc = answer.doc;
        let width = usize::from(self.width.unwrap_or(120));
        let mut out = String::new();
        writeln!(
            out,
            "concbench {} — {}{}",
            doc.tool.version,
            doc.started_at,
            mode(doc)
        )?;
        let host = columns(&[[short_host_line(doc)]], self.width);
        writeln!(out, "{}", host.trim_start())?;
        out += &self.units(answer, width);
        if let Some(c) = &doc.container {
            out += &self.container_brief(c);
        }
        if let Some(c) = &doc.crossover {
            let line = format!("Crossover sweep: {}.", crossover::error_line(c));
            writeln!(out, "\n{}", columns(&[[line]], self.width).trim_start())?;
        }
        if !doc.verdicts.is_empty() {
            // Wrapped: the tally grows with the kinds of verdict.
            let heading = format!("Verdicts ({}):", tally(&doc.verdicts));
            let heading = columns(&[[heading]], self.width);
            writeln!(out, "\n{}", heading.trim_start())?;
            for line in articles_key(&answer.published.articles, width) {
                writeln!(out, " {line}")?;
            }
            for line in verdict_lines(answer, width) {
                writeln!(out, "{line}")?;
            }
            if let Some(line) = sections::full_run_line(doc) {
                writeln!(out, "{}", columns(&[[line]], self.width))?;
            }
        }
        if let Some(line) =
            (answer.intervals_alone.clone()).filter(|_| doc.mode() != RunMode::Smoke)
        {
            writeln!(out, "\n{}", columns(&[[line]], self.width).trim_start())?;
        }
        if let Some(h) = doc.history.as_ref().filter(|h| !h.verdicts.is_empty()) {
            // One line in the summary (which claims differ from this run alone); every claim
            // with --all.
            let line = format!("Over this host's history ({}): {}", h.heading(), h.brief());
            writeln!(out, "\n{}", columns(&[[line]], self.width).trim_start())?;
            if self.all {
                let rows: Vec<[String; 2]> = h
                    .verdicts
                    .iter()
                    .map(|v| [v.source.clone(), v.sentence()])
                    .collect();
                writeln!(out, "{}", columns(&rows, self.width))?;
            }
        }
        // Where the servers ran and when each levelled: the warm-up is evidence, said up front.
        let servers = [crate::s2::cpu_split_line(doc), crate::s2::warmup_line(doc)];
        for line in servers.into_iter().flatten() {
            writeln!(out, "\n{}", columns(&[[line]], self.width).trim_start())?;
        }
        writeln!(out)?;
        // Wrapped like the tables above: a long warning is still read on an 80-column screen.
        let warnings: Vec<[String; 2]> = doc
            .warnings
            .iter()
            .map(|w| ["warning:".to_string(), w.brief()])
            .collect();
        if !warnings.is_empty() {
            writeln!(out, "{}", columns(&warnings, self.width))?;
        }
        if let Some(line) = self.elsewhere(doc) {
            writeln!(out, "{}", columns(&[[line]], self.width).trim_start())?;
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

    /// What one unit costs, and the cheapest model per typical workload ("among what was
    /// measured" when a kind of unit was not).
    fn units(&self, answer: &Answer<'_>, width: usize) -> String {
        let mut out = String::new();
        if !answer.any_unit_cost() {
            return out;
        }
        let among = answer
            .among_measured()
            .map(|a| format!(", {a}"))
            .unwrap_or_default();
        let units = answer::unit_rows(answer);
        let heading = format!("What one unit costs here (median [95% CI]){among}:");
        let _ = writeln!(out, "\n{}", columns(&[[heading]], self.width).trim_start());
        let (rows, notes) = answer::unit_cells(&units);
        out += &self.aligned_or_wrapped(&rows, width);
        let mut below: Vec<[String; 1]> = notes.into_iter().map(|n| [n]).collect();
        below.extend(answer::unit_definitions(&units).map(|d| [d]));
        let _ = writeln!(out, "{}", columns(&below, self.width));
        let heading = format!(
            "Cheapest here, and units/s that fit in 10% of one CPU with it (work + overhead; \
             overhead/work){among}:"
        );
        let _ = writeln!(out, "\n{}", columns(&[[heading]], self.width).trim_start());
        let cards: Vec<Vec<String>> = answer::workload_rows(answer)
            .into_iter()
            .map(Vec::from)
            .collect();
        out += &self.aligned_or_wrapped(&cards, width);
        out
    }

    /// Rows aligned on one line each when they fit, else wrapped in a table.
    fn aligned_or_wrapped(&self, rows: &[Vec<String>], width: usize) -> String {
        let text = layout::aligned(rows, width).unwrap_or_else(|| {
            let mut t = Table::new();
            t.load_preset(comfy_table::presets::NOTHING)
                .set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
            t.set_width(self.width.unwrap_or(120));
            for r in rows {
                t.add_row(r.iter());
            }
            let text = t.to_string();
            text.lines()
                .map(str::trim_end)
                .collect::<Vec<_>>()
                .join("\n")
        });
        format!("{text}\n")
    }

    /// "Also in the document: 108 results with 12 notes, 1 skipped, 1 FAILED — `concbench
    /// report FILE --all` or the page lists each." (`None` with `all`: they are above.)
    fn elsewhere(&self, doc: &ResultDoc) -> Option<String> {
        if self.all {
            return None;
        }
        // Notes as listed: a warning several results share word for word is one note.
        let notes = sections::result_rows(doc).1.len();
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
        let what = if doc.verdicts.is_empty() {
            "every one with"
        } else {
            "these, and every verdict's checks with the figures behind them:"
        };
        Some(format!(
            "In the document: {} — {what} `concbench report {file} --all`{}.",
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
    fn detail(&self, answer: &Answer<'_>) -> anyhow::Result<String> {
        let doc = answer.doc;
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
        out.push_str(&anatomy::text(answer.anatomy.as_ref(), self.width));
        let replication = sections::replication_rows(answer);
        if !replication.is_empty() {
            writeln!(out, "\nPublished vs measured here:")?;
            writeln!(
                out,
                "{}",
                self.table(sections::REPLICATION_HEADER, &replication)
            )?;
        }
        if let Some(t) = crate::s2::s2_table_text(doc, self.width) {
            writeln!(out, "\n{t}")?;
        }
        let verdicts = sections::verdict_rows(answer);
        if !verdicts.is_empty() {
            writeln!(out, "\nVerdicts:")?;
            writeln!(out, "{}", self.table(sections::VERDICT_HEADER, &verdicts))?;
        }
        if sections::s0_table_judged(answer) {
            writeln!(out, "\nSeed S0's comparison table, re-verified:")?;
            writeln!(
                out,
                "{}",
                wrap(
                    sections::S0_TABLE_OPENING,
                    usize::from(self.width.unwrap_or(120))
                )
                .join("\n")
            )?;
            let rows = sections::s0_table_rows(answer);
            writeln!(out, "{}", self.table(sections::S0_TABLE_HEADER, &rows))?;
        }
        out += &self.capacity_detail(doc);
        out += &self.crossover_detail(doc);
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

impl Terminal {
    /// `capacity` alone: its table, the budget and the machine before and after, and the CPU
    /// limit when there was one; with `all`, every limit read and each model in full first.
    fn capacity_screen(
        &self,
        doc: &ResultDoc,
        c: &concbench_core::capacity::Capacity,
    ) -> anyhow::Result<String> {
        let mut out = String::new();
        if self.all {
            out += &self.capacity_detail(doc);
            writeln!(out)?;
        }
        out += &self.screen_head(doc, "capacity");
        writeln!(
            out,
            "\nHow many idle units fit here, and what stops them first:"
        )?;
        writeln!(
            out,
            "{}",
            self.table(capacity::CAPACITY_HEADER, &capacity::capacity_rows(c))
        )?;
        let lines: Vec<[String; 1]> = capacity::capacity_setting_lines(c)
            .into_iter()
            .map(|l| [l])
            .collect();
        writeln!(out, "{}", columns(&lines, self.width))?;
        if let Some(k) = &doc.container {
            out += &self.container_brief(k);
        }
        if doc.interrupted {
            writeln!(
                out,
                "interrupted: the models measured before Ctrl-C are above"
            )?;
        }
        out += &self.report_hint("Why each stopped, every limit read and each model's readings");
        out += &self.where_files();
        Ok(out)
    }

    /// The opening of a command's own screen: "concbench 0.1.0 NAME — start time", the machine.
    fn screen_head(&self, doc: &ResultDoc, name: &str) -> String {
        let host = columns(&[[short_host_line(doc)]], self.width);
        format!(
            "concbench {} {name} — {}{}\n{}\n",
            doc.tool.version,
            doc.started_at,
            mode(doc),
            host.trim_start()
        )
    }

    /// "WHAT: `concbench report FILE --all`." under a command's own screen (not with `all`,
    /// which printed it above).
    fn report_hint(&self, what: &str) -> String {
        if self.all {
            return String::new();
        }
        let file = self
            .files
            .document
            .as_ref()
            .map_or("FILE".into(), |p| p.display().to_string());
        let line = format!("{what}: `concbench report {file} --all`.");
        format!("{}\n", columns(&[[line]], self.width).trim_start())
    }

    /// `crossover` alone: where each pair crosses, measured and predicted, and how far off the
    /// predictions were; with `all`, every point and the method first.
    fn crossover_screen(
        &self,
        doc: &ResultDoc,
        c: &concbench_core::crossover::Crossover,
    ) -> anyhow::Result<String> {
        let mut out = String::new();
        if self.all {
            out += &self.crossover_detail(doc);
            writeln!(out)?;
        }
        out += &self.screen_head(doc, "crossover");
        writeln!(
            out,
            "\nWhere each design stops keeping up, along the blocking time per request \
             ({} points, {:.0} s):",
            c.points.len(),
            doc.duration_s
        )?;
        writeln!(
            out,
            "{}",
            self.table(crossover::PAIR_HEADER, &crossover::pair_rows(c))
        )?;
        let line = format!("{}.", crossover::error_line(c));
        writeln!(out, "{}", columns(&[[line]], self.width).trim_start())?;
        if doc.interrupted {
            writeln!(
                out,
                "interrupted: the points measured before Ctrl-C are above"
            )?;
        }
        for f in sections::failure_lines(doc) {
            writeln!(out, "FAILED: {f}")?;
        }
        out +=
            &self.report_hint("Every point, measured and predicted, and how crossings are found");
        out += &self.where_files();
        Ok(out)
    }

    /// The sweep's points and crossings in full, with the method (`--all`).
    fn crossover_detail(&self, doc: &ResultDoc) -> String {
        let Some(c) = &doc.crossover else {
            return String::new();
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nThe crossover sweep: requests/s measured and as advise's model predicts them:"
        );
        let _ = writeln!(
            out,
            "{}",
            self.table(crossover::POINT_HEADER, &crossover::point_rows(c))
        );
        let _ = writeln!(out, "Where each pair crosses:");
        let _ = writeln!(
            out,
            "{}",
            self.table(crossover::PAIR_HEADER, &crossover::pair_rows(c))
        );
        let lines: Vec<[String; 1]> = crossover::method_lines(c)
            .into_iter()
            .map(|l| [l])
            .collect();
        let _ = writeln!(out, "{}", columns(&lines, self.width));
        out
    }

    /// The CPU limit in three lines: the limit and its throttling, what each runtime sized for,
    /// and the runtimes sizing past it.
    fn container_brief(&self, c: &concbench_core::container::Container) -> String {
        let mut rows = vec![[capacity::limit_line(c)], [capacity::sizes_line(c)]];
        rows.extend(
            c.runtimes
                .iter()
                .filter(|d| d.oversized)
                .map(|d| [format!(" {}", d.note)]),
        );
        format!("\nUnder a CPU limit:\n{}\n", columns(&rows, self.width))
    }

    /// The capacity and CPU-limit tables in full (`--all`).
    fn capacity_detail(&self, doc: &ResultDoc) -> String {
        let mut out = String::new();
        if let Some(c) = &doc.capacity {
            let _ = writeln!(out, "\nThe limits read (never raised):");
            let _ = writeln!(
                out,
                "{}",
                self.table(capacity::LIMIT_HEADER, &capacity::limit_rows(c))
            );
            for line in capacity::model_lines(c) {
                let _ = writeln!(out, "{}", columns(&[[line]], self.width).trim_start());
            }
        }
        if let Some(k) = &doc.container {
            let _ = writeln!(out, "\n{}:", capacity::limit_line(k));
            let _ = writeln!(
                out,
                "{}",
                self.table(capacity::CONTAINER_HEADER, &capacity::container_rows(k))
            );
            let figures = capacity::under_limit_lines(doc);
            if !figures.is_empty() {
                let _ = writeln!(out, "Under this limit:");
                for f in figures {
                    let _ = writeln!(out, " {f}");
                }
            }
        }
        out
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
    let held = match doc.held_awake() {
        Some("cpu_dma_latency") => ", held awake (/dev/cpu_dma_latency at 0)",
        Some(_) => ", held awake (a SCHED_IDLE spinner per CPU)",
        None => "",
    };
    format!(
        "{}, {} logical CPUs, {machine}, kernel {}, load {:.2}{held}",
        h.cpu_model, h.logical_cpus, h.kernel, h.load_average[0]
    )
}

/// "S0 processes vs threads · S1 a locked counter · ...": what a claim's id opens with, each
/// article by its short name from the published data, on one line of `width` columns (less the
/// indent) or more on a narrow screen, never breaking an article's name.
fn articles_key(articles: &[Article], width: usize) -> Vec<String> {
    let room = width.saturating_sub(1);
    let mut lines: Vec<String> = Vec::new();
    for named in articles.iter().map(|a| format!("{} {}", a.id, a.short)) {
        match lines.last_mut() {
            Some(line) if text_width(line) + 3 + text_width(&named) <= room => {
                *line = format!("{line} · {named}");
            }
            _ => lines.push(named),
        }
    }
    lines
}

/// "1 result", "2 results".
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// " — quick run (short samples, fewer rounds)" when the run was not a full one.
fn mode(doc: &ResultDoc) -> &'static str {
    match doc.mode() {
        RunMode::Smoke => " — smoke test, not a measurement",
        RunMode::Quick => " — quick run (short samples, fewer rounds)",
        RunMode::Full => "",
    }
}

/// "5 confirmed, 3 refuted, 2 depend, 1 direction confirmed, size refuted, 1 inconclusive,
/// 2 partly judged": by the words the rows say; a partly judged claim is counted apart, never
/// among the plain outcomes.
fn tally(verdicts: &[Verdict]) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let order = |label: &str| match label {
        "confirmed" => 0,
        "refuted" => 1,
        "depends" => 2,
        "inconclusive" => 4,
        "partly judged" => 5,
        _ => 3,
    };
    for v in verdicts {
        let label = if v.partly_judged() {
            "partly judged".to_string()
        } else {
            sections::verdict_label(v)
        };
        match counts.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n += 1,
            None => counts.push((label, 1)),
        }
    }
    counts.sort_by_key(|(l, _)| order(l));
    counts
        .into_iter()
        .map(|(l, n)| {
            let word = if l == "depends" { "depend" } else { &l };
            format!("{n} {word}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The verdict's word for the narrow column ([`sections::verdict_cell`], its last part).
fn verdict_cell_narrow(v: &Verdict) -> String {
    let label = sections::verdict_label(v);
    let narrow = label.rsplit(", ").next().unwrap_or_default();
    match (v.partly_judged(), v.verdict) {
        (true, VerdictKind::Inconclusive) => "partly judged".into(),
        (true, _) => format!("partly judged: {narrow}"),
        (false, _) => narrow.to_string(),
    }
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

/// The key figure of a verdict that depends, from the checks the analysis chose and grouped by
/// rule and decision ([`concbench_analysis::answer::depends_groups`]): "t / p >= 0.870 —
/// refuted at COUNT = 5, 10, 50 (0.205x to 0.416x); confirmed at COUNT = 1000: 0.981x [0.967,
/// 1.00]". Checks under one rule are told apart by their condition, the rule said once; checks
/// under different rules by the rule itself.
fn depends_figure(groups: &[Vec<&Check>]) -> String {
    let shown: Vec<&Check> = groups.iter().flatten().copied().collect();
    let same_rule = shown.iter().all(|c| c.rule == shown[0].rule);
    // Conditions that read the same once shortened are named in full.
    let short_alike = shown.iter().enumerate().any(|(i, a)| {
        shown[i + 1..]
            .iter()
            .any(|b| a.condition != b.condition && short_condition(a) == short_condition(b))
    });
    let name = |c: &Check| -> String {
        if short_alike {
            c.condition.clone()
        } else {
            short_condition(c).to_string()
        }
    };
    // One figure judged by several rules ("a / s >= 100", "a / s within [267, 600]") is said
    // once: "a / s: 4977x [4832, 4997] — >= 100 confirmed, within [267, 600] refuted".
    let mut merged: Vec<Merged<'_>> = Vec::new();
    let mut parts: Vec<Option<String>> = Vec::new();
    for g in groups {
        let word = sections::verdict_word(g[0].decision);
        if !same_rule && g.len() == 1 {
            if let Some((lhs, bound)) = split_rule(&g[0].rule) {
                let figure = measured(g[0]);
                match merged
                    .iter_mut()
                    .find(|(l, f, _)| *l == lhs && *f == figure)
                {
                    Some((_, _, bounds)) => bounds.push((bound.to_string(), word)),
                    None => {
                        merged.push((lhs.to_string(), figure, vec![(bound.to_string(), word)]));
                        parts.push(None);
                    }
                }
                continue;
            }
        }
        parts.push(Some(group_text(g, same_rule, &name)));
    }
    let mut merged = merged.into_iter();
    let parts: Vec<String> = parts
        .into_iter()
        .map(|p| {
            p.unwrap_or_else(|| {
                let (lhs, figure, bounds) = merged.next().expect("one per placeholder");
                match bounds.as_slice() {
                    [(bound, word)] => format!("{lhs} {bound}: {figure} {word}"),
                    _ => {
                        let judged: Vec<String> =
                            bounds.iter().map(|(b, w)| format!("{b} {w}")).collect();
                        format!("{lhs}: {figure} — {}", judged.join(", "))
                    }
                }
            })
        })
        .collect();
    if same_rule {
        format!("{} — {}", shown[0].rule, parts.join("; "))
    } else {
        parts.join("; ")
    }
}

/// One line per verdict: the claim, its word and its key figure, shortened to fit `width`; a
/// verdict that depends takes two lines, its deciding checks shown in the first form that fits.
/// Rounds and robustness per verdict, and every check, are in `--all`; a fragile robustness
/// (as the analysis decided, [`VerdictAnswer::fragile`]) is said on the line.
fn verdict_lines(answer: &Answer<'_>, width: usize) -> Vec<String> {
    let rows: Vec<(String, String, &VerdictAnswer<'_>)> = answer
        .verdicts
        .iter()
        .map(|va| {
            // "direction confirmed, size refuted" keeps to its last part in the narrow column:
            // the figure beside it shows the direction confirmed, the tally says it in full.
            let v = va.verdict;
            (v.source.clone(), verdict_cell_narrow(v), va)
        })
        .collect();
    let w_source = rows.iter().map(|r| text_width(&r.0)).max().unwrap_or(0);
    let w_word = rows.iter().map(|r| text_width(&r.1)).max().unwrap_or(0);
    let room = width.saturating_sub(1 + w_source + 2 + w_word + 2).max(24);
    let indent = " ".repeat(1 + w_source + 2 + w_word + 2);
    let mut out = Vec::new();
    for (source, word, va) in rows {
        // A quick run's claim a full run judges on the article's own system says so first, so
        // that cutting the figure to fit never cuts the mark.
        let mut forms = figure_forms(va.verdict, &va.key, va.fragile);
        if !va.verdict.full_run.is_empty() {
            for f in &mut forms {
                *f = format!("{} {f}", sections::FULL_RUN_MARK);
            }
        }
        let lines = fit(&forms, room, lines_for(va.verdict));
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                out.push(
                    format!(" {source:<w_source$}  {word:<w_word$}  {line}")
                        .trim_end()
                        .to_string(),
                );
            } else {
                out.push(format!("{indent}{line}"));
            }
        }
    }
    out
}

/// Lines a verdict may take on the first screen: two for one that depends (its deciding checks
/// differ), one otherwise.
fn lines_for(v: &Verdict) -> usize {
    if v.verdict == VerdictKind::Depends {
        2
    } else {
        1
    }
}

/// The first form that fits in `lines` lines of `room` columns, wrapped; the last form cut
/// with "…" when none does.
fn fit(forms: &[String], room: usize, lines: usize) -> Vec<String> {
    for f in forms {
        let wrapped = wrap(f, room);
        if wrapped.len() <= lines {
            return wrapped;
        }
    }
    let mut wrapped = wrap(forms.last().map_or("", String::as_str), room);
    wrapped.truncate(lines);
    if let Some(last) = wrapped.last_mut() {
        let keep: String = last.chars().take(room.saturating_sub(1)).collect();
        *last = format!("{}…", keep.trim_end());
    }
    wrapped
}

/// `text` in lines of at most `room` columns, broken at spaces, never inside a command in
/// backticks (the footnote once broke "`concbench" from "run`").
fn wrap(text: &str, room: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in unbroken_words(text) {
        let word = word.as_str();
        if !line.is_empty() && text_width(&line) + 1 + text_width(word) > room {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The words of `text` split at spaces, a span in backticks kept as one word.
fn unbroken_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for word in text.split(' ') {
        match words.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        if word.matches('`').count() % 2 == 1 {
            open = !open;
        }
    }
    words
}

/// A verdict's key figure, from the fullest form to the shortest: the rule and the measured
/// figure with its margin label and the count of other checks; then without that count; then
/// the bound alone beside the figure. For a verdict that depends, every deciding check first,
/// then a count of each decision with one example.
/// `fragile` is the verdict's robustness when it is worth saying ([`VerdictAnswer::fragile`]).
/// `key` is what the analysis chose to show ([`VerdictAnswer::key`]).
fn figure_forms(v: &Verdict, key: &KeyChecks<'_>, fragile: Option<f64>) -> Vec<String> {
    let fragile = fragile
        // Worded as what it is, a share of resamples, so it cannot be read as the chance
        // that the verdict is right (issue 44: "robust 64%" beside a decided verdict).
        .map(|r| format!(" ({:.0}% of resamples agree)", r * 100.0))
        .unwrap_or_default();
    let key = match &key.shown {
        Shown::Nothing => return vec!["(see the document)".to_string()],
        Shown::Groups(groups) => {
            let text = depends_figure(groups);
            let shown = key.shown.count();
            let mut forms = vec![more(format!("{text}{fragile}"), v.checks.len(), shown)];
            forms.push(format!("{}{fragile}", depends_counts(&key.deciding)));
            return forms;
        }
        Shown::One(key) => key,
    };
    let short = short_measured(key);
    let mut forms = vec![
        more(
            format!("{}: {}{fragile}", key.rule, measured(key)),
            v.checks.len(),
            1,
        ),
        more(format!("{}: {short}{fragile}", key.rule), v.checks.len(), 1),
        format!("{}: {short}{fragile}", key.rule),
    ];
    if let Some((_, bound)) = split_rule(&key.rule) {
        // "within [0.800, 1.25]" without its "(equal within 25%)".
        let bound = bound.split(" (").next().unwrap_or(bound);
        forms.push(format!("{short}, rule {bound}{fragile}"));
        // Last, and cut to fit if need be: the robustness before the rule's bound.
        if !fragile.is_empty() {
            forms.push(format!("{short}{fragile}, rule {bound}"));
        }
    }
    forms
}

/// "5.80x [5.57, 6.15], at the margin": the figure, and the margin's label without its
/// explanation.
fn short_measured(c: &Check) -> String {
    let text = c.estimate.map_or("nothing measured".into(), |e| {
        human::measured(e, c.ci95, &c.unit)
    });
    format!("{text}{}", sections::margin_label(c))
}

/// "3 confirmed, 1 refuted: one / all within [1.50, 2.67]: 1.12x [1.06, 1.22]": how many
/// deciding checks went each way, and the first refuted one.
fn depends_counts(checks: &[&Check]) -> String {
    let n = |k| checks.iter().filter(|c| c.decision == k).count();
    let example = checks
        .iter()
        .find(|c| c.decision == VerdictKind::Refuted)
        .map(|c| format!(": {} {} refuted", c.rule, short_measured(c)))
        .unwrap_or_default();
    format!(
        "{} confirmed, {} refuted{example}",
        n(VerdictKind::Confirmed),
        n(VerdictKind::Refuted)
    )
}

/// One figure judged by several rules: its measured side ("a / s"), the figure, and each rule's
/// bound with its decision.
type Merged<'a> = (String, String, Vec<(String, &'a str)>);

/// "a / s" and ">= 100" from "a / s >= 100": the measured side of a rule and its bound.
fn split_rule(rule: &str) -> Option<(&str, &str)> {
    [" >= ", " <= ", " within ", " > ", " < "]
        .iter()
        .filter_map(|op| rule.find(op))
        .min()
        .map(|at| (&rule[..at], rule[at..].trim_start()))
}

/// One group of checks under one rule and decision: "COUNT = 5: 0.2x [..] refuted", or for
/// several, "refuted at COUNT = 5 and COUNT = 10 (0.2x to 0.3x)".
fn group_text(g: &[&Check], same_rule: bool, name: &dyn Fn(&Check) -> String) -> String {
    let word = sections::verdict_word(g[0].decision);
    let figure = if g.len() == 1 {
        measured(g[0])
    } else {
        let estimates: Vec<f64> = g.iter().filter_map(|c| c.estimate).collect();
        let lo = estimates.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = estimates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let unit = g[0].unit.as_str();
        let v = |x: f64| match unit {
            "x" => format!("{}x", human::sig3(x)),
            _ => human::value(x, unit),
        };
        if v(lo) == v(hi) {
            v(lo)
        } else {
            format!("{} to {}", v(lo), v(hi))
        }
    };
    let mut conditions: Vec<String> = g.iter().map(|c| name(c)).collect();
    // "COUNT = 5, 10 and 50" rather than "COUNT = 5, COUNT = 10 and COUNT = 50".
    let key = |c: &str| c.split_once(" = ").map(|(k, _)| k.to_string());
    if conditions.len() > 1 {
        if let Some(k) = key(&conditions[0]).filter(|k| {
            conditions
                .iter()
                .all(|c| key(c).as_ref() == Some(k) && !c[k.len() + 3..].contains(" = "))
        }) {
            for c in conditions.iter_mut().skip(1) {
                *c = c[k.len() + 3..].to_string();
            }
        }
    }
    let listed = match conditions.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => conditions.join(""),
    };
    match (same_rule, g.len()) {
        (true, 1) => format!("{}: {figure} {word}", conditions[0]),
        (true, _) => format!("{word} at {listed} ({figure})"),
        (false, 1) => format!("{}: {figure} {word}", g[0].rule),
        (false, _) => format!("{}: {word} at {listed} ({figure})", g[0].rule),
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

    #[test]
    fn regression_the_footnote_broke_a_command_in_backticks_across_lines() {
        let text =
            "[full run: article's own] S1.lock, S2.memory: `concbench run` (about 10 minutes)";
        for room in 40..text.len() {
            let lines = wrap(text, room);
            assert!(
                lines.iter().all(|l| l.matches('`').count() % 2 == 0),
                "{room}: {lines:?}"
            );
            assert_eq!(lines.join(" "), text, "nothing lost or added");
        }
        // Broken at spaces as before where there is no command.
        assert_eq!(wrap("a b c", 3), vec!["a b", "c"]);
    }
    use concbench_analysis::synthetic::check;

    #[test]
    fn regression_a_verdict_that_depends_folded_its_deciding_checks_into_more() {
        use VerdictKind::*;
        let checks = [
            check("COUNT = 5 (pipe)", "t / p >= 0.870", 0.2, Refuted),
            check("COUNT = 10 (pipe)", "t / p >= 0.870", 0.3, Refuted),
            check("COUNT = 1000 (pipe)", "t / p >= 0.870", 1.0, Confirmed),
            check("COUNT = 500 (pipe)", "t / p >= 0.870", 0.87, Inconclusive),
        ];
        // Every deciding check shown; only the undecided one is left to "(+1 more)".
        assert_eq!(
            depends_of(&checks),
            (
                "t / p >= 0.870 — refuted at COUNT = 5 and 10 (0.200x to 0.300x); COUNT = 1000: \
                 1.00x [0.900, 1.10] confirmed"
                    .to_string(),
                3
            )
        );
        // Conditions alike once shortened are named in full.
        let alike = [
            check("switches (block reader)", "t / o >= 1.15", 2.0, Confirmed),
            check("switches (direct reader)", "t / o >= 1.15", 1.0, Refuted),
        ];
        let (text, _) = depends_of(&alike);
        assert!(
            text.contains("switches (block reader): 2.00x") && text.contains("(direct reader)"),
            "{text}"
        );
    }

    fn verdict(checks: Vec<Check>, kind: VerdictKind, rounds: usize) -> Verdict {
        Verdict {
            claim: "a claim".into(),
            source: "S1.alternate".into(),
            verdict: kind,
            evidence: Vec::new(),
            explanation: String::new(),
            checks,
            rounds: Some(rounds),
            robustness: Some(1.0),
            unmeasured: Vec::new(),
            judged: Default::default(),
            full_run: Vec::new(),
        }
    }

    #[test]
    fn regression_a_loose_and_an_exact_rule_on_one_figure_said_depends() {
        use VerdictKind::*;
        // S1.alternate: the same ratio, ">= 100" confirmed and "within [267, 600]" refuted.
        let v = verdict(
            vec![
                check("alternate (eventfd)", "a / s >= 100", 4977.0, Confirmed),
                check(
                    "alternate (eventfd)",
                    "a / s within [267, 600]",
                    4977.0,
                    Refuted,
                ),
                check(
                    "per switch",
                    "a / w within [2.42 µs, 9.68 µs]",
                    5.4,
                    Confirmed,
                ),
            ],
            Depends,
            6,
        );
        assert_eq!(verdict_cell_narrow(&v), "size refuted");
        assert_eq!(tally(&[v]), "1 direction confirmed, size refuted");
        // Different conditions deciding differently: that is what "depends" means.
        let v = verdict(
            vec![
                check("COUNT = 5", "t / p >= 0.870", 0.2, Refuted),
                check("COUNT = 1000", "t / p >= 0.870", 1.0, Confirmed),
            ],
            Depends,
            6,
        );
        assert_eq!(verdict_cell_narrow(&v), "depends");
    }

    /// A verdict's key-figure forms with the robustness the analysis says is worth saying.
    fn forms_of(v: &Verdict) -> Vec<String> {
        use concbench_analysis::answer::{fragile, key_checks};
        figure_forms(v, &key_checks(v), fragile(v))
    }

    /// The key figure of a verdict that depends on `checks`, and how many checks it shows.
    fn depends_of(checks: &[Check]) -> (String, usize) {
        let refs: Vec<&Check> = checks.iter().collect();
        let groups = concbench_analysis::answer::depends_groups(&refs);
        let shown = groups.iter().map(Vec::len).sum();
        (depends_figure(&groups), shown)
    }

    #[test]
    fn regression_a_one_round_result_showed_100_percent_robust() {
        let mut v = verdict(
            vec![check(
                "same CPU",
                "p / t >= 1.15",
                1.2,
                VerdictKind::Confirmed,
            )],
            VerdictKind::Confirmed,
            1,
        );
        // One round agrees with itself: no robustness to speak of, however low it is.
        v.robustness = Some(0.5);
        assert!(forms_of(&v).iter().all(|f| !f.contains("resamples")));
    }

    #[test]
    fn a_verdict_line_shows_its_rule_and_figure_and_a_fragile_robustness() {
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
            unmeasured: vec![],
            judged: Default::default(),
            full_run: Vec::new(),
            robustness: Some(0.97),
        };
        let forms = forms_of(&v);
        assert_eq!(forms[0], "p / t >= 1.15: 1.20x [1.08, 1.32]");
        // The shortest form keeps the figure and the bound.
        assert_eq!(forms.last().unwrap(), "1.20x [1.08, 1.32], rule >= 1.15");
        v.robustness = Some(0.7);
        assert_eq!(
            forms_of(&v)[0],
            "p / t >= 1.15: 1.20x [1.08, 1.32] (70% of resamples agree)"
        );
        // Cut to fit, never wider than the room.
        let lines = fit(&forms_of(&v), 20, 1);
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].chars().count() <= 20 && lines[0].ends_with('…'),
            "{lines:?}"
        );
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
