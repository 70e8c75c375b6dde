//! `concbench run`: select variants with `--only` and `--where` (the session's rule:
//! [`concbench_session::selection`]), measure them (see [`crate::session`]), write the result
//! document (and the pages asked for), store it in the history, and print the answer (every table
//! with `--all`). Unless `--alone`, the claims are also judged over this run and the compatible
//! stored runs of this machine (`pooling`).

use super::preflight;
use crate::args::RunArgs;
use crate::session::{self, Builtin};
use crate::stdout::errln;
use anyhow::Result;
use concbench_core::{UsageError, HOLD_AWAKE_SETTING, LABELS_SETTING};
use concbench_session::selection;
use std::collections::BTreeMap;
use std::process::ExitCode;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    // First: with --cpus, everything below (the host's facts, the CPUs to plan on) is read in
    // the limited group.
    let limited = super::limit::enter(&args.cpu)?;
    let mut request = session::request(&args.measure);
    let selected = selection::select(&Builtin, &args.only, &args.where_params, &request)?;
    let variants = selection::prepare(selected, &request);
    if variants.is_empty() && !args.where_params.is_empty() {
        return Err(UsageError::new(
            "--where: the variants with these params are not in the --quick subset (sweep points \
             outside --quick need a full run); run without --quick",
        )
        .into());
    }
    let pages = session::Pages {
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
    };
    let mut store = preflight::ready_to_measure(&args.measure, pages)?;
    request.settings = settings(&args);
    let held = hold_awake(&args, &mut request.settings);
    let measured = session::measure(variants, &args.measure, request);
    // Released as soon as the measuring ends (also when it failed or was interrupted).
    drop(held);
    let mut doc = measured?;
    super::limit::finish(limited, &mut doc);
    // A run of the crossover sweep is checked against advise's model as `crossover` checks it.
    doc.crossover = concbench_analysis::sweep::analyse(&doc);
    if !args.alone {
        if let Some(store) = store.as_mut() {
            // The run's own verdicts stand whatever happens here: the history is an addition.
            if let Err(e) =
                super::pooling::attach(&mut doc, store, None, super::pooling::MAX_POOLED_RUNS)
            {
                errln!("concbench: warning: verdicts over this host's history left out: {e:#}");
            }
        }
    }
    session::conclude(&doc, &args.measure, "run", pages, store.as_mut())
}

/// With `--hold-awake`, hold the CPUs out of deep idle and record how (the key
/// [`HOLD_AWAKE_SETTING`] of the document's settings); the guard releases them when dropped.
fn hold_awake(
    args: &RunArgs,
    settings: &mut BTreeMap<String, serde_json::Value>,
) -> Option<concbench_measure::awake::Held> {
    if !args.hold_awake {
        return None;
    }
    let cpus = concbench_sys::allowed_cpus().unwrap_or_default();
    let (guard, how) = concbench_measure::awake::hold_for_run(&Default::default(), &cpus);
    errln!("concbench: --hold-awake: {}", how.note);
    settings.insert(
        HOLD_AWAKE_SETTING.into(),
        serde_json::json!({
            "held": how.method.is_some(),
            "method": how.method.map(|m| m.as_str()),
            "note": how.note,
        }),
    );
    guard
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
