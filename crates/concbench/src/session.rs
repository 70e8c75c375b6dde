//! The measuring glue `run` and `replicate` share: turn the measuring flags into a run request,
//! prepare what the experiments need (the run lock, io data files, a scratch directory, the
//! Ctrl-C handler, the host facts), hand the request to the session (`concbench-session`:
//! selection, rounds, interleaving, budget, validation, verdicts, the finished document), show
//! its progress; then write the document (JSON), store it in the history and choose the exit code.

use crate::args::{MeasureArgs, Pin};
use crate::output;
use crate::progress::Progress;
use crate::run_lock;
use crate::stdout::errln;
use anyhow::{Context, Result};
use concbench_core::{Experiment, ResultDoc, RunMode};
use concbench_experiments::io::RunData;
use concbench_measure::{host, signals, PinMode};
use concbench_report::{Exporter, Json};
use concbench_session::{Chosen, Finished, Registry, Rig, RunRequest, SystemMachine, WorkerRunner};
use concbench_store::Store;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The experiments of this build, as the session asks for them.
pub struct Builtin;

impl Registry for Builtin {
    fn all(&self) -> Vec<Box<dyn Experiment>> {
        concbench_experiments::all()
    }
    fn select(&self, only: &[String]) -> Result<Vec<Chosen>> {
        concbench_experiments::select(only)
    }
    fn at(&self, index: usize) -> Option<Box<dyn Experiment>> {
        concbench_experiments::at(index)
    }
}

/// The run the measuring flags ask for; `settings` are what the command records beside the
/// harness settings.
pub fn request(args: &MeasureArgs) -> RunRequest {
    let pin = match args.pin {
        Pin::Auto => PinMode::Auto,
        Pin::None => PinMode::None,
    };
    let mode = RunMode::from_flags(args.quick, args.smoke);
    let mut request = RunRequest::new(mode, pin, concbench_sys::allowed_cpus().unwrap_or_default());
    request.repetitions = args.repeat.map(|r| r as usize);
    if let Some(n) = args.rounds {
        request.plan = request.plan.with_rounds(n as usize);
    }
    if let Some(d) = args.budget {
        request.plan.budget = d;
    }
    if let Some(d) = args.settle {
        request.plan.settle = d;
    }
    request
}

/// Measure `chosen` in rounds as `request` asks, validate and judge them into a document.
pub fn measure(
    chosen: Vec<Chosen>,
    args: &MeasureArgs,
    mut request: RunRequest,
) -> Result<ResultDoc> {
    // First: a run refused because another measures should not prepare anything.
    let me = run_lock::RunOwner::this_process()?;
    let lock = run_lock::RunLock::acquire(&run_lock::lock_path(), me, args.allow_concurrent)?;
    // The io family's data files: one directory for the whole run, removed when this is dropped
    // (at the end, after Ctrl-C, or on an error) unless --keep-io-files.
    let mut io_data = chosen
        .iter()
        .any(|(_, e)| e.meta().family == "io")
        .then(|| RunData::prepare(args.io_dir.as_deref(), args.keep_io_files))
        .transpose()?;
    let options = io_data.as_ref().map(RunData::options).unwrap_or_default();
    if let Some(io) = &io_data {
        request
            .settings
            .insert("io_dir".into(), io.path().display().to_string().into());
    }
    let cancel = signals::install_cancel_handler().context("installing the Ctrl-C handler")?;
    let mut progress = Progress::new();
    build_ahead(&chosen, &|| cancel.is_cancelled(), &mut progress);
    let scratch = tempfile::Builder::new()
        .prefix("concbench-")
        .tempdir()
        .context("creating a scratch directory")?;
    concbench_sys::owner::claim(scratch.path())?;
    let host = host::collect();
    if let Some(build) = concbench_measure::build_id::this_executable() {
        concbench_core::set_build(build);
    }
    let program = std::env::current_exe().context("locating the concbench executable")?;
    let mut runner = WorkerRunner::new(
        request.supervisor(program, vec!["__worker".into()], cancel.clone()),
        request.config(),
        host.clone(),
        scratch.path().to_path_buf(),
        options,
    );
    let machine = SystemMachine::default();
    let rig = Rig {
        runner: &mut runner,
        machine: &machine,
        observer: &mut progress,
        cancel: &cancel,
        host: &host,
    };
    let finished = concbench_session::measure(&request, &chosen, &Builtin, rig, &mut |doc| {
        record_overlaps(doc, &lock)
    });
    drop(lock);
    if let Some(io) = io_data.take() {
        let done = io.describe_end();
        drop(io);
        errln!("concbench: {done}");
    }
    let Finished { doc, stats } = finished;
    errln!(
        "concbench: {} rounds in {} passes, {:.0} s{}{}",
        stats.rounds,
        stats.passes,
        doc.duration_s,
        rounds_per_verdict(&doc, request.plan.claim_rounds),
        what_a_full_run_adds(&doc)
    );
    Ok(doc)
}

