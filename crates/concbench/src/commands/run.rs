//! `concbench run`: select variants, measure each in a fresh worker process through the harness,
//! summarise, judge, render, write the result document.

use crate::args::{Pin, RunArgs};
use crate::progress::Progress;
use anyhow::{Context, Result};
use concbench_analysis::{build_entry, verdicts};
use concbench_core::{Experiment, Outcome, ResultDoc, Tool, SCHEMA_ID};
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
        settings: settings(&args, quick),
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
            options: BTreeMap::new(),
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

/// The variants `--only` and `--quick` select.
fn select(args: &RunArgs, quick: bool) -> Result<Vec<Variant>> {
    let selected = concbench_experiments::select(&args.only)?;
    Ok(selected
        .into_iter()
        .filter(|(_, e)| !quick || e.in_quick())
        .collect())
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

fn settings(args: &RunArgs, quick: bool) -> BTreeMap<String, serde_json::Value> {
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
