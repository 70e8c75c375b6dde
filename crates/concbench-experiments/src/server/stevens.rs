//! `server.stevens` — scenario C, Stevens's measurement (UNP vol. 1, ch. 30): server CPU time
//! per connection when clients make one connection per request and read 4000 bytes.
//!
//! As in Stevens's servers, the CPU time is the whole server's over its whole life, children
//! included: each sample starts a fresh server, runs the connections (5 clients at a time, as
//! many as Stevens's client children), then stops it with SIGTERM; the server's handler ends and
//! reaps its workers, and reaping the server gives its tree's `RUSAGE_CHILDREN` at microsecond
//! resolution. Like Stevens, the iterative server's CPU per connection is subtracted — measured
//! in the same run, interleaved with the design's samples — so what remains is what the design
//! costs beyond accepting, reading, writing and closing.

use super::common;
use anyhow::{Context, Result};
use concbench_core::{
    Experiment, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer,
};
use concbench_load::LoadReport;
use concbench_measure::usage;
use concbench_server::{Design, Handler};
use std::time::Duration;

static META: Meta = Meta {
    id: "server.stevens",
    family: "server",
    title: "Scenario C (Stevens): server CPU per connection, 4000 bytes each",
    op: "one connection: connect, ask for 4000 bytes, read them, close",
    unit: "us",
    expected_switches_per_op: None,
};

/// Stevens's figures are for 5,000 connections of 4000 bytes.
pub const CONNECTIONS: u64 = 5000;
pub const BYTES: usize = 4000;
/// Concurrent clients (Stevens ran his client as 5 children).
const CLIENTS: usize = 5;

pub struct Stevens {
    design: Design,
}

impl Stevens {
    pub fn new(design: Design) -> Self {
        Self { design }
    }
}

/// Connections per sample: Stevens's 5,000, or fewer in quick and smoke runs.
fn connections(ctx: &RunContext) -> u64 {
    if ctx.smoke {
        40
    } else if ctx.quick {
        200
    } else {
        CONNECTIONS
    }
}

/// One sample: a fresh `design` server serves `n` connections and is stopped; returns the
/// server's CPU time (user, sys) in ns and the load report.
fn serve_batch(
    design: Design,
    ctx: &RunContext,
    n: u64,
    timer: &mut dyn SampleTimer,
) -> Result<(f64, f64, LoadReport, Option<String>)> {
    let (server, note) = common::start(
        design,
        ctx,
        Handler::default(),
        concbench_server::DEFAULT_WORKERS,
    )?;
    let mut cfg = common::stevens_config(server.addr(), ctx, CLIENTS, BYTES);
    cfg.max_requests = Some(n);
    cfg.duration = Duration::from_secs(300);
    timer.restart();
    let report = concbench_load::run(cfg)?;
    let before = usage::children_usage();
    server.stop().context("stopping the server")?;
    let cpu = usage::children_usage().since(&before);
    timer.stop();
    common::require_measured(&report)?;
    Ok((cpu.user_ns, cpu.sys_ns, report, note))
}

impl Experiment for Stevens {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new()
            .with("design", self.design.name())
            .with("connections", CONNECTIONS)
            .with("bytes", BYTES as u64)
    }

    fn placement(&self) -> Placement {
        Placement::CrossCpu
    }

    fn plan(&self, ctx: &RunContext) -> Plan {
        Plan::Fixed(connections(ctx))
    }

    /// One batch (and its baseline) per round; the rounds are the replicates.
    fn max_repetitions(&self, _ctx: &RunContext) -> Option<usize> {
        Some(1)
    }

    fn in_quick(&self) -> bool {
        common::in_quick(common::Scenario::Stevens, self.design)
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        ctx.cancel.check()?;
        let (user, sys, report, note) = serve_batch(self.design, ctx, iterations, timer)?;
        let n = iterations as f64;
        let mut out = RunOutput {
            value: Some((user + sys) / n / 1e3),
            ..Default::default()
        };
        out = common::load_metrics(out, &report)
            .metric("server_user_us_per_conn", user / n / 1e3)
            .metric("server_sys_us_per_conn", sys / n / 1e3)
            .metric("connections_per_s", report.requests_per_second);
        out.warnings = common::load_warnings(&report);
        out.warnings.extend(note);
        if iterations < CONNECTIONS {
            out.warnings.push(format!(
                "measured on batches of {iterations} connections (not Stevens's {CONNECTIONS}) and \
                 compared per connection; run without --quick for the full batch"
            ));
        }
        Ok(out)
    }

    fn run_overhead(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        Some(
            serve_batch(Design::Iterative, ctx, iterations, timer).map(|(user, sys, _, _)| {
                RunOutput {
                    value: Some((user + sys) / iterations as f64 / 1e3),
                    ..Default::default()
                }
            }),
        )
    }

    fn overhead_method(&self) -> Option<&'static str> {
        Some(
            "the iterative server's CPU per connection under the same load, measured \
             interleaved (Stevens subtracted it from every design)",
        )
    }
}
