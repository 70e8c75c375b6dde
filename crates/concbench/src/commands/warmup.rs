//! `concbench warmup SERVER`: a server's warm-up from its first request, as a run records it but
//! not cut at steady state — requests/s per window for `--seconds`, its JIT's share of a CPU,
//! compilations and GC pauses (a JVM's), and where the steady-state criterion of a run first held.
//!
//! The server runs where a run puts it (every allowed CPU but the load generator's, two at most),
//! with 1000 keep-alive connections from the load generator's CPU; nothing is left running.

use crate::args::WarmupArgs;
use crate::stdout::{out, outln};
use anyhow::{Context, Result};
use concbench_core::{CancelToken, Placement, RunContext, UsageError};
use concbench_experiments::server::runtime::Activity;
use concbench_experiments::server::system::System;
use concbench_experiments::server::target::Target;
use concbench_experiments::server::warmup::{record_series, Window};
use concbench_server::Design;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub fn warmup(args: WarmupArgs) -> Result<ExitCode> {
    let target = target(&args)?;
    let host = concbench_measure::host::collect();
    let cpus = concbench_measure::cpus::choose_for(Placement::CrossCpu, None, &host.cpus_allowed)
        .map_err(|why| UsageError::new(format!("concbench warmup needs two CPUs: {why}")))?;
    let scratch = tempfile::Builder::new()
        .prefix("concbench-warmup-")
        .tempdir()
        .context("creating a scratch directory")?;
    let cancel = concbench_measure::signals::install_cancel_handler()?;
    let ctx = RunContext {
        quick: false,
        smoke: false,
        placement: Placement::CrossCpu,
        cpus,
        cancel: cancel.clone(),
        host: Arc::new(host),
        scratch_dir: scratch.path().to_path_buf(),
        options: Default::default(),
    };
    let blocking = (args.blocking_ms > 0).then(|| Duration::from_millis(args.blocking_ms));
    outln!(
        "{} {}: requests/s per window from the first request, 1000 keep-alive connections",
        target,
        blocking.map_or("without blocking".to_string(), |d| format!(
            "with a {} ms blocking call",
            d.as_millis()
        ))
    );
    outln!(
        "{:>6}  {:>10}  {:>7}  {:>9}  {:>12}",
        "at s",
        "req/s",
        "JIT",
        "compiled",
        "GC pauses"
    );
    let mut show = |i: usize, w: &Window, a: &Activity| {
        let end = (i + 1) as f64 * window_s(&target);
        outln!("{}", line(end, w, a));
    };
    let series = record_series(
        target,
        blocking,
        Duration::from_secs(args.seconds),
        &ctx,
        &mut show,
    )?;
    match (series.steady_after_s, &series.not_steady) {
        (Some(s), _) => outln!("levelled after {s:.0} s ({})", series.criterion),
        (None, why) => outln!(
            "{} ({})",
            why.as_deref().unwrap_or("not steady"),
            series.criterion
        ),
    }
    if let Some(path) = &args.json {
        crate::output::write_output("--json", path, &serde_json::to_string_pretty(&series)?)?;
    }
    out!("");
    Ok(ExitCode::SUCCESS)
}

/// One window: its end, rate, and what the runtime did ("-" where it has no such thing).
fn line(end_s: f64, w: &Window, a: &Activity) -> String {
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    format!(
        "{:>6.1}  {:>10.0}  {:>7}  {:>9}  {:>12}",
        end_s,
        w.rate,
        or_dash(a.jit_share.map(|s| format!("{:.1}%", s * 100.0))),
        or_dash(a.compilations.map(|n| n.to_string())),
        or_dash(
            a.gc_pauses
                .zip(a.gc_pause_ms)
                .map(|(n, ms)| format!("{n} ({ms:.1} ms)"))
        ),
    )
}

/// The schedule's window for a full run (what the series is cut into).
fn window_s(target: &Target) -> f64 {
    let ctx_full = RunContext {
        quick: false,
        smoke: false,
        placement: Placement::CrossCpu,
        cpus: Vec::new(),
        cancel: CancelToken::new(),
        host: Default::default(),
        scratch_dir: std::env::temp_dir(),
        options: Default::default(),
    };
    concbench_experiments::server::warmup::schedule(*target, &ctx_full, 1000)
        .window
        .as_secs_f64()
}

/// The server `args` name: an article's system (Netty at the reading `--event-loops` picks), or
/// one of concbench's designs.
fn target(args: &WarmupArgs) -> Result<Target> {
    if let Some(s) = System::find(&args.server, args.event_loops) {
        return Ok(Target::System(s));
    }
    if args.event_loops.is_some() && System::find(&args.server, None).is_some() {
        return Err(UsageError::new(format!(
            "--event-loops {}: {} runs with 4 (the article's printed code) or 2 (its prose)",
            args.event_loops.unwrap_or_default(),
            args.server
        ))
        .into());
    }
    if let Some(d) = Design::from_name(&args.server) {
        return Ok(Target::Design(d));
    }
    let mut systems: Vec<&str> = System::ALL.iter().map(|s| s.name()).collect();
    systems.dedup();
    let designs: Vec<&str> = Design::ALL.iter().map(|d| d.name()).collect();
    Err(UsageError::new(format!(
        "unknown server '{}'; choose an article's system ({}) or one of concbench's designs ({})",
        args.server,
        systems.join(", "),
        designs.join(", ")
    ))
    .into())
}
