//! `concbench compare A B [C ...]`: B/A per matching result for each later run, and every run's
//! verdicts side by side (a verdict that changed is flagged), from result files or stored run ids.
//! Quiet by default (the changed rows, then a count of the others); `--json` and `--markdown`
//! for machines and review comments; `--fail-if` makes it a CI gate: exit 1 on a breach.

use crate::args::CompareArgs;
use crate::db;
use crate::stdout::{errln, out};
use anyhow::Result;
use concbench_analysis::comparison::{
    compare_runs_with, verdicts_side_by_side, CompareSet, Compared,
};
use concbench_analysis::variation::RunVariation;
use concbench_core::{ResultDoc, ResultEntry, UsageError};
use concbench_report::compare::{compare_markdown, compare_text, gate_lines};
use concbench_report::compare_json::compare_json;
use std::path::Path;
use std::process::ExitCode;

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    check_outputs(&args)?;
    let (a, a_label) = resolve(&args.a, "A", args.db.as_deref())?;
    let mut others = Vec::new();
    for (i, arg) in args.b.iter().enumerate() {
        let side = if args.b.len() == 1 {
            "B".to_string()
        } else {
            format!("B{}", i + 1)
        };
        let (doc, label) = resolve(arg, &side, args.db.as_deref())?;
        others.push((doc, label, side));
    }
    let mut docs: Vec<ResultDoc> = std::iter::once(a)
        .chain(others.iter().map(|(d, _, _)| d.clone()))
        .collect();
    let selection = restrict(&mut docs, &args)?;
    let (a, later) = docs.split_first().expect("A is always there");
    let all_docs: Vec<&ResultDoc> = docs.iter().collect();
    let variation = run_variation(args.db.as_deref(), &all_docs)?;
    let set = CompareSet {
        a_source: a_label,
        runs: later
            .iter()
            .zip(&others)
            .map(|(b, (_, label, side))| Compared {
                name: side.clone(),
                source: label.clone(),
                comparison: compare_runs_with(a, b, &variation),
            })
            .collect(),
        verdicts: verdicts_side_by_side(&all_docs),
        gates: args.fail_if.clone(),
        selection,
        variation,
    };
    let mut stdout_taken = false;
    for (flag, path, text) in [
        ("--json", &args.json, compare_json(&set)?),
        ("--markdown", &args.markdown, compare_markdown(&set)),
    ] {
        let Some(path) = path else { continue };
        if path.as_os_str() == "-" {
            out!("{text}");
            stdout_taken = true;
        } else {
            crate::output::write_output(flag, path, &text)?;
            errln!("concbench: wrote {}", path.display());
        }
    }
    if !stdout_taken {
        out!("{}", compare_text(&set, args.all));
    }
    for line in gate_lines(&set) {
        errln!("concbench: {line}");
    }
    Ok(if set.breached() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Stored runs the run-to-run variation is read from, at most: as many as the pooled verdicts
/// read.
const HISTORY_RUNS: usize = super::pooling::MAX_POOLED_RUNS;

/// The run-to-run variation the comparisons count: the stored runs of the last compared run's
/// machine, build and mode class (the compared runs themselves left out, so that a real change
/// does not widen its own interval), else the stated floor. A history that cannot be read is
/// said, and the floor counted.
fn run_variation(db: Option<&str>, compared: &[&ResultDoc]) -> Result<RunVariation> {
    let b = compared.last().expect("at least A and B");
    let (_, store) = db::open_existing(db)?;
    let Some(mut store) = store else {
        return Ok(RunVariation::from_history(&[], None));
    };
    let history = match super::pooling::compatible_runs(&mut store, b, None, HISTORY_RUNS) {
        Ok((runs, _)) => runs,
        Err(e) => {
            errln!("concbench: compare: the history could not be read ({e:#}); counting the floor");
            return Ok(RunVariation::from_history(&[], None));
        }
    };
    let history: Vec<&ResultDoc> = history
        .iter()
        .filter(|d| !compared.iter().any(|c| c.started_at == d.started_at))
        .collect();
    if history.is_empty() {
        return Ok(RunVariation::from_history(&[], None));
    }
    let label = format!(
        "{} run(s) of concbench {}, {}",
        history.len(),
        b.tool.version,
        concbench_analysis::verdicts::mode_class(b)
    );
    Ok(RunVariation::from_history(&history, Some(label)))
}

/// Only one output may take stdout.
fn check_outputs(args: &CompareArgs) -> Result<()> {
    let dash = |p: &Option<std::path::PathBuf>| p.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if dash(&args.json) && dash(&args.markdown) {
        return Err(UsageError::new(
            "compare: --json - and --markdown - would both print on stdout; write one to a file",
        )
        .into());
    }
    Ok(())
}

/// Keep, in every document, the results `--only` and `--where` select (the rules of `run`), and
/// the verdicts resting on one of them; the selection as typed (empty when there is none).
/// A selection matching no result of any document is a usage error.
fn restrict(docs: &mut [ResultDoc], args: &CompareArgs) -> Result<String> {
    if args.only.is_empty() && args.where_params.is_empty() {
        return Ok(String::new());
    }
    let keep = |e: &ResultEntry| {
        (args.only.is_empty()
            || args
                .only
                .iter()
                .any(|n| concbench_experiments::name_selects(&e.family, &e.id, n)))
            && e.params.matches(&args.where_params)
    };
    for name in &args.only {
        let known = docs
            .iter()
            .flat_map(|d| &d.results)
            .any(|e| concbench_experiments::name_selects(&e.family, &e.id, name));
        if !known {
            return Err(UsageError::new(format!(
                "compare --only: no result of these runs is in '{name}'; `concbench list` shows \
                 the families and ids"
            ))
            .into());
        }
    }
    if !docs.iter().flat_map(|d| &d.results).any(keep) {
        return Err(UsageError::new(
            "compare --where: no selected result has these params (a run's table shows each \
             result's params; `concbench list ID` lists them)",
        )
        .into());
    }
    for d in docs.iter_mut() {
        d.results.retain(keep);
        let ids: Vec<String> = d.results.iter().map(|e| e.id.clone()).collect();
        d.verdicts
            .retain(|v| v.evidence.iter().any(|id| ids.contains(id)));
    }
    let mut typed = Vec::new();
    if !args.only.is_empty() {
        typed.push(format!("--only {}", args.only.join(",")));
    }
    for (k, v) in &args.where_params {
        typed.push(format!("--where {k}={v}"));
    }
    Ok(typed.join(" "))
}

/// "host, start" and the CPU limit the run was under, if any: runs under different limits
/// measured different machines, and each side says which.
fn run_words(doc: &ResultDoc) -> String {
    let limit = doc
        .host
        .cpu_limit()
        .map(|l| format!(", under {l}"))
        .unwrap_or_default();
    format!("{}, {}{limit}", doc.host.hostname, doc.started_at)
}

/// A file when one exists at that path; otherwise a stored run id.
fn resolve(arg: &str, side: &str, db: Option<&str>) -> Result<(ResultDoc, String)> {
    let path = Path::new(arg);
    if path.exists() {
        let doc = crate::document::load(path, &format!("compare {side}"))?;
        let label = format!("{arg} ({})", run_words(&doc));
        return Ok((doc, label));
    }
    let Ok(id) = arg.parse::<i64>() else {
        return Err(UsageError::new(format!(
            "compare {side}: '{arg}' is neither a file nor a stored run id; pass a result \
             document (FILE.json) or a run number from `concbench history`"
        ))
        .into());
    };
    let (path, store) = db::open_existing(db)?;
    let doc = match store {
        Some(mut store) => store.load(id)?,
        None => None,
    };
    let doc = doc.ok_or_else(|| {
        UsageError::new(format!(
            "compare {side}: no run {id} in {path}; `concbench history` lists the stored runs"
        ))
    })?;
    let label = format!("run {id} ({})", run_words(&doc));
    Ok((doc, label))
}
