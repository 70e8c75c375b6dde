//! `concbench compare A B [C ...]`: B/A per matching result for each later run, and every run's
//! verdicts side by side (a verdict that changed is flagged), from result files or stored run ids.

use crate::args::CompareArgs;
use crate::db;
use crate::stdout::{out, outln};
use anyhow::Result;
use concbench_analysis::comparison::{compare_runs, verdicts_side_by_side};
use concbench_core::{ResultDoc, UsageError};
use concbench_report::compare::{comparison_text, verdicts_text};
use std::path::Path;
use std::process::ExitCode;

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    let (a, a_label) = resolve(&args.a, "A", args.db.as_deref())?;
    let mut others = Vec::new();
    for (i, arg) in args.b.iter().enumerate() {
        let side = if args.b.len() == 1 {
            "B".to_string()
        } else {
            format!("B{}", i + 1)
        };
        others.push((resolve(arg, &side, args.db.as_deref())?, side));
    }
    for ((b, b_label), side) in &others {
        if others.len() > 1 {
            outln!("== {side} against A");
        }
        out!(
            "{}",
            comparison_text(&compare_runs(&a, b), &a_label, b_label)
        );
    }
    let docs: Vec<&ResultDoc> = std::iter::once(&a)
        .chain(others.iter().map(|((d, _), _)| d))
        .collect();
    let names: Vec<String> = std::iter::once("A".to_string())
        .chain(others.iter().map(|(_, side)| side.clone()))
        .collect();
    outln!("\nVerdicts, run by run:");
    out!("{}", verdicts_text(&verdicts_side_by_side(&docs), &names));
    Ok(ExitCode::SUCCESS)
}

/// A file when one exists at that path; otherwise a stored run id.
fn resolve(arg: &str, side: &str, db: Option<&str>) -> Result<(ResultDoc, String)> {
    let path = Path::new(arg);
    if path.exists() {
        let doc = super::report::load(path, &format!("compare {side}"))?;
        let label = format!("{arg} ({}, {})", doc.host.hostname, doc.started_at);
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
    let label = format!("run {id} ({}, {})", doc.host.hostname, doc.started_at);
    Ok((doc, label))
}
