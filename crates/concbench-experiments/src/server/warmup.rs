//! A server's warm-up, recorded: closed-loop windows on its connections from the first request
//! until the steady-state criterion holds (`concbench_stats::holds`) or the cap passes, each
//! window's requests/s and what the runtime did meanwhile ([`RuntimeWatch`]).
//!
//! The criterion's numbers, by target and mode (docs/METHODOLOGY.md, "Steady state"):
//! * the articles' systems: one-second windows (half a second with `--quick`), the last three
//!   against the three before within 10%, the JIT under 1% of a CPU over the last three, every
//!   connection answered once; a cap of 60 s;
//! * concbench's own designs (compiled ahead, no JIT): the scenario's window (0.3 s; 0.1 s with
//!   `--quick`), the last two against the two before, 50 responses at least (a blocked loop's
//!   half second); a cap of 10 s (3 s with `--quick`);
//! * smoke runs: two windows a side and a cap of a few seconds (they prove the path, not a
//!   figure).

use super::runtime::{Activity, RuntimeWatch};
use super::target::Target;
use anyhow::{bail, Result};
use concbench_core::{RunContext, Warmup};
use concbench_load::Connections;
pub use concbench_stats::Window;
use concbench_stats::{first_steady, holds, Criterion, NotLevel};
use std::time::Duration;

/// How one target warms up in this mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub window: Duration,
    pub criterion: Criterion,
}

/// The relative shift (and spread) the criterion allows: on this 2-CPU VM a one-second window
/// of a levelled server moves about 4% (Netty, 2026-11-28), so medians of three move about 3%
/// and their ratio about 4%; 10% is 2.4 of those, and a step smaller than that is left to the
/// rounds' interval.
pub const TOLERANCE: f64 = 0.10;
/// The JIT's share of a CPU that counts as idle over the last windows: a C2 compilation of a
/// hot method takes tens of milliseconds of a compiler thread; 1% of three seconds is 30 ms.
pub const JIT_IDLE: f64 = 0.01;

/// Responses a design's warm-up needs at least: concbench's designs run no JIT and level at once,
/// so this only keeps the rates compared from being a handful of responses each (a loop blocked
/// for 10 ms a request serves 50 in half a second). The articles' systems need every connection
/// answered once (the closed loop's queue has cycled) — and the JIT to be idle.
pub const DESIGN_MIN_RESPONSES: u64 = 50;

/// The schedule of `target` under `ctx`'s mode, for `connections` connections.
pub fn schedule(target: Target, ctx: &RunContext, connections: usize) -> Schedule {
    let window_ms: u64 = match (target, ctx.smoke, ctx.quick) {
        (Target::System(_), true, _) => 300,
        (Target::System(_), false, true) => 500,
        (Target::System(_), false, false) => 1000,
        (Target::Design(_), _, true) => 100,
        (Target::Design(_), _, false) => 300,
    };
    let cap_ms: u64 = match (target, ctx.smoke, ctx.quick) {
        (_, true, _) => 3_000,
        (Target::System(_), _, _) => 60_000,
        (Target::Design(_), _, true) => 3_000,
        (Target::Design(_), _, false) => 10_000,
    };
    Schedule {
        window: Duration::from_millis(window_ms),
        criterion: Criterion {
            k: match (target, ctx.smoke) {
                (Target::System(_), false) => 3,
                _ => 2,
            },
            tolerance: TOLERANCE,
            jit_share_max: JIT_IDLE,
            min_requests: match (target, ctx.smoke) {
                (_, true) => 1,
                (Target::System(_), false) => connections as u64,
                (Target::Design(_), false) => DESIGN_MIN_RESPONSES,
            },
            cap: (cap_ms / window_ms) as usize,
        },
    }
}

impl Schedule {
    /// The criterion in words, as the result records it.
    pub fn describe(&self) -> String {
        let c = &self.criterion;
        format!(
            "windows of {} s; the last {} within {:.0}% of the {} before (and of each other), the \
             JIT under {:.0}% of a CPU over them, {} responses at least; cap {:.0} s",
            self.window.as_secs_f64(),
            c.k,
            c.tolerance * 100.0,
            c.k,
            c.jit_share_max * 100.0,
            c.min_requests,
            c.cap as f64 * self.window.as_secs_f64()
        )
    }
}

