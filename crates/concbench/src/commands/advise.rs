//! `concbench advise`: which model costs least for a described workload, from this machine's
//! stored measurements (the latest run, or `--from FILE`).

use crate::args::AdviseArgs;
use crate::db;
use anyhow::Result;
use concbench_analysis::advice::{advise as bill_models, Workload};
use concbench_core::UsageError;
use concbench_report::advice::advice_text;
use std::process::ExitCode;

pub fn advise(args: AdviseArgs) -> Result<ExitCode> {
    let workload = workload(&args)?;
    let (doc, source) = match &args.from {
        Some(path) => (
            super::report::load(path, "--from")?,
            path.display().to_string(),
        ),
        None => {
            let (path, store) = db::open_existing(args.db.as_deref())?;
            let latest = match store {
                Some(mut store) => store.latest()?,
                None => None,
            };
            let (id, doc) = latest.ok_or_else(|| {
                UsageError::new(format!(
                    "advise: no run stored in {path} yet; run `concbench run` first, or pass \
                     --from FILE.json"
                ))
            })?;
            (doc, format!("run {id} of {path}"))
        }
    };
    print!("{}", advice_text(&bill_models(&doc, workload), &source));
    Ok(ExitCode::SUCCESS)
}

/// The workload from the flags, each checked with a message naming it.
fn workload(args: &AdviseArgs) -> Result<Workload> {
    let bad = |flag: &str, fix: &str| -> anyhow::Error {
        UsageError::new(format!("{flag}: {fix}")).into()
    };
    if !(args.units_per_sec.is_finite() && args.units_per_sec >= 0.0) {
        return Err(bad(
            "--units-per-sec",
            "give a rate >= 0, e.g. --units-per-sec 1000",
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
