//! HTML: one self-contained page — inline CSS, inline SVG charts, a few lines of inline script,
//! no network (a Content-Security-Policy forbids every fetch) — that answers "processes, threads
//! or coroutines: on this machine, for what?" without reading JSON.
//!
//! The page is a minijinja template (`page.html`) over a view model built here from the document;
//! the answer section's arithmetic comes from `concbench_analysis::advice`, the charts from
//! [`charts`].

mod anatomy;
mod bars;
pub(crate) mod chart;
mod charts;
mod crossover_chart;
mod history;

use crate::{format, runtimes, sections, Exporter};
use concbench_analysis::advice::{kib_text, share};
use concbench_analysis::anatomy::Anatomy;
use concbench_analysis::answer::Answer;
use concbench_core::{ResultDoc, RunMode};
use minijinja::Environment;
use serde::Serialize;

const TEMPLATE: &str = include_str!("page.html");
const STYLE: &str = include_str!("style.css");

pub struct Html;

impl Exporter for Html {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        self.render_answer(&Answer::of(doc))
    }
}

impl Html {
    /// The page of an answer computed beforehand: every figure on it is the answer's.
    pub fn render_answer(&self, answer: &Answer<'_>) -> anyhow::Result<String> {
        let mut env = Environment::new();
        env.add_template("page.html", TEMPLATE)?;
        let page = Page::from(answer);
        Ok(env.get_template("page.html")?.render(&page)?)
    }
}

