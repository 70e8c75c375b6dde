//! The measuring machinery `run` and `replicate` share: measure a list of variants, each in a
//! fresh worker process, into a result document; then write it (JSON, history) and choose the
//! exit code.

use crate::args::{MeasureArgs, Pin};
use crate::commands::outputs;
use crate::progress::Progress;
use anyhow::{Context, Result};
use concbench_analysis::{build_entry, verdicts};
use concbench_core::{Experiment, Outcome, RawMeasurement, ResultDoc};
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
        rounds: rounds(args),
    }
}

/// Rounds per variant: `--rounds`, else 2 for a full run and 1 for `--quick` (where the whole
/// suite lasts a minute and drift has little time to act).
pub fn rounds(args: &MeasureArgs) -> usize {
    match args.rounds {
        Some(n) => n as usize,
        None if is_quick(args) => 1,
        None => 2,
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
    concbench_sys::owner::claim(scratch.path())?;
    let started_at = clock::wall_now_rfc3339();
    let started = clock::now();
    let cpu_at_start = concbench_measure::usage::system_cpu();
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

    let rounds = config.rounds.max(1);
    let mut progress = Progress::new(variants.len() * rounds);
    let job_for = |index: usize, exp: &dyn Experiment| Job {
        index,
        id: exp.meta().id.to_string(),
        config: config.clone(),
        host: host.clone(),
        scratch_dir: scratch.path().to_path_buf(),
        options: options.clone(),
    };
    // Each variant's samples so far; a variant that was skipped or failed is not measured again.
    let mut merged: Vec<Option<RawMeasurement>> = vec![None; variants.len()];
    let mut excluded = vec![false; variants.len()];
    'rounds: for round in 1..=rounds {
        for (slot, (index, exp)) in variants.iter().enumerate() {
            if cancel.is_cancelled() {
                break 'rounds;
            }
            if excluded[slot] {
                progress.end_one();
                continue;
            }
            let params = recorded_params(exp.as_ref(), config.pin);
            let label = format!("{} {}", exp.meta().id, params.compact());
            let shown = if rounds > 1 {
                format!("round {round}/{rounds}: {label}")
            } else {
                label.clone()
            };
            progress.begin(shown);
            match supervisor.measure(&job_for(*index, exp.as_ref()), &mut |e| progress.event(e)) {
                Outcome::Measured(mut raw) => {
                    raw.meta = exp.meta().clone();
                    match &mut merged[slot] {
                        Some(so_far) => so_far.merge(*raw),
                        None => merged[slot] = Some(*raw),
                    }
                }
                Outcome::Skipped(s) => {
                    excluded[slot] = true;
                    doc.skipped.push(s);
                }
                Outcome::Failed(_) if cancel.is_cancelled() => {}
                Outcome::Failed(mut f) => {
                    // A variant that failed in any round is reported failed, not half-measured.
                    excluded[slot] = true;
                    merged[slot] = None;
                    f.params = params;
                    progress.note(&format!("FAILED {label}: {}", f.error));
                    doc.failures.push(f);
                }
            }
            progress.end_one();
        }
    }
    doc.results = merged.iter().flatten().map(build_entry).collect();
    progress.finish();
    if let Some(io) = io_data.take() {
        let done = io.describe_end();
        drop(io);
        eprintln!("concbench: {done}");
    }
    doc.interrupted = cancel.is_cancelled();
    doc.duration_s = started.elapsed().as_secs_f64();
    let cpu_at_end = concbench_measure::usage::system_cpu();
    if let Some(w) = cpu_at_start
        .zip(cpu_at_end)
        .and_then(|(a, b)| steal_warning(b.steal_share_since(&a)))
    {
        doc.warnings.push(w);
    }
    doc.verdicts = verdicts::judge(&doc);
    Ok(doc)
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
) -> Result<()> {
    let path = args
        .json
        .clone()
        .unwrap_or_else(|| default_json_path(command, &doc.started_at));
    let label = outputs::document_label(args.json.as_deref());
    let path = outputs::write_or_fallback(label, &path, &Json.render(doc)?)?;
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
    s.insert("rounds".into(), rounds(args).into());
    s
}

/// `concbench-results/<command>-<time>.json` in the current directory.
fn default_json_path(command: &str, started_at: &str) -> PathBuf {
    let stamp: String = started_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from(outputs::DEFAULT_DIR).join(format!("{command}-{stamp}.json"))
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
