//! The measuring glue `run` and `replicate` share: prepare what the experiments need (io data
//! files, a scratch directory, the Ctrl-C handler, the host facts), hand the variants to the
//! session (`concbench-session`: rounds, interleaving, budget, validation, verdicts), and make the
//! result document; then write it (JSON, history) and choose the exit code.

use crate::args::{MeasureArgs, Pin};
use crate::output;
use crate::progress::Progress;
use crate::run_lock;
use crate::stdout::errln;
use anyhow::{Context, Result};
use concbench_core::{Experiment, Params, ResultDoc};
use concbench_experiments::io::RunData;
use concbench_measure::isolate::supervisor::Supervisor;
use concbench_measure::{clock, host, recorded_params, signals, HarnessConfig, PinMode};
use concbench_report::{Exporter, Json};
use concbench_session::{RunPlan, SystemMachine, WorkerRunner};
use concbench_store::Store;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A registry variant with its index in `concbench_experiments::all()`.
pub type Variant = (usize, Box<dyn Experiment>);

/// How each worker measures its round, from the command line.
pub fn harness_config(args: &MeasureArgs) -> HarnessConfig {
    HarnessConfig {
        quick: is_quick(args),
        smoke: args.smoke,
        repetitions: args.repeat.map(|r| r as usize),
        pin: match args.pin {
            Pin::Auto => PinMode::Auto,
            Pin::None => PinMode::None,
        },
    }
}

/// How many rounds the run spends, from the command line.
pub fn run_plan(args: &MeasureArgs) -> RunPlan {
    let mut plan = RunPlan::new(is_quick(args), args.smoke);
    if let Some(n) = args.rounds {
        plan = plan.with_rounds(n as usize);
    }
    if let Some(d) = args.budget {
        plan.budget = d;
    }
    if let Some(d) = args.settle {
        plan.settle = d;
    }
    plan
}

/// `--smoke` implies the quick sizes.
pub fn is_quick(args: &MeasureArgs) -> bool {
    args.quick || args.smoke
}

/// The CPUs this process may use (placement labels depend on them).
pub fn allowed_cpus() -> Vec<usize> {
    concbench_sys::allowed_cpus().unwrap_or_default()
}

/// The params a variant records (placement included) under these arguments.
pub fn params_of(exp: &dyn Experiment, args: &MeasureArgs) -> Params {
    recorded_params(exp, harness_config(args).pin, &allowed_cpus())
}

/// Keep what `--quick` runs, and collapse placements that `--pin none` (or a one-CPU mask)
/// makes identical. `--smoke` proves every experiment runs: the quick subset, plus the first
/// variant of every id the quick subset leaves out.
pub fn prepare(variants: Vec<Variant>, args: &MeasureArgs) -> Vec<Variant> {
    let quick = is_quick(args);
    let quick_ids: HashSet<&str> = variants
        .iter()
        .filter(|(_, e)| e.in_quick())
        .map(|(_, e)| e.meta().id)
        .collect();
    let mut smoke_extra: HashSet<&str> = HashSet::new();
    let keep: Vec<bool> = variants
        .iter()
        .map(|(_, e)| {
            let id = e.meta().id;
            !quick
                || e.in_quick()
                || (args.smoke && !quick_ids.contains(id) && smoke_extra.insert(id))
        })
        .collect();
    let mut seen = HashSet::new();
    variants
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(v, _)| v)
        .filter(|(_, e)| {
            seen.insert(format!(
                "{} {}",
                e.meta().id,
                params_of(e.as_ref(), args).compact()
            ))
        })
        .collect()
}

