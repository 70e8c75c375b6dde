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
            let definitions = answer::unit_definitions(&units).map(|d| [d]);
            writeln!(out, "{}", columns(&definitions, self.width))?;
            writeln!(
                out,
                "\nCheapest here, and how many units per second fit in 10% of one CPU with it (and \
                 the next):"
            )?;
            writeln!(out, "{}", columns(&answer::workload_rows(doc), self.width))?;
        }
        if !doc.verdicts.is_empty() {
            // Wrapped: the tally grows with the kinds of verdict.
            let heading = format!(
                "Verdicts ({}) — rule: measured [95% CI]; rounds, robustness:",
                tally(&doc.verdicts)
            );
            let heading = columns(&[[heading]], self.width);
            writeln!(out, "\n{}", heading.trim_start())?;
            let rows: Vec<[String; 4]> = doc.verdicts.iter().map(verdict_row).collect();
            writeln!(out, "{}", columns(&rows, self.width))?;
        }
        if let Some(h) = &doc.history {
            // One line in the summary (which claims differ from this run alone); every claim
            // with --all.
            writeln!(out, "\nOver this host's history ({}):", h.heading())?;
            writeln!(out, "{}", columns(&[[h.summary()]], self.width))?;
            if self.all {
                let rows: Vec<[String; 2]> = h
                    .verdicts
                    .iter()
                    .map(|v| [v.source.clone(), v.sentence()])
                    .collect();
                writeln!(out, "{}", columns(&rows, self.width))?;
            }
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

/// The key figure of a verdict that depends, and how many checks it shows: every check that
/// decides (confirmed or refuted) — or, when fewer than two do, one of each decision — grouped
/// by rule and decision, so that six conditions under one rule read as two groups: "t / p >=
/// 0.870 — refuted at COUNT = 5, 10, 50 (0.205x to 0.416x); confirmed at COUNT = 1000:
/// 0.981x [0.967, 1.00]". Checks under one rule are told apart by their condition, the rule
/// said once; checks under different rules by the rule itself.
fn depends_figure(checks: &[Check]) -> (String, usize) {
    let deciding = |c: &&Check| matches!(c.decision, VerdictKind::Confirmed | VerdictKind::Refuted);
    let mut shown: Vec<&Check> = checks.iter().filter(deciding).collect();
    if shown.len() < 2 {
        shown.clear();
        for c in checks {
            if shown.len() < 2 && !shown.iter().any(|s| s.decision == c.decision) {
                shown.push(c);
            }
        }
    }
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
    let mut groups: Vec<Vec<&Check>> = Vec::new();
    for c in &shown {
        match groups
            .iter_mut()
            .find(|g| g[0].rule == c.rule && g[0].decision == c.decision)
        {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    // One figure judged by several rules ("a / s >= 100", "a / s within [267, 600]") is said
    // once: "a / s: 4977x [4832, 4997] — >= 100 confirmed, within [267, 600] refuted".
    let mut merged: Vec<Merged<'_>> = Vec::new();
    let mut parts: Vec<Option<String>> = Vec::new();
    for g in &groups {
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
    let text = if same_rule {
        format!("{} — {}", shown[0].rule, parts.join("; "))
    } else {
        parts.join("; ")
    };
    (text, shown.len())
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
        // "direction confirmed, size refuted" keeps to its last part in the narrow column: the
        // figure beside it shows the direction confirmed, the tally says it in full.
        verdict_cell_narrow(v),
        figure,
        rounds_cell(v),
    ]
}

/// "22 rounds, 97%" (robustness: the share of resamples agreeing); the rounds alone without a
/// robustness figure (an older document) or without an interval (one round agrees with itself:
/// no robustness to speak of).
fn rounds_cell(v: &Verdict) -> String {
    match (v.rounds, v.robustness) {
        (Some(r), Some(_)) if sections::has_interval(v) => {
            format!("{r} rounds, {}", sections::robustness_cell(v))
        }
        (Some(1), _) => "1 round".to_string(),
        (Some(r), _) => format!("{r} rounds"),
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
            depends_figure(&checks),
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
        let (text, _) = depends_figure(&alike);
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
        assert_eq!(verdict_row(&v)[1], "size refuted");
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
        assert_eq!(verdict_row(&v)[1], "depends");
    }

    #[test]
    fn regression_a_one_round_result_showed_100_percent_robust() {
        let v = verdict(
            vec![check(
                "same CPU",
                "p / t >= 1.15",
                1.2,
                VerdictKind::Confirmed,
            )],
            VerdictKind::Confirmed,
            1,
        );
        assert_eq!(verdict_row(&v)[3], "1 round");
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
            unmeasured: vec![],
            robustness: Some(0.97),
        };
        let row = verdict_row(&v);
        assert_eq!(row[3], "22 rounds, 97%");
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