/// Load the server in windows from the first request until the criterion holds or the cap; the
/// series is the warm-up's record. A server that answered nothing at all by the cap is an
/// error (it never served), one that answered but never levelled an outcome (`steady_after_s`
/// is `None`).
pub fn warm_up(
    load: &mut Connections,
    watch: &mut RuntimeWatch,
    schedule: &Schedule,
    ctx: &RunContext,
) -> Result<Warmup> {
    let mut series: Vec<Window> = Vec::new();
    let mut activity: Vec<Activity> = Vec::new();
    let mut why = None;
    while series.len() < schedule.criterion.cap.max(1) {
        ctx.cancel.check()?;
        let report = load.run_window(Duration::ZERO, schedule.window)?;
        let a = watch.window(report.duration_s.max(1e-9));
        series.push(Window {
            rate: report.requests_per_second,
            requests: report.requests,
            jit_share: a.jit_share,
        });
        activity.push(a);
        match holds(&series, &schedule.criterion) {
            Ok(()) => {
                why = None;
                break;
            }
            Err(e) => why = Some(e),
        }
    }
    if series.iter().all(|w| w.requests == 0) {
        bail!(
            "the server answered no request in {:.0} s of warming up",
            series.len() as f64 * schedule.window.as_secs_f64()
        );
    }
    let steady = why.is_none().then_some(series.len());
    Ok(record(&series, &activity, schedule, steady, why))
}

/// The record of `series`: steady after its first `steady` windows, or not (`why`).
fn record(
    series: &[Window],
    activity: &[Activity],
    schedule: &Schedule,
    steady: Option<usize>,
    why: Option<NotLevel>,
) -> Warmup {
    let window_s = schedule.window.as_secs_f64();
    let each =
        |f: fn(&Activity) -> Option<f64>| -> Vec<f64> { activity.iter().map_while(f).collect() };
    let each_n =
        |f: fn(&Activity) -> Option<u64>| -> Vec<u64> { activity.iter().map_while(f).collect() };
    Warmup {
        window_s,
        rates: series.iter().map(|w| w.rate).collect(),
        jit_share: each(|a| a.jit_share),
        jit_compilations: each_n(|a| a.compilations),
        gc_pauses: each_n(|a| a.gc_pauses),
        gc_pause_ms: each(|a| a.gc_pause_ms),
        steady_after_s: steady.map(|n| n as f64 * window_s),
        criterion: schedule.describe(),
        not_steady: why.filter(|_| steady.is_none()).map(|why| {
            format!(
                "not steady after {:.0} s: {why}",
                series.len() as f64 * window_s
            )
        }),
    }
}

/// A whole warm-up series for the record, not cut at steady state: `target` started as a run
/// starts it (on the server CPUs of `ctx`, the load generator on its first CPU, the scenario's
/// connections), loaded in the schedule's windows from the first request for `span`, and where
/// the criterion first held in it. `concbench warmup` prints it; bench/server_warmup.py runs it
/// for the articles' servers.
pub fn record_series(
    target: Target,
    blocking: Option<Duration>,
    span: Duration,
    ctx: &RunContext,
    on_window: &mut dyn FnMut(usize, &Window, &Activity),
) -> Result<Warmup> {
    let (connections, _) = super::common::fit_descriptors(super::common::KEEPALIVE_CONNECTIONS);
    let handler = concbench_server::Handler {
        blocking,
        ..Default::default()
    };
    let (server, _) = target.start(ctx, handler, concbench_server::DEFAULT_WORKERS)?;
    let mut load = Connections::open(super::common::load_config(server.addr(), ctx, connections))?;
    let mut watch = RuntimeWatch::new(server.pid(), server.is_jvm(), server.jvm_logs());
    let schedule = schedule(target, ctx, connections);
    let windows = (span.as_secs_f64() / schedule.window.as_secs_f64()).ceil() as usize;
    let mut series = Vec::new();
    let mut activity = Vec::new();
    for i in 0..windows.max(1) {
        ctx.cancel.check()?;
        let report = load.run_window(Duration::ZERO, schedule.window)?;
        let a = watch.window(report.duration_s.max(1e-9));
        let w = Window {
            rate: report.requests_per_second,
            requests: report.requests,
            jit_share: a.jit_share,
        };
        on_window(i, &w, &a);
        series.push(w);
        activity.push(a);
    }
    drop(load);
    server.stop()?;
    let (steady, why) = match first_steady(&series, &schedule.criterion) {
        Ok(n) => (Some(n), None),
        Err(why) => (None, Some(why)),
    };
    Ok(record(&series, &activity, &schedule, steady, why))
}

