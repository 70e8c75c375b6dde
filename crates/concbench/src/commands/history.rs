//! `concbench history`: the runs stored in the history database, newest first.

use crate::args::HistoryArgs;
use crate::db;
use crate::stdout::outln;
use anyhow::Result;
use concbench_report::terminal::table;
use std::process::ExitCode;

const HEADER: [&str; 8] = [
    "run", "started", "command", "only", "host", "cpu", "results", "notes",
];

pub fn history(args: HistoryArgs) -> Result<ExitCode> {
    let (path, mut store) = db::open_existing(args.db.as_deref())?;
    let runs = match &mut store {
        Some(store) => store.runs()?,
        None => Vec::new(),
    };
    if runs.is_empty() {
        outln!(
            "No runs stored in {} yet: `concbench run` stores every run there.",
            path
        );
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 8]> = runs
        .iter()
        .map(|r| {
            let mut notes = Vec::new();
            if r.quick {
                notes.push("quick".to_string());
            }
            if r.interrupted {
                notes.push("interrupted".to_string());
            }
            if r.failure_count > 0 {
                notes.push(format!("{} failed", r.failure_count));
            }
            [
                r.id.to_string(),
                r.started_at.clone(),
                r.command.clone(),
                only(&r.only),
                r.hostname.clone(),
                r.cpu_model.clone(),
                r.result_count.to_string(),
                notes.join(", "),
            ]
        })
        .collect();
    outln!("Runs in {} (newest first):", path);
    outln!("{}", table(HEADER, &rows, None));
    outln!("Compare two runs: `concbench compare RUN_A RUN_B` (B/A per result).");
    Ok(ExitCode::SUCCESS)
}

/// A run's `--only` as typed (`create,switch.pipe`), or "all".
fn only(selectors: &[String]) -> String {
    if selectors.is_empty() {
        "all".into()
    } else {
        selectors.join(",")
    }
}