/// "; a full run (about 10 minutes) judges S0.print, S4.one_thread on the articles' own
/// programs and systems" for a quick run's closing line; empty when it adds nothing.
fn what_a_full_run_adds(doc: &ResultDoc) -> String {
    let claims: Vec<&str> = (doc.verdicts.iter())
        .filter(|v| !v.full_run.is_empty())
        .map(|v| v.source.as_str())
        .collect();
    if claims.is_empty() {
        return String::new();
    }
    let time = concbench_report::full_run_time(doc)
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    format!(
        "; a full run{time} judges {} on the articles' own programs and systems",
        claims.join(", ")
    )
}

/// Every run that measured beside this one: in the settings (for tools) and as a warning (for
/// the first screen).
fn record_overlaps(doc: &mut ResultDoc, lock: &run_lock::RunLock) {
    let overlaps = lock.overlaps();
    if overlaps.is_empty() {
        return;
    }
    for other in &overlaps {
        let w = run_lock::overlap_warning(other);
        errln!("concbench: warning: {w}");
        doc.warnings.push(w);
    }
    if let Ok(v) = serde_json::to_value(&overlaps) {
        doc.settings.insert("overlapping_runs".into(), v);
    }
}

/// Build the probes the run compiles on first use before its clock starts, saying what is
/// built (see `Experiment::build_ahead`). A failed build is not reported here: the variant's
/// round builds again and records the failure with its own context, as it would without this.
fn build_ahead(variants: &[Chosen], cancelled: &dyn Fn() -> bool, progress: &mut Progress) {
    for (_, e) in variants {
        if cancelled() {
            return;
        }
        let _ = e.build_ahead(&mut |what| progress.preparing(what));
    }
}

/// "; rounds per verdict: S0.30x 6, S4.degrade 9 (1 check at 1), ..." for the closing line: a
/// verdict's rounds are its deciding checks' most, and the checks the run left under its base
/// rounds follow in brackets (a withheld check, which takes no rounds of its own, is not one).
/// Why: a full run on 2026-11-27 said "S4.degrade 9" while its 100-thread check had one round.
/// `base` is the plan's rounds for a claim's figures (`RunPlan::claim_rounds`), passed typed
/// rather than read back from the document's settings by name.
fn rounds_per_verdict(doc: &ResultDoc, base: usize) -> String {
    let parts: Vec<String> = doc
        .verdicts
        .iter()
        .filter_map(|v| {
            let short: Vec<usize> = (v.checks.iter())
                .filter(|c| !c.beside && !c.withheld && c.rounds < base)
                .map(|c| c.rounds)
                .collect();
            let under = match (short.len(), short.iter().min()) {
                (0, _) | (_, None) => String::new(),
                (1, Some(r)) => format!(" (1 check at {r})"),
                (n, Some(r)) => format!(" ({n} checks under {base}, the fewest at {r})"),
            };
            Some(format!("{} {}{under}", v.source, v.rounds?))
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; rounds per verdict: {}", parts.join(", "))
    }
}

/// The pages a measuring command was asked for beside its document.
#[derive(Clone, Copy)]
pub struct Pages<'a> {
    pub markdown: Option<&'a Path>,
    pub html: Option<&'a Path>,
}

impl<'a> Pages<'a> {
    /// Each page asked for with the flag that asked for it (for the checks before measuring).
    pub fn flagged(&self) -> Vec<(&'static str, &'a Path)> {
        [("--markdown", self.markdown), ("--html", self.html)]
            .into_iter()
            .filter_map(|(flag, path)| Some((flag, path?)))
            .collect()
    }
}

/// How every measuring command ends: the document and the pages asked for first, so that the
/// summary can say where they are; the history whatever became of them; the answer on stdout,
/// printed even when a write failed (the error follows it); the exit code of the run.
pub fn conclude(
    doc: &ResultDoc,
    args: &MeasureArgs,
    command: &str,
    pages: Pages<'_>,
    store: Option<&mut Store>,
) -> Result<ExitCode> {
    let written = keep(doc, args, command).and_then(|document| {
        let page = output::write_pages(doc, pages.markdown, pages.html)?;
        Ok(concbench_report::Files {
            document: Some(document),
            page,
        })
    });
    let document = written.as_ref().ok().and_then(|f| f.document.clone());
    let stored = self::store(doc, store, command, document.as_deref());
    let terminal = concbench_report::Terminal {
        width: concbench_report::terminal::stdout_width(),
        all: args.all,
        files: written.as_ref().map(Clone::clone).unwrap_or_default(),
    };
    crate::stdout::out!("{}", terminal.render(doc)?);
    written?;
    stored?;
    Ok(exit_code(doc))
}

