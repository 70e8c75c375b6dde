//! `server.crash` — scenario X: one worker of the server faults for real (SIGSEGV) mid-run.
//!
//! Clients make one connection per request (Stevens's protocol, so every design serves every
//! client: no pool starvation hides the effect). A third of the way in, the load generator
//! sends the crash request on a connection of its own; whichever unit reads it writes to an
//! inaccessible page. A process per worker loses that worker (the prefork parents fork a
//! replacement); a thread or an event loop takes the whole server with it. Per sample: requests
//! lost (in flight on connections the crash dropped: the value), connections reset, connects
//! refused, whether serving went on, and the recovery time (crash to the first answer of a
//! request sent after it).

use super::common;
use anyhow::{Context, Result};
use concbench_core::{
    Experiment, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer,
};
use concbench_load::{Fault, LoadReport};
use concbench_server::{Design, Handler};
use std::time::Duration;

static META: Meta = Meta {
    id: "server.crash",
    family: "server",
    title: "Scenario X: one worker gets a real SIGSEGV mid-run",
    op: "one run in which one worker crashes (value: requests lost)",
    unit: "requests",
    expected_switches_per_op: None,
};

pub struct Crash {
    design: Design,
}

impl Crash {
    pub fn new(design: Design) -> Self {
        Self { design }
    }
}

/// What one crash did.
#[derive(Debug, Clone)]
pub struct CrashOutcome {
    pub report: LoadReport,
    /// The server's master process still ran after the crash.
    pub server_alive: bool,
    pub note: Option<String>,
}

impl CrashOutcome {
    pub fn serving_continued(&self) -> bool {
        self.report
            .fault
            .as_ref()
            .is_some_and(|f| f.serving_continued)
    }
    pub fn crash_observed(&self) -> bool {
        self.report
            .fault
            .as_ref()
            .is_some_and(|f| f.observed_at_s.is_some() && !f.answered)
    }
}

/// Run `design` under per-request load for `duration` with a crash request at a third of it.
pub fn crash_once(
    design: Design,
    ctx: &RunContext,
    clients: usize,
    duration: Duration,
) -> Result<CrashOutcome> {
    let handler = Handler {
        allow_crash: true,
        ..Handler::default()
    };
    let (mut server, note) =
        common::start(design, ctx, handler, concbench_server::DEFAULT_WORKERS)?;
    let mut cfg = common::stevens_config(server.addr(), ctx, clients, 100);
    cfg.duration = duration;
    cfg.fault = Some(Fault {
        at: duration / 3,
        request: b"crash\n".to_vec(),
    });
    let report = concbench_load::run(cfg).context("running the load")?;
    let server_alive = server.alive();
    drop(server);
    Ok(CrashOutcome {
        report,
        server_alive,
        note,
    })
}

fn sizes(ctx: &RunContext) -> (usize, Duration) {
    if ctx.smoke {
        (5, Duration::from_millis(150))
    } else if ctx.quick {
        (20, Duration::from_millis(250))
    } else {
        // Half a second: the crash is one event; no verdict reads it, and a full run measures it
        // in every design.
        (20, Duration::from_millis(500))
    }
}

impl Experiment for Crash {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new().with("design", self.design.name())
    }

    fn placement(&self) -> Placement {
        Placement::CrossCpu
    }

    fn in_quick(&self) -> bool {
        super::common::in_quick(super::common::Scenario::Crash, self.design)
    }

    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        _iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        ctx.cancel.check()?;
        let (clients, duration) = sizes(ctx);
        let o = crash_once(self.design, ctx, clients, duration)?;
        timer.stop();
        let r = &o.report;
        // Requests are answered until the crash, a third of the way in: none at all means
        // the server never served, and "0 requests lost" would be a zero, not a result.
        common::require_measured(r)?;
        let err = |k: &str| r.errors.get(k).copied().unwrap_or(0) as f64;
        let mut out = RunOutput {
            value: Some(r.requests_lost as f64),
            operations: Some(r.requests + r.requests_lost),
            ..Default::default()
        };
        out = common::load_metrics(out, r)
            .metric(
                "serving_continued",
                f64::from(u8::from(o.serving_continued())),
            )
            .metric("server_alive", f64::from(u8::from(o.server_alive)))
            .metric("connections_reset", err("reset") + err("server_closed"))
            .metric("connects_refused", err("connect_refused"))
            .metric("unanswered_at_end", r.unanswered_at_end as f64)
            .metric(
                "completed_after_crash",
                r.fault.as_ref().map_or(0, |f| f.completed_after) as f64,
            );
        if let Some(ms) = r.fault.as_ref().and_then(|f| f.recovery_ms) {
            out = out.metric("recovery_ms", ms);
        }
        out.warnings.extend(o.note.clone());
        if !o.crash_observed() {
            out.warnings.push(
                "the crash request did not end its connection: no worker crashed, so this run \
                 says nothing about crashes"
                    .into(),
            );
        }
        Ok(out)
    }
}