/// Measure `variants` in rounds, validate and judge them into a document. `settings` are
/// recorded in the document beside the harness settings.
pub fn measure(
    variants: Vec<Variant>,
    args: &MeasureArgs,
    mut settings: BTreeMap<String, serde_json::Value>,
) -> Result<ResultDoc> {
    let config = harness_config(args);
    let plan = run_plan(args);
    // First: a run refused because another measures should not prepare anything.
    let lock =
        run_lock::RunLock::acquire(&run_lock::lock_path(), this_run(), args.allow_concurrent)?;
    // The io family's data files: one directory for the whole run, removed when this is dropped
    // (at the end, after Ctrl-C, or on an error) unless --keep-io-files.
    let mut io_data = variants
        .iter()
        .any(|(_, e)| e.meta().family == "io")
        .then(|| RunData::prepare(args.io_dir.as_deref(), args.keep_io_files))
        .transpose()?;
    let options = io_data.as_ref().map(RunData::options).unwrap_or_default();
    if let Some(io) = &io_data {
        settings.insert("io_dir".into(), io.path().display().to_string().into());
    }
    let cancel = signals::install_cancel_handler().context("installing the Ctrl-C handler")?;
    build_ahead(&variants, &|| cancel.is_cancelled());
    let scratch = tempfile::Builder::new()
        .prefix("concbench-")
        .tempdir()
        .context("creating a scratch directory")?;
    concbench_sys::owner::claim(scratch.path())?;
    let started_at = clock::wall_now_rfc3339();
    let host = host::collect();
    let session_variants: Vec<concbench_session::Variant> = variants
        .iter()
        .map(|(index, e)| concbench_session::Variant {
            index: *index,
            meta: e.meta().clone(),
            params: params_of(e.as_ref(), args),
        })
        .collect();
    let mut runner = WorkerRunner {
        supervisor: Supervisor {
            program: std::env::current_exe().context("locating the concbench executable")?,
            args: vec!["__worker".into()],
            time_limit: Duration::from_secs(if config.quick { 180 } else { 900 }),
            cancel: cancel.clone(),
        },
        config,
        host: host.clone(),
        scratch_dir: scratch.path().to_path_buf(),
        options,
    };
    settings.extend(harness_settings(args, &plan));
    let broken = broken_selectors();
    let machine = SystemMachine::default();
    let mut progress = Progress::new();
    let out = concbench_session::run(
        &session_variants,
        &plan,
        &mut runner,
        &machine,
        &mut progress,
        &cancel,
        &host,
    );
    progress.finish();
    if let Some(io) = io_data.take() {
        let done = io.describe_end();
        drop(io);
        errln!("concbench: {done}");
    }
    let mut doc = ResultDoc::new(host.clone(), started_at);
    doc.settings = settings;
    doc.warnings = host.confounder_warnings();
    doc.warnings.extend(broken);
    doc.warnings.extend(out.warnings);
    if let Some(w) = out.load.and_then(|l| steal_warning(l.steal)) {
        doc.warnings.push(w);
    }
    record_overlaps(&mut doc, &lock);
    drop(lock);
    doc.duration_s = machine_elapsed(&machine);
    doc.results = out.results;
    doc.invalid = out.invalid;
    doc.skipped = out.skipped;
    doc.failures = out.failures;
    doc.verdicts = out.verdicts;
    doc.interrupted = out.interrupted;
    doc.warnings
        .extend(concbench_analysis::warnings::suggest_hold_awake(&doc));
    errln!(
        "concbench: {} rounds in {} passes, {:.0} s{}",
        out.rounds,
        out.passes,
        doc.duration_s,
        rounds_per_verdict(&doc)
    );
    Ok(doc)
}

