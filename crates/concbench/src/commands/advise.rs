//! `concbench advise`: which model costs least for a described workload, from this machine's
//! stored measurements (the latest run, or `--from FILE`).

use crate::args::AdviseArgs;
use crate::db;
use crate::stdout::out;
use anyhow::Result;
use concbench_analysis::advice::{advise as bill_models, Advice, Workload};
use concbench_core::UsageError;
use concbench_report::advice::advice_text;
use concbench_store::{Location, RunRow};
use std::process::ExitCode;

pub fn advise(args: AdviseArgs) -> Result<ExitCode> {
    let workload = workload(&args)?;
    let (advice, source) = match &args.from {
        Some(path) => (
            bill_models(&crate::document::load(path, "--from")?, workload),
            path.display().to_string(),
        ),
        None => from_history(args.db.as_deref(), workload)?,
    };
    out!("{}", advice_text(&advice, &source));
    Ok(ExitCode::SUCCESS)
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
