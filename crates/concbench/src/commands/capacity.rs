//! `concbench capacity`: how many idle units of each model fit here and which limit stops each
//! (see `concbench_capacity`). Checks its flags and output paths first, takes the run lock (a
//! model holding thousands of tasks disturbs any measurement beside it), then measures model by
//! model, writes the result document (`capacity` and, with `--cpus`, `container`) and the pages
//! asked for, and prints its own short summary. Ctrl-C stops it at the next step: what was
//! measured is written, nothing is left (exit 130).

use super::limit;
use crate::args::CapacityArgs;
use crate::output::{Outputs, Pages};
use crate::run_lock;
use crate::screen;
use crate::stdout::errln;
use anyhow::{Context, Result};
use concbench_capacity::{budget, model::Model, Options};
use concbench_core::{ResultDoc, UsageError};
use concbench_measure::{clock, host, signals};
use concbench_probes::toolchain::Search;

use std::process::ExitCode;

pub fn capacity(args: CapacityArgs) -> Result<ExitCode> {
    let models = models(&args.models)?;
    let asked = match &args.memory_budget {
        Some(text) => budget::parse(text).map_err(UsageError::new)?,
        None => budget::Asked::default(),
    };
    let cpu = limit::requested(&args.cpu, "capacity")?;
    let pages = Pages {
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
    };
    // Capacity keeps no history: its figures are not the runs `compare` and the pooling read.
    let mut outputs = Outputs::ready("capacity", args.json.as_deref(), pages, None)?;
    let lock = run_lock::RunLock::acquire(
        &run_lock::lock_path(),
        run_lock::RunOwner::this_process()?,
        args.allow_concurrent,
    )?;
    let cancel = signals::install_cancel_handler().context("installing the Ctrl-C handler")?;
    let scratch = tempfile::Builder::new()
        .prefix("concbench-")
        .tempdir()
        .context("creating a scratch directory")?;
    concbench_sys::owner::claim(scratch.path())?;
    let started_at = clock::wall_now_rfc3339();
    let began = clock::now();
    let opts = Options {
        models,
        budget: asked,
        budget_given: args.memory_budget.is_some(),
        max_units: args.max_units,
        cpu,
        own: limit::own_holder()?,
        search: Search::from_env(),
        cancel,
        scratch: scratch.path().to_path_buf(),
    };
    let outcome = concbench_capacity::run(&opts, &mut |s| errln!("concbench: {s}"))?;
    drop(lock);
    if let Some(build) = concbench_measure::build_id::this_executable() {
        concbench_core::set_build(build);
    }
    let mut doc = ResultDoc::new(host::collect(), started_at);
    doc.duration_s = began.elapsed().as_secs_f64();
    doc.settings = settings(&args);
    doc.interrupted = outcome.interrupted;
    doc.capacity = Some(outcome.capacity);
    doc.container = outcome.container;
    let written = outputs.write(&doc);
    screen::show(&doc, args.all, written)
}

/// `--models`, checked: every model by default.
fn models(names: &[String]) -> Result<Vec<Model>> {
    if names.is_empty() {
        return Ok(Model::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| {
            Model::from_key(n).ok_or_else(|| {
                let known: Vec<&str> = Model::ALL.iter().map(|m| m.key()).collect();
                UsageError::new(format!(
                    "--models: no model '{n}'; the models are {}",
                    known.join(", ")
                ))
                .into()
            })
        })
        .collect()
}

/// The command line, as the document records it.
fn settings(args: &CapacityArgs) -> std::collections::BTreeMap<String, serde_json::Value> {
    let mut s = std::collections::BTreeMap::new();
    s.insert("command".into(), "capacity".into());
    s.insert("models".into(), args.models.clone().into());
    if let Some(b) = &args.memory_budget {
        s.insert("memory_budget".into(), b.clone().into());
    }
    if let Some(n) = args.max_units {
        s.insert("max_units".into(), n.into());
    }
    s
}