/// The rate the server levelled at: the median of the windows the criterion last compared.
pub fn steady_rate(w: &Warmup, k: usize) -> Option<f64> {
    let tail: Vec<f64> = w.rates.iter().rev().take(k.max(1)).copied().collect();
    (!tail.is_empty()).then(|| concbench_stats::median(&tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_that_levels_records_when_and_one_that_does_not_says_why() {
        let s = Schedule {
            window: Duration::from_secs(1),
            criterion: Criterion {
                k: 3,
                tolerance: TOLERANCE,
                jit_share_max: JIT_IDLE,
                min_requests: 1000,
                cap: 60,
            },
        };
        let w = |rate: f64| Window {
            rate,
            requests: rate as u64,
            jit_share: Some(0.0),
        };
        let a = Activity {
            jit_share: Some(0.0),
            compilations: Some(2),
            gc_pauses: Some(1),
            gc_pause_ms: Some(0.5),
        };
        let levelled = record(&[w(9e4); 6], &[a; 6], &s, Some(6), None);
        assert_eq!(levelled.steady_after_s, Some(6.0));
        assert_eq!(levelled.jit_compilations, vec![2; 6]);
        assert_eq!(steady_rate(&levelled, 3), Some(9e4));
        assert!(
            levelled.criterion.contains("cap 60 s"),
            "{}",
            levelled.criterion
        );
        let never = record(
            &[w(9e4); 60],
            &[a; 60],
            &s,
            None,
            Some(NotLevel::Spread { ratio: 1.5 }),
        );
        assert!(!never.steady());
        assert_eq!(
            never.not_steady.as_deref(),
            Some("not steady after 60 s: the last windows spread 50%")
        );
        // A whole series records where it first levelled, past which it went on.
        let later = record(&[w(9e4); 60], &[a; 60], &s, Some(6), None);
        assert_eq!((later.steady_after_s, later.rates.len()), (Some(6.0), 60));
    }

    #[test]
    fn systems_wait_up_to_a_minute_and_designs_less() {
        let ctx = |quick, smoke| RunContext {
            quick,
            smoke,
            placement: concbench_core::Placement::Unpinned,
            cpus: vec![],
            cancel: concbench_core::CancelToken::new(),
            host: Default::default(),
            scratch_dir: std::env::temp_dir(),
            options: Default::default(),
        };
        let netty = Target::System(super::super::system::System::Netty);
        let epoll = Target::Design(concbench_server::Design::Epoll);
        let full = schedule(netty, &ctx(false, false), 1000);
        assert_eq!(full.window, Duration::from_secs(1));
        assert_eq!(full.criterion.cap, 60);
        assert_eq!(full.criterion.min_requests, 1000);
        let quick = schedule(netty, &ctx(true, false), 1000);
        assert_eq!(
            quick.criterion.cap as f64 * quick.window.as_secs_f64(),
            60.0
        );
        let design = schedule(epoll, &ctx(false, false), 1000);
        assert_eq!(design.window, Duration::from_millis(300));
        assert_eq!(design.criterion.cap, 33);
        assert_eq!((design.criterion.k, design.criterion.min_requests), (2, 50));
        assert_eq!(full.criterion.k, 3);
    }
}
