//! `concbench push FILE...`: store result documents written elsewhere in the history — how a
//! machine without network to the fleet's PostgreSQL contributes (copy its files, push them
//! from a machine with access). A document already stored (same machine, same start) is not
//! stored twice, so pushing a folder again is harmless.

use crate::args::PushArgs;
use crate::db;
use crate::stdout::outln;
use anyhow::{Context, Result};
use concbench_core::ResultDoc;
use concbench_store::RunRow;
use std::process::ExitCode;

/// The command recorded for a pushed run (`history` shows it).
const COMMAND: &str = "push";

pub fn push(args: PushArgs) -> Result<ExitCode> {
    // Read every file first: a bad one is refused before anything is stored.
    let docs: Vec<(String, ResultDoc)> = args
        .files
        .iter()
        .map(|f| Ok((f.display().to_string(), crate::document::load(f, "push")?)))
        .collect::<Result<_>>()?;
    let mut store = db::open(args.db.as_deref())?;
    let listing = format!("reading the runs stored in {}", store.path());
    let mut stored = store.runs().context(listing.clone())?;
    for (file, doc) in docs {
        if let Some(run) = stored.iter().find(|r| same_run(r, &doc)) {
            outln!("{file}: already stored as run {}", run.id);
            continue;
        }
        let id = store
            .save(&doc, COMMAND)
            .with_context(|| format!("storing {file} in {}", store.path()))?;
        outln!("{file}: stored as run {id} in {}", store.path());
        stored = store.runs().context(listing.clone())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The same measurement: one machine cannot start two runs at the same instant.
fn same_run(row: &RunRow, doc: &ResultDoc) -> bool {
    row.started_at == doc.started_at
        && row.hostname == doc.host.hostname
        && row.machine_id == doc.host.machine_id
}