#[derive(Serialize)]
struct Page {
    /// The embedded CJK font's rule, then the style sheet.
    style: String,
    version: String,
    started_at: String,
    duration: String,
    /// How the run measured, when not the full way (quick, smoke).
    mode: Option<&'static str>,
    host_line: String,
    host: Vec<(String, String)>,
    warnings: Vec<String>,
    costs: Vec<crate::answer::UnitRow>,
    /// "among what was measured (not measured: coroutine)" when the run left a kind out.
    among: Option<String>,
    unit_header: [&'static str; 5],
    unit_definitions: [&'static str; 2],
    runtimes_header: [&'static str; 7],
    runtimes: Vec<[String; 7]>,
    runtime_notes: Vec<String>,
    workloads: Vec<WorkloadAnswer>,
    claims: Vec<sections::ClaimRow>,
    dimensions: Vec<sections::DimensionRow>,
    /// The article's own heading over S0's table, and what the run answers.
    s0_opening: &'static str,
    /// The claims judged over this host's compatible runs, when there are any.
    history: Option<history::HistoryView>,
    figures: Vec<charts::Figure>,
    anatomy: AnatomyTables,
    replication_header: [&'static str; 7],
    replication: Vec<[String; 7]>,
    result_header: [&'static str; 8],
    results: Vec<[String; 8]>,
    notes: Vec<String>,
    skipped: Vec<String>,
    failures: Vec<String>,
    invalid: Vec<String>,
    interrupted: bool,
    /// `concbench capacity`'s table and the limits behind it, when the document has them.
    capacity: Option<CapacityView>,
    /// The CPU limit of `--cpus` and what each runtime sized itself for.
    container: Option<ContainerView>,
    /// The crossover sweep: its charts, crossings and points.
    crossover: Option<CrossoverView>,
}

#[derive(Serialize)]
struct CrossoverView {
    charts: Vec<charts::Figure>,
    pair_header: [&'static str; 5],
    pairs: Vec<[String; 5]>,
    error: String,
    point_header: [&'static str; 7],
    points: Vec<[String; 7]>,
    method: Vec<String>,
}

fn crossover_view(doc: &ResultDoc) -> Option<CrossoverView> {
    use crate::crossover as x;
    let c = doc.crossover.as_ref()?;
    Some(CrossoverView {
        charts: crossover_chart::charts(c),
        pair_header: x::PAIR_HEADER,
        pairs: x::pair_rows(c),
        error: x::error_line(c),
        point_header: x::POINT_HEADER,
        points: x::point_rows(c),
        method: x::method_lines(c),
    })
}

#[derive(Serialize)]
struct CapacityView {
    header: [&'static str; 6],
    rows: Vec<[String; 6]>,
    settings: Vec<String>,
    limit_header: [&'static str; 5],
    limits: Vec<[String; 5]>,
    models: Vec<String>,
}

#[derive(Serialize)]
struct ContainerView {
    limit: String,
    header: [&'static str; 4],
    rows: Vec<[String; 4]>,
    figures: Vec<String>,
}

fn capacity_view(doc: &ResultDoc) -> Option<CapacityView> {
    use crate::capacity as cap;
    let c = doc.capacity.as_ref()?;
    Some(CapacityView {
        header: cap::CAPACITY_HEADER,
        rows: cap::capacity_rows(c),
        settings: cap::capacity_setting_lines(c),
        limit_header: cap::LIMIT_HEADER,
        limits: cap::limit_rows(c),
        models: cap::model_lines(c),
    })
}

fn container_view(doc: &ResultDoc) -> Option<ContainerView> {
    use crate::capacity as cap;
    let k = doc.container.as_ref()?;
    Some(ContainerView {
        limit: cap::limit_line(k),
        header: cap::CONTAINER_HEADER,
        rows: cap::container_rows(k),
        figures: cap::under_limit_lines(doc),
    })
}

/// The anatomy section's tables (the charts are among the figures).
#[derive(Serialize)]
struct AnatomyTables {
    layer_header: [&'static str; 5],
    layers: Vec<[String; 5]>,
    victim_header: [&'static str; 6],
    victim: Vec<[String; 6]>,
    fork_header: [&'static str; 4],
    fork: Vec<[String; 4]>,
    /// Threaded forks, evidence and what was unavailable, as sentences.
    lines: Vec<String>,
}

impl From<Option<&Anatomy>> for AnatomyTables {
    fn from(a: Option<&Anatomy>) -> Self {
        use crate::anatomy as text;
        let none = Anatomy::default();
        let a = a.unwrap_or(&none);
        AnatomyTables {
            layer_header: text::LAYER_HEADER,
            layers: text::layer_rows(&a.stacks),
            victim_header: text::VICTIM_HEADER,
            victim: text::victim_rows(a),
            fork_header: text::FORK_HEADER,
            fork: text::fork_rows(a),
            lines: text::lines(a),
        }
    }
}

#[derive(Serialize)]
struct WorkloadAnswer {
    name: &'static str,
    best: Option<&'static str>,
    /// "10% of one CPU fits 140,000/s (next: ...)".
    capacity: Option<String>,
    rows: Vec<[String; 4]>,
    arithmetic: Vec<String>,
    missing: Vec<String>,
}

impl From<&Answer<'_>> for Page {
    fn from(answer: &Answer<'_>) -> Self {
        let doc = answer.doc;
        let (results, notes) = sections::result_rows(doc);
        let (claims, dimensions) = sections::claims_and_s0_table(answer);
        Page {
            style: format!("{}{STYLE}", crate::cjk_font::font_face_css()),
            version: doc.tool.version.clone(),
            started_at: doc.started_at.clone(),
            duration: format::value(doc.duration_s, "s"),
            mode: mode(doc),
            host_line: sections::host_line(doc),
            host: host_facts(doc),
            warnings: doc.warnings.iter().map(ToString::to_string).collect(),
            costs: crate::answer::unit_rows(answer),
            among: answer.among_measured(),
            unit_header: crate::answer::UNIT_HEADER,
            unit_definitions: crate::answer::UNIT_DEFINITIONS,
            runtimes_header: runtimes::RUNTIMES_HEADER,
            runtimes: runtimes::runtime_rows(doc),
            runtime_notes: runtimes::runtime_notes(doc),
            workloads: workload_answers(answer),
            claims,
            dimensions,
            s0_opening: sections::S0_TABLE_OPENING,
            history: history::view(doc.history.as_ref()),
            figures: charts::figures(doc, answer.anatomy.as_ref()),
            anatomy: AnatomyTables::from(answer.anatomy.as_ref()),
            replication_header: sections::REPLICATION_HEADER,
            replication: sections::replication_rows(answer),
            result_header: sections::RESULT_HEADER,
            results,
            notes,
            skipped: sections::skipped_lines(doc),
            failures: sections::failure_lines(doc),
            invalid: sections::invalid_lines(doc),
            interrupted: doc.interrupted,
            capacity: capacity_view(doc),
            container: container_view(doc),
            crossover: crossover_view(doc),
        }
    }
}

fn mode(doc: &ResultDoc) -> Option<&'static str> {
    match doc.mode() {
        RunMode::Smoke => Some("smoke test: one repetition of a few iterations, to prove every experiment runs — not a measurement"),
        RunMode::Quick => Some("quick run: short samples and fewer rounds; run without --quick for tighter intervals"),
        RunMode::Full => None,
    }
}

fn host_facts(doc: &ResultDoc) -> Vec<(String, String)> {
    let h = &doc.host;
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let limit = |v: Option<u64>| {
        v.map(|n| n.to_string())
            .unwrap_or_else(|| "unlimited".into())
    };
    let unmitigated: Vec<&str> = h
        .mitigations
        .iter()
        .filter(|(_, v)| v.starts_with("Vulnerable"))
        .map(|(k, _)| k.as_str())
        .collect();
    vec![
        ("CPU".into(), h.cpu_model.clone()),
        (
            "logical CPUs".into(),
            format!(
                "{}{}",
                h.logical_cpus,
                if h.smt { " (SMT siblings active)" } else { "" }
            ),
        ),
        (
            "virtualization".into(),
            match (h.virtualized, &h.hypervisor) {
                (true, Some(n)) => format!("virtual machine ({n})"),
                (true, None) => "virtual machine".into(),
                (false, _) => "bare metal".into(),
            },
        ),
        ("kernel".into(), h.kernel.clone()),
        ("OS".into(), opt(&h.os)),
        ("clocksource".into(), h.clocksource.clone()),
        ("cpufreq governor".into(), opt(&h.governor)),
        (
            "CPU quota".into(),
            h.cpu_quota
                .map(|q| format!("{q:.2} CPUs"))
                .unwrap_or_else(|| "none".into()),
        ),
        (
            "load average at start".into(),
            format!(
                "{:.2} {:.2} {:.2}",
                h.load_average[0], h.load_average[1], h.load_average[2]
            ),
        ),
        (
            "memory".into(),
            format!(
                "{} total, {} available",
                kib_text(h.memory_total_kib as f64),
                kib_text(h.memory_available_kib as f64)
            ),
        ),
        (
            "vulnerability mitigations".into(),
            if unmitigated.is_empty() {
                format!("{} checked, none unmitigated", h.mitigations.len())
            } else {
                format!("unmitigated: {}", unmitigated.join(", "))
            },
        ),
        (
            "limits".into(),
            format!(
                "threads-max {}, RLIMIT_NPROC {}, RLIMIT_NOFILE {}, default thread stack {}",
                limit(h.threads_max),
                limit(h.rlimit_nproc),
                limit(h.rlimit_nofile),
                kib_text(h.default_stack_kib as f64)
            ),
        ),
        (
            "privileges".into(),
            format!(
                "{}{}",
                if h.is_root { "root" } else { "not root" },
                if h.can_sched_fifo {
                    ", SCHED_FIFO allowed"
                } else {
                    ", no SCHED_FIFO"
                }
            ),
        ),
    ]
}

fn workload_answers(answer: &Answer<'_>) -> Vec<WorkloadAnswer> {
    answer
        .workloads
        .iter()
        .map(|wa| {
            let (name, a) = (wa.name, &wa.advice);
            let rows = a
                .bills
                .iter()
                .map(|b| {
                    [
                        b.model.name().to_string(),
                        b.overhead_cpu
                            .map(share)
                            .unwrap_or_else(|| "not measured".into()),
                        b.memory_kib
                            .map(kib_text)
                            .unwrap_or_else(|| "not measured".into()),
                        [
                            match (&b.excluded, a.best == Some(b.model)) {
                                (Some(why), _) => format!("excluded: {why}"),
                                (None, true) => "cheapest".into(),
                                _ => String::new(),
                            },
                            b.capacity_note.clone().unwrap_or_default(),
                        ]
                        .into_iter()
                        .filter(|n| !n.is_empty())
                        .collect::<Vec<_>>()
                        .join("; "),
                    ]
                })
                .collect();
            let mut missing: Vec<String> = a.bills.iter().flat_map(|b| b.missing.clone()).collect();
            missing.sort();
            missing.dedup();
            WorkloadAnswer {
                name,
                best: a.best.map(|m| m.name()),
                capacity: crate::answer::capacity_answer(a),
                rows,
                arithmetic: a
                    .bills
                    .iter()
                    .flat_map(|b| {
                        b.arithmetic
                            .iter()
                            .map(move |l| format!("{}: {l}", b.model.name()))
                    })
                    .collect(),
                missing,
            }
        })
        .collect()
}
