//! `concbench advise`: which model costs least for a described workload, from this machine's
//! stored measurements (the latest run, or `--from FILE`) — and whether its model was checked
//! on this machine: the crossover sweep in `--from FILE`, else the newest in the history, with
//! how far its predictions were from the measurements.

use crate::args::AdviseArgs;
use crate::db;
use crate::stdout::out;
use anyhow::Result;
use concbench_analysis::advice::{advise as bill_models, Advice, Workload};
use concbench_analysis::sweep;
use concbench_core::crossover::Crossover;
use concbench_core::UsageError;
use concbench_report::advice::advice_text;
use concbench_report::crossover::checked_text;
use concbench_store::{Location, RunRow};
use std::process::ExitCode;

pub fn advise(args: AdviseArgs) -> Result<ExitCode> {
    let workload = workload(&args)?;
    let (advice, source, from_file) = match &args.from {
        Some(path) => {
            let doc = crate::document::load(path, "--from")?;
            let sweep = sweep::check(&doc).map(|c| (c, path.display().to_string()));
            (
                bill_models(&doc, workload),
                path.display().to_string(),
                sweep,
            )
        }
        None => {
            let (advice, source) = from_history(args.db.as_deref(), workload)?;
            (advice, source, None)
        }
    };
    // With --from, the history is a second place to look, not a requirement: a damaged or
    // unreachable one leaves the line at "never checked" rather than failing the advice.
    let checked = match (from_file, &args.from) {
        (Some(found), _) => Some(found),
        (None, Some(_)) => checked_in_history(args.db.as_deref()).ok().flatten(),
        (None, None) => checked_in_history(args.db.as_deref())?,
    };
    out!("{}", advice_text(&advice, &source));
    out!(
        "\n{}\n",
        checked_text(checked.as_ref().map(|(c, s)| (c, s.as_str())))
    );
    Ok(ExitCode::SUCCESS)
}

/// The newest crossover sweep of this machine in the history (`concbench crossover`, or a run
/// of `server.crossover`), with where it was found; `None` without one (or without a history).
fn checked_in_history(db: Option<&str>) -> Result<Option<(Crossover, String)>> {
    let (path, store) = db::open_existing(db)?;
    let Some(mut store) = store else {
        return Ok(None);
    };
    let here = concbench_measure::host::this_machine();
    let runs = store.runs()?;
    let candidates = runs.iter().filter(|r| {
        let of_sweep = r.command == "crossover" || r.only.iter().any(|o| o == sweep::SWEEP_ID);
        of_sweep && r.machine_id.as_deref().is_none_or(|m| m == here)
    });
    for run in candidates {
        let Some(doc) = store.load(run.id)? else {
            continue;
        };
        if let Some(c) = sweep::check(&doc) {
            let source = format!(
                "run {} (`{}` started {}) of {path}",
                run.id, run.command, run.started_at
            );
            return Ok(Some((c, source)));
        }
    }
    Ok(None)
}

/// The advice from the newest stored run that has every measurement it needs (a later
/// `replicate` of one seed must not hide an earlier full `run`), else from the newest run that
/// gives an answer, else from the newest run (its bills say what is missing). Says which run,
/// and why when it is not the newest.
fn from_history(db: Option<&str>, workload: Workload) -> Result<(Advice, String)> {
    let (path, mut store) = db::open_existing(db)?;
    let runs = match &mut store {
        Some(store) => store.runs()?,
        None => Vec::new(),
    };
    let (Some(mut store), Some(newest)) = (store, runs.first()) else {
        return Err(UsageError::new(format!(
            "advise: no run stored in {path} yet; run `concbench run` first, or pass --from FILE.json"
        ))
        .into());
    };
    // The newest run that gives an answer, else the newest run: used when none is complete.
    let mut fallback: Option<(&RunRow, Advice)> = None;
    for run in &runs {
        let Some(doc) = store.load(run.id)? else {
            continue;
        };
        let advice = bill_models(&doc, workload);
        if advice.bills.iter().all(|b| b.missing.is_empty()) {
            return Ok((
                advice,
                describe(run, newest, "has every measurement", &path),
            ));
        }
        let better = match &fallback {
            None => true,
            Some((_, earlier)) => earlier.best.is_none() && advice.best.is_some(),
        };
        if better {
            fallback = Some((run, advice));
        }
    }
    let (run, advice) = fallback
        .ok_or_else(|| anyhow::anyhow!("advise: the runs listed in {path} could not be read"))?;
    let why = match advice.best {
        Some(_) => "gives an answer",
        None => "was stored",
    };
    Ok((advice, describe(run, newest, why, &path)))
}

/// "run 3 (`run` of 2026-...) of PATH", and why it was chosen over newer runs.
fn describe(run: &RunRow, newest: &RunRow, chosen_for: &str, path: &Location) -> String {
    let mut s = format!(
        "run {} (`{}` started {}) of {}",
        run.id, run.command, run.started_at, path
    );
    if run.id != newest.id {
        s += &format!(
            "; the newest stored run that {chosen_for} (newer runs, up to run {}, lack some)",
            newest.id
        );
    }
    s
}

/// The workload from the flags, each checked with a message naming it.
fn workload(args: &AdviseArgs) -> Result<Workload> {
    let bad = |flag: &str, fix: &str| -> anyhow::Error {
        UsageError::new(format!("{flag}: {fix}")).into()
    };
    if !(args.units_per_sec.is_finite() && args.units_per_sec > 0.0) {
        return Err(bad(
            "--units-per-sec",
            "give a rate above 0 (no units, no cost to compare), e.g. --units-per-sec 1000",
        ));
    }
    if !(0.0..1.0).contains(&args.blocked) {
        return Err(bad(
            "--blocked",
            "give the share of time blocked as a number from 0 up to (not including) 1, e.g. --blocked 0.9",
        ));
    }
    if !(args.cpu_us.is_finite() && args.cpu_us >= 0.0) {
        return Err(bad(
            "--cpu-us",
            "give microseconds of CPU per unit >= 0, e.g. --cpu-us 50",
        ));
    }
    Ok(Workload {
        units_per_sec: args.units_per_sec,
        blocked_share: args.blocked,
        cpu_us: args.cpu_us,
        isolation: args.isolation,
    })
}
