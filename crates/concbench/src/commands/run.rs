//! `concbench run`, stage by stage: the arguments as a request (variants chosen with `--only` and
//! `--where` by the session's rule, [`concbench_session::selection`]); the outputs checked before
//! measuring ([`crate::output`]); the rig measures and the session judges ([`crate::rig`]); the
//! claims judged again over this machine's stored runs unless `--alone` (`pooling`); the document,
//! the pages and the history written; the answer on the screen ([`crate::screen`]).

use crate::args::RunArgs;
use crate::output::{Outputs, Pages};
use crate::rig::{self, Builtin};
use crate::screen;
use crate::stdout::errln;
use anyhow::Result;
use concbench_core::{ResultDoc, UsageError, LABELS_SETTING};
use concbench_session::{selection, Chosen, RunRequest};
use concbench_store::Store;
use std::collections::BTreeMap;
use std::process::ExitCode;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    // First: with --cpus, everything below (the host's facts, the CPUs to plan on) is read in
    // the limited group.
    let limited = super::limit::enter(&args.cpu)?;
    let (request, variants) = requested(&args)?;
    let mut outputs = Outputs::of_measuring("run", &args.measure, pages(&args))?;
    let mut doc = rig::measure(variants, &args.measure, request, args.hold_awake)?;
    super::limit::finish(limited, &mut doc);
    // A run of the crossover sweep is checked against advise's model as `crossover` checks it.
    doc.crossover = concbench_analysis::sweep::analyse(&doc);
    if !args.alone {
        judge_over_history(&mut doc, outputs.history());
    }
    let written = outputs.write(&doc);
    screen::show(&doc, args.measure.all, written)
}

/// The run request `--only`, `--where` and the measuring flags ask for, and its variants.
fn requested(args: &RunArgs) -> Result<(RunRequest, Vec<Chosen>)> {
    let mut request = rig::request(&args.measure);
    let selected = selection::select(&Builtin, &args.only, &args.where_params, &request)?;
    let variants = selection::prepare(selected, &request);
    if variants.is_empty() && !args.where_params.is_empty() {
        return Err(UsageError::new(
            "--where: the variants with these params are not in the --quick subset (sweep points \
             outside --quick need a full run); run without --quick",
        )
        .into());
    }
    request.settings = settings(args);
    Ok((request, variants))
}

/// The pages `--markdown` and `--html` ask for.
fn pages(args: &RunArgs) -> Pages<'_> {
    Pages {
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
    }
}

/// Judge the claims again over this run and the compatible stored runs of this machine. The
/// run's own verdicts stand whatever happens here: the history is an addition.
fn judge_over_history(doc: &mut ResultDoc, store: Option<&mut Store>) {
    let Some(store) = store else {
        return;
    };
    if let Err(e) = super::pooling::attach(doc, store, None, super::pooling::MAX_POOLED_RUNS) {
        errln!("concbench: warning: verdicts over this host's history left out: {e:#}");
    }
}

/// What `run` records beside the harness settings.
fn settings(args: &RunArgs) -> BTreeMap<String, serde_json::Value> {
    let mut s = BTreeMap::new();
    s.insert("only".into(), args.only.clone().into());
    if !args.where_params.is_empty() {
        let wanted: Vec<String> = args
            .where_params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        s.insert("where".into(), wanted.into());
    }
    if !args.labels.is_empty() {
        let labels: serde_json::Map<String, serde_json::Value> = args
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), v.clone().into()))
            .collect();
        s.insert(LABELS_SETTING.into(), labels.into());
    }
    s
}
