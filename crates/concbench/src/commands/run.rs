//! `concbench run`: select variants, measure each in a fresh worker process through the harness,
//! summarise, judge, render, write the result document.

use crate::args::{Pin, RunArgs};
use crate::progress::Progress;
use anyhow::{Context, Result};
use concbench_analysis::{build_entry, verdicts};
use concbench_core::{Experiment, Outcome, Params, ResultDoc, Tool, UsageError, SCHEMA_ID};
use concbench_experiments::io::RunData;
use concbench_measure::isolate::{supervisor::Supervisor, Job};
use concbench_measure::{clock, host, recorded_params, signals, HarnessConfig, PinMode};
use concbench_report::{Exporter, Json, Markdown, Terminal};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let quick = args.quick || args.smoke;
    let config = HarnessConfig {
        quick,
        smoke: args.smoke,
        repetitions: args.repeat.map(|r| r as usize),
        pin: match args.pin {
            Pin::Auto => PinMode::Auto,
            Pin::None => PinMode::None,
        },
    };
    let variants = dedupe(select(&args, quick)?, config.pin);
    // The io family's data files: one directory for the whole run, removed when this is dropped
    // (at the end, after Ctrl-C, or on an error) unless --keep-io-files.
    let mut io_data = variants
        .iter()
        .any(|(_, e)| e.meta().family == "io")
        .then(|| RunData::prepare(args.io_dir.as_deref(), args.keep_io_files))
        .transpose()?;
    let options = io_data.as_ref().map(RunData::options).unwrap_or_default();
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
        time_limit: Duration::from_secs(if quick { 180 } else { 900 }),
        cancel: cancel.clone(),
    };

    let mut doc = ResultDoc {
        schema: SCHEMA_ID.to_string(),
        tool: Tool {
            name: "concbench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        host: host.clone(),
        started_at,
        duration_s: 0.0,
        settings: settings(&args, quick, io_data.as_ref()),
        results: Vec::new(),
        skipped: Vec::new(),
        failures: Vec::new(),
        verdicts: Vec::new(),
        warnings: host.confounder_warnings(),
        interrupted: false,
    };

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

    print!("{}", Terminal { width: None }.render(&doc)?);
    let path = args
        .json
        .clone()
        .unwrap_or_else(|| default_json_path(&doc.started_at));
    super::write_output("--json", &path, &Json.render(&doc)?)?;
    eprintln!("concbench: wrote {}", path.display());
    if let Some(md) = &args.markdown {
        super::write_output("--markdown", md, &Markdown.render(&doc)?)?;
    }
    Ok(if doc.interrupted {
        ExitCode::from(130)
    } else if !doc.failures.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

type Variant = (usize, Box<dyn Experiment>);

/// The variants `--only`, `--where` and `--quick` select.
fn select(args: &RunArgs, quick: bool) -> Result<Vec<Variant>> {
    let selected: Vec<Variant> = concbench_experiments::select(&args.only)?
        .into_iter()
        .filter(|(_, e)| !quick || e.in_quick())
        .filter(|(_, e)| params_match(&e.params(), &args.where_params))
        .collect();
    if selected.is_empty() && !args.where_params.is_empty() {
        return Err(UsageError::new(
            "--where: no selected variant has these params; `concbench list` shows the ids, and a \
             run's table shows each variant's params (sweep points outside --quick need a full run)",
        )
        .into());
    }
    Ok(selected)
}

/// Whether every `KEY=VALUE` is among `params` (values compared as printed: `files=10`).
fn params_match(params: &Params, wanted: &[(String, String)]) -> bool {
    wanted.iter().all(|(k, v)| {
        params.get(k).is_some_and(|p| match p {
            serde_json::Value::String(s) => s == v,
            // Printed first: `Value == String` would compare as a JSON string, never a number.
            other => {
                let printed = other.to_string();
                printed == *v
            }
        })
    })
}

/// Under `--pin none` several placements of one variant collapse into one unpinned run.
fn dedupe(variants: Vec<Variant>, pin: PinMode) -> Vec<Variant> {
    let mut seen = HashSet::new();
    variants
        .into_iter()
        .filter(|(_, e)| {
            seen.insert(format!(
                "{} {}",
                e.meta().id,
                recorded_params(e.as_ref(), pin).compact()
            ))
        })
        .collect()
}

fn settings(
    args: &RunArgs,
    quick: bool,
    io_data: Option<&RunData>,
) -> BTreeMap<String, serde_json::Value> {
    let mut s = BTreeMap::new();
    s.insert("quick".into(), quick.into());
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
    s.insert("only".into(), args.only.clone().into());
    if !args.where_params.is_empty() {
        let wanted: Vec<String> = args
            .where_params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        s.insert("where".into(), wanted.into());
    }
    if let Some(io) = io_data {
        s.insert("io_dir".into(), io.path().display().to_string().into());
    }
    s
}

/// `concbench-results/run-<time>.json` in the current directory.
fn default_json_path(started_at: &str) -> PathBuf {
    let stamp: String = started_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from("concbench-results").join(format!("run-{stamp}.json"))
}
