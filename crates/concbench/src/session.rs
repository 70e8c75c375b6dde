//! The measuring machinery `run` and `replicate` share: measure a list of variants, each in a
//! fresh worker process, into a result document; then write it (JSON, history) and choose the
//! exit code.

use crate::args::{MeasureArgs, Pin};
use crate::progress::Progress;
use anyhow::{Context, Result};
use concbench_analysis::{build_entry, verdicts};
use concbench_core::{Experiment, Outcome, ResultDoc};
use concbench_experiments::io::RunData;
use concbench_measure::isolate::{supervisor::Supervisor, Job};
use concbench_measure::{clock, host, recorded_params, signals, HarnessConfig, PinMode};
use concbench_report::{Exporter, Json};
use concbench_store::Store;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A registry variant with its index in `concbench_experiments::all()`.
pub type Variant = (usize, Box<dyn Experiment>);

/// How the harness measures, from the command line.
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

/// `--smoke` implies the quick sizes.
pub fn is_quick(args: &MeasureArgs) -> bool {
    args.quick || args.smoke
}

/// Keep what `--quick` runs, and collapse placements that `--pin none` makes identical.
pub fn prepare(variants: Vec<Variant>, args: &MeasureArgs) -> Vec<Variant> {
    let quick = is_quick(args);
    let pin = harness_config(args).pin;
    let mut seen = HashSet::new();
    variants
        .into_iter()
        .filter(|(_, e)| !quick || e.in_quick())
        .filter(|(_, e)| {
            seen.insert(format!(
                "{} {}",
                e.meta().id,
                recorded_params(e.as_ref(), pin).compact()
            ))
        })
        .collect()
}

/// Measure `variants` (each in a fresh worker), summarise and judge them into a document.
/// `settings` are recorded in the document beside the harness settings.
pub fn measure(
    variants: Vec<Variant>,
    args: &MeasureArgs,
    mut settings: BTreeMap<String, serde_json::Value>,
) -> Result<ResultDoc> {
    let config = harness_config(args);
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
    let scratch = tempfile::Builder::new()
        .prefix("concbench-")
        .tempdir()
        .context("creating a scratch directory")?;
    let started_at = clock::wall_now_rfc3339();
    let started = clock::now();
    let host = host::collect();
    let supervisor = Supervisor {
        program: std::env::current_exe().context("locating the concbench executable")?,
        args: vec!["__worker".into()],
        time_limit: Duration::from_secs(if config.quick { 180 } else { 900 }),
        cancel: cancel.clone(),
    };
    settings.extend(harness_settings(args));
    let mut doc = ResultDoc::new(host.clone(), started_at);
    doc.settings = settings;
    doc.warnings = host.confounder_warnings();

    let mut progress = Progress::new(variants.len());
    for (index, exp) in variants {
        if cancel.is_cancelled() {
            break;
        }
        let params = recorded_params(exp.as_ref(), config.pin);
        let label = format!("{} {}", exp.meta().id, params.compact());
        progress.begin(label.clone());
        let job = Job {
            index,
            id: exp.meta().id.to_string(),
            config: config.clone(),
            host: host.clone(),
            scratch_dir: scratch.path().to_path_buf(),
            options: options.clone(),
        };
        match supervisor.measure(&job, &mut |e| progress.event(e)) {
            Outcome::Measured(mut raw) => {
                raw.meta = exp.meta().clone();
                doc.results.push(build_entry(&raw));
            }
            Outcome::Skipped(s) => doc.skipped.push(s),
            Outcome::Failed(_) if cancel.is_cancelled() => {}
            Outcome::Failed(mut f) => {
                f.params = params;
                progress.note(&format!("FAILED {label}: {}", f.error));
                doc.failures.push(f);
            }
        }
        progress.end_one();
    }
    progress.finish();
    if let Some(io) = io_data.take() {
        let done = io.describe_end();
        drop(io);
        eprintln!("concbench: {done}");
    }
    doc.interrupted = cancel.is_cancelled();
    doc.duration_s = started.elapsed().as_secs_f64();
    doc.verdicts = verdicts::judge(&doc);
    Ok(doc)
}

/// Write the document (`--json` or the default path) and store it in the history (unless
/// `store` is `None`). A history failure is reported but does not lose the measurement: the
/// JSON is written first.
pub fn keep(
    doc: &ResultDoc,
    args: &MeasureArgs,
    store: Option<&mut Store>,
    command: &str,
) -> Result<()> {
    let path = args
        .json
        .clone()
        .unwrap_or_else(|| default_json_path(command, &doc.started_at));
    crate::commands::write_output("--json", &path, &Json.render(doc)?)?;
    eprintln!(
        "concbench: wrote {} (as a page with charts: `concbench report {} --html report.html`)",
        path.display(),
        path.display()
    );
    if let Some(store) = store {
        match store.save(doc, command) {
            Ok(id) => eprintln!(
                "concbench: stored as run {id} in {} (`concbench history`)",
                store.path().display()
            ),
            Err(e) => eprintln!(
                "concbench: warning: not stored in {}: {e:#} (the JSON above has everything)",
                store.path().display()
            ),
        }
    }
    Ok(())
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

fn harness_settings(args: &MeasureArgs) -> BTreeMap<String, serde_json::Value> {
    let mut s = BTreeMap::new();
    s.insert("quick".into(), is_quick(args).into());
    s.insert("smoke".into(), args.smoke.into());
    s.insert(
        "pin".into(),
        format!("{:?}", args.pin).to_lowercase().into(),
    );
    s.insert(
        "repeat".into(),
        args.repeat
            .map(serde_json::Value::from)
            .unwrap_or(serde_json::Value::Null),
    );
    s
}

/// `concbench-results/<command>-<time>.json` in the current directory.
fn default_json_path(command: &str, started_at: &str) -> PathBuf {
    let stamp: String = started_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from("concbench-results").join(format!("{command}-{stamp}.json"))
}