/// This process as a run's owner: what a refused run names.
fn this_run() -> run_lock::RunOwner {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .first()
        .and_then(|a| a.rsplit('/').next())
        .unwrap_or("concbench");
    run_lock::RunOwner {
        pid: std::process::id(),
        started_at: clock::wall_now_rfc3339(),
        command: std::iter::once(name)
            .chain(args.iter().skip(1).map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
    }
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
fn build_ahead(variants: &[Variant], cancelled: &dyn Fn() -> bool) {
    for (_, e) in variants {
        if cancelled() {
            return;
        }
        let _ = e.build_ahead(&mut |what| errln!("concbench: {what}"));
    }
}

/// Claims whose rule names a result this build does not register: a build defect (a renamed
/// experiment or param), said at start-up rather than leaving a verdict silently unjudged.
fn broken_selectors() -> Vec<String> {
    let all = concbench_experiments::all();
    // The registry as a two-CPU machine pinning as asked would record it, whatever this run does.
    let keys: Vec<(&str, Params)> = all
        .iter()
        .map(|e| {
            (
                e.meta().id,
                recorded_params(e.as_ref(), PinMode::Auto, &[0, 1]),
            )
        })
        .collect();
    let refs: Vec<(&str, &Params)> = keys.iter().map(|(id, p)| (*id, p)).collect();
    let published = concbench_analysis::published::published();
    concbench_analysis::verdicts::unmatched_selectors(&published, &refs)
        .into_iter()
        .map(|s| {
            let w = format!(
                "the rule of {s} names a result this build does not have; that check cannot be \
                 judged (a renamed experiment or param: please report it)"
            );
            errln!("concbench: warning: {w}");
            w
        })
        .collect()
}

fn machine_elapsed(m: &SystemMachine) -> f64 {
    concbench_session::Machine::now(m).as_secs_f64()
}

/// "; verdict rounds: S0.30x 6, S2.switch_order 14, ..." for the closing line.
fn rounds_per_verdict(doc: &ResultDoc) -> String {
    let parts: Vec<String> = doc
        .verdicts
        .iter()
        .filter_map(|v| Some(format!("{} {}", v.source, v.rounds?)))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; rounds per verdict: {}", parts.join(", "))
    }
}

/// The share of CPU time a hypervisor may steal before a run's figures deserve a warning.
const STEAL_WARNING_SHARE: f64 = 0.02;

/// A warning when the hypervisor took CPU time away during the run (other guests on the host).
fn steal_warning(share: f64) -> Option<String> {
    (share > STEAL_WARNING_SHARE).then(|| {
        format!(
            "the hypervisor took {:.1}% of the CPU time during the run (steal): other guests \
             on the host competed with the measurement; rerun at a quieter time and compare the \
             two runs (`concbench compare`) before trusting small differences",
            share * 100.0
        )
    })
}

/// Write the document (`--json` or the default path) and store it in the history (unless
/// `store` is `None`). A history failure is reported but does not lose the measurement: the
/// JSON is written first.
pub fn keep(
    doc: &ResultDoc,
    args: &MeasureArgs,
    store: Option<&mut Store>,
    command: &str,
) -> Result<PathBuf> {
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
    if let Some(store) = store {
        match store.save(doc, command) {
            Ok(id) => errln!(
                "concbench: stored as run {id} in {} (`concbench history`)",
                store.path().display()
            ),
            Err(e) => errln!(
                "concbench: warning: not stored in {}: {e:#} (the JSON above has everything)",
                store.path().display()
            ),
        }
    }
    Ok(path)
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

fn harness_settings(args: &MeasureArgs, plan: &RunPlan) -> BTreeMap<String, serde_json::Value> {
    let mut s = BTreeMap::new();
    s.insert("quick".into(), is_quick(args).into());
    s.insert("smoke".into(), args.smoke.into());
    s.insert(
        "pin".into(),
        format!("{:?}", args.pin).to_lowercase().into(),
    );
    s.insert(
        "samples_per_round".into(),
        harness_config(args).repetitions().into(),
    );
    s.insert("claim_rounds".into(), plan.claim_rounds.into());
    s.insert("other_rounds".into(), plan.other_rounds.into());
    s.insert("max_rounds".into(), plan.max_rounds.into());
    s.insert("budget_s".into(), plan.budget.as_secs().into());
    s.insert("order_seed".into(), plan.seed.into());
    s
}

/// `concbench-results/<command>-<time>.json` in the current directory.
fn default_json_path(command: &str, started_at: &str) -> PathBuf {
    let stamp: String = started_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from(output::DEFAULT_DIR).join(format!("{command}-{stamp}.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_warned_about_only_above_the_threshold() {
        assert!(steal_warning(0.01).is_none());
        let w = steal_warning(0.125).expect("12.5% steal is worth a warning");
        assert!(
            w.contains("12.5%") && w.contains("concbench compare"),
            "{w}"
        );
    }
}
