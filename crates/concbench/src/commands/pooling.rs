//! The claims judged over a host's history: the compatible stored runs of this machine are
//! read from the history database and pooled with the run (`run`, unless `--alone`; `report
//! --runs N` without measuring). See `concbench_analysis::verdicts::pool`.

use anyhow::{Context, Result};
use concbench_analysis::verdicts;
use concbench_core::{MachineIdentity, ResultDoc, UsageError};
use concbench_store::{RunRow, Store};
use std::collections::BTreeMap;

/// Runs pooled at most, this one included: the newest compatible ones. Why a window: a host
/// changes (kernel, firmware, neighbours), and twenty runs give the run level nineteen degrees
/// of freedom, past which the t quantile barely narrows the interval.
pub const MAX_POOLED_RUNS: usize = 20;

/// Judge `doc`'s claims over it and the newest compatible stored runs of its machine (at most
/// `limit` runs in all), skipping the stored run `skip` (the document itself, when it is
/// stored), and record the result in `doc.history` (none without a compatible stored run);
/// label checks at the margin by their typical half-width over those runs, and widen the
/// results' intervals by the host's run-to-run drift (`verdicts::drift`).
pub fn attach(
    doc: &mut ResultDoc,
    store: &mut Store,
    skip: Option<i64>,
    limit: usize,
) -> Result<()> {
    let (others, excluded) = compatible_runs(store, doc, skip, limit.saturating_sub(1))?;
    let refs: Vec<&ResultDoc> = others.iter().collect();
    verdicts::over_history(doc, &refs, excluded);
    Ok(())
}

/// The newest stored runs of `doc`'s machine compatible with it (at most `limit`), and the
/// others of its machine left out, counted by reason ("3 interrupted"). `compare` reads the
/// run-to-run variation from the same runs.
pub(crate) fn compatible_runs(
    store: &mut Store,
    doc: &ResultDoc,
    skip: Option<i64>,
    limit: usize,
) -> Result<(Vec<ResultDoc>, Vec<String>)> {
    let mut kept = Vec::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let quick = doc.mode().is_quick();
    // Newest first; the listing's columns rule most runs out before any document is parsed.
    for row in store.runs().context("reading the stored runs")? {
        if kept.len() >= limit {
            break;
        }
        if Some(row.id) == skip || !is_run(&row) || !same_machine(&row, doc) {
            continue;
        }
        if row.interrupted {
            *reasons.entry("interrupted".into()).or_default() += 1;
            continue;
        }
        if row.quick != quick {
            let class = if row.quick { "quick" } else { "full" };
            *reasons
                .entry(format!("another mode class ({class})"))
                .or_default() += 1;
            continue;
        }
        let Some(other) = store.load(row.id)? else {
            continue;
        };
        match verdicts::compatible(doc, &other) {
            Ok(()) => kept.push(other),
            Err(why) => *reasons.entry(why.to_string()).or_default() += 1,
        }
    }
    let excluded = reasons
        .into_iter()
        .map(|(why, n)| format!("{n} {why}"))
        .collect();
    Ok((kept, excluded))
}

/// A document of `concbench run`: measured here (`run`) or elsewhere and stored with `push`;
/// `replicate` documents measure other things under other rules.
fn is_run(row: &RunRow) -> bool {
    row.command == "run" || row.command == "push"
}

/// The listing's machine columns against the document's host, by the rule the full check
/// ([`verdicts::compatible()`]) applies too.
fn same_machine(row: &RunRow, doc: &ResultDoc) -> bool {
    let listed = MachineIdentity {
        machine_id: row.machine_id.as_deref(),
        hostname: &row.hostname,
        cpu_model: &row.cpu_model,
    };
    listed.same_as(&doc.host.identity())
}

/// The newest stored `run` of the store, re-judged with this build's rules and judged over the
/// last `n` compatible runs of its machine (itself included).
pub fn latest_over(store: &mut Store, n: usize) -> Result<ResultDoc> {
    if n == 0 {
        return Err(UsageError::new("report --runs: N must be at least 1").into());
    }
    let Some(row) = store.runs()?.into_iter().find(is_run) else {
        return Err(UsageError::new(format!(
            "report --runs: {} holds no run of `concbench run` yet; measure one first",
            store.path().display()
        ))
        .into());
    };
    let mut doc = store
        .load(row.id)?
        .with_context(|| format!("stored run {} vanished while reading", row.id))?;
    // The samples are the record; verdicts are a reading of them (as `report --rejudge`).
    doc.verdicts = verdicts::judge(&doc);
    attach(&mut doc, store, Some(row.id), n)?;
    Ok(doc)
}
