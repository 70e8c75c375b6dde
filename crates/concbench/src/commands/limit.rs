//! `--cpus N|all` for `run`: before anything is measured, a control group with the limit is made
//! and concbench moves into it (so the host's facts, every worker, server and probe see the
//! limit); after measuring, each runtime is asked what it sized itself for under it, the
//! throttling is read, both go into the document's `container`, and the group is removed. A
//! machine that does not allow the group refuses the run before it measures (exit 2), saying
//! why and what to do.

use crate::args::{CpuCount, CpuLimitArgs, CpusMode};
use crate::stdout::errln;
use anyhow::{Context, Result};
use concbench_capacity::container::{self, Limited, Mode, Request};
use concbench_capacity::detect;
use concbench_core::{ResultDoc, UsageError};
use concbench_probes::build::Launch;
use concbench_probes::toolchain::Search;

/// How to start concbench's own holder: this program with `__holder`.
pub fn own_holder() -> Result<Launch> {
    Ok(Launch {
        program: std::env::current_exe().context("locating the concbench executable")?,
        args: vec!["__holder".into()],
        ..Launch::default()
    })
}

/// The limit `args` ask for, checked against this process's CPUs, and the words that name it
/// ("concbench run --cpus 1 --cpus-mode cpuset"); `None` without `--cpus`.
pub fn requested(
    args: &CpuLimitArgs,
    command: &str,
) -> Result<Option<(concbench_measure::cgroup::CpuLimit, String)>> {
    let Some(CpuCount(cpus)) = args.cpus else {
        return Ok(None);
    };
    let mode = match args.cpus_mode {
        CpusMode::Quota => Mode::Quota,
        CpusMode::Cpuset => Mode::Cpuset,
    };
    let allowed = concbench_sys::allowed_cpus().context("reading this process's CPUs")?;
    let limit = container::limit_for(&Request { cpus, mode }, &allowed)?;
    let n = cpus.map_or("all".to_string(), |c| c.to_string());
    let set_by = match (cpus, mode) {
        (Some(_), Mode::Cpuset) => format!("concbench {command} --cpus {n} --cpus-mode cpuset"),
        _ => format!("concbench {command} --cpus {n}"),
    };
    Ok(Some((limit, set_by)))
}

/// Make the run's group and move into it, before anything is collected or started.
pub fn enter(args: &CpuLimitArgs) -> Result<Option<Limited>> {
    let Some((limit, set_by)) = requested(args, "run")? else {
        return Ok(None);
    };
    let limited = Limited::enter(limit, set_by)
        .map_err(|r| UsageError::new(container::refusal_message("--cpus", &r)))?;
    errln!("concbench: --cpus: running in {}", limited.cell.describe());
    Ok(Some(limited))
}

/// Ask every runtime what it sized itself for (still inside the group), record the limit and
/// the throttling in `doc`, and remove the group.
pub fn finish(limited: Option<Limited>, doc: &mut ResultDoc) {
    let Some(mut limited) = limited else {
        return;
    };
    let runtimes = if doc.interrupted {
        Vec::new()
    } else {
        ask_runtimes(&limited, doc.host.logical_cpus)
    };
    let record = limited.record(runtimes, doc.host.logical_cpus);
    if let Ok(v) = serde_json::to_value(&record.limit) {
        doc.settings.insert("cpus".into(), v);
    }
    doc.container = Some(record);
    if let Err(e) = limited.cell.remove() {
        errln!("concbench: warning: removing the --cpus group: {e}");
    }
}

fn ask_runtimes(limited: &Limited, host_cpus: usize) -> Vec<concbench_core::container::Detected> {
    errln!("concbench: --cpus: asking each runtime what it sizes itself for");
    let (Ok(own), Ok(scratch), Ok(cancel)) = (
        own_holder(),
        tempfile::Builder::new().prefix("concbench-").tempdir(),
        concbench_measure::signals::install_cancel_handler(),
    ) else {
        return Vec::new();
    };
    let limit = container::limit_of(&limited.cell, "");
    let mut asking = detect::Asking {
        own: &own,
        search: &Search::from_env(),
        // This process is in the group already: what it starts is too.
        procs: &[],
        cancel: &cancel,
        scratch: scratch.path(),
        say: &mut |s| errln!("concbench: {s}"),
    };
    detect::all(&mut asking, &limit, host_cpus)
}
