//! `concbench compare A B`: B/A per matching result, from two result files or stored run ids.

use crate::args::CompareArgs;
use crate::db;
use anyhow::Result;
use concbench_analysis::comparison::compare_runs;
use concbench_core::{ResultDoc, UsageError};
use concbench_report::compare::comparison_text;
use std::path::Path;
use std::process::ExitCode;

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    let (a, a_label) = resolve(&args.a, "A", args.db.as_deref())?;
    let (b, b_label) = resolve(&args.b, "B", args.db.as_deref())?;
    print!(
        "{}",
        comparison_text(&compare_runs(&a, &b), &a_label, &b_label)
    );
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