/// Write the document (`--json` or the default path); returns where it went.
pub fn keep(doc: &ResultDoc, args: &MeasureArgs, command: &str) -> Result<PathBuf> {
    let label = output::document_label(args.json.as_deref());
    let text = Json.render(doc)?;
    // An explicit --json path is the user's to overwrite; the default folder never is.
    let path = match &args.json {
        Some(path) => output::write_or_fallback(label, path, &text)?,
        None => output::write_new_or_fallback(
            label,
            &default_json_path(command, &doc.started_at),
            &text,
        )?,
    };
    errln!("concbench: wrote {}", path.display());
    Ok(path)
}

/// Store the run in the history (nothing under `--no-store`). A failure fails the command, with
/// exit code 1, after saying that the run was measured, where its document is, and how to store
/// it later: the history was checked before measuring, so this is a failure of the moment (a full
/// disk, a lost server), not a request to refuse. Regression: such a run said "warning: not stored" and
/// exited 0.
pub fn store(
    doc: &ResultDoc,
    store: Option<&mut Store>,
    command: &str,
    document: Option<&Path>,
) -> Result<()> {
    let Some(store) = store else {
        return Ok(());
    };
    match store.save(doc, command) {
        Ok(id) => {
            errln!(
                "concbench: stored as run {id} in {} (`concbench history`)",
                store.path().display()
            );
            Ok(())
        }
        Err(e) => {
            let later = match document {
                Some(path) => format!(
                    "the document {} has everything; `concbench push {}` stores it once the \
                     history takes writes again",
                    path.display(),
                    path.display()
                ),
                None => "and its document could not be written either".to_string(),
            };
            Err(e.context(format!(
                "the run was measured but not stored in the history {}: {later}",
                store.path().display()
            )))
        }
    }
}

/// 130 when interrupted, 1 when a variant failed, 0 otherwise.
pub fn exit_code(doc: &ResultDoc) -> ExitCode {
    if doc.interrupted {
        ExitCode::from(130)
    } else if !doc.failures.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `concbench-results/<command>-<time>.json` in the current directory.
pub(crate) fn default_json_path(command: &str, started_at: &str) -> PathBuf {
    let stamp: String = started_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from(output::DEFAULT_DIR).join(format!("{command}-{stamp}.json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Check, Host, Verdict, VerdictKind};

    fn check(rounds: usize, beside: bool, withheld: bool) -> Check {
        Check {
            condition: "c".into(),
            rule: "r".into(),
            estimate: Some(1.0),
            ci95: None,
            unit: "x".into(),
            rounds,
            decision: VerdictKind::Inconclusive,
            note: String::new(),
            beside,
            withheld,
            boundary: None,
            at_margin: None,
        }
    }

    #[test]
    fn regression_the_closing_line_said_s4_degrade_9_with_a_check_at_one_round() {
        let mut doc = ResultDoc::new(Host::default(), String::new());
        let verdict = |source: &str, checks: Vec<Check>| Verdict {
            claim: "claim".into(),
            source: source.into(),
            verdict: VerdictKind::Inconclusive,
            evidence: Vec::new(),
            explanation: String::new(),
            rounds: checks.iter().filter(|c| !c.beside).map(|c| c.rounds).max(),
            checks,
            robustness: None,
            unmeasured: Vec::new(),
            judged: Default::default(),
            full_run: Vec::new(),
        };
        doc.verdicts = vec![
            verdict(
                "S4.degrade",
                vec![check(9, false, false), check(1, false, false)],
            ),
            // Withheld or beside at one round: not left short by the run.
            verdict(
                "S4.one_thread",
                vec![check(20, false, false), check(1, false, true)],
            ),
            verdict(
                "S0.print",
                vec![check(6, false, false), check(1, true, false)],
            ),
            verdict(
                "S0.create",
                vec![
                    check(7, false, false),
                    check(1, false, false),
                    check(5, false, false),
                ],
            ),
        ];
        assert_eq!(
            rounds_per_verdict(&doc, 6),
            "; rounds per verdict: S4.degrade 9 (1 check at 1), S4.one_thread 20, S0.print 6, \
             S0.create 7 (2 checks under 6, the fewest at 1)"
        );
    }
}
