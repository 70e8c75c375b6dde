//! Scenarios A and B's shared measurement: C keep-alive connections in a closed loop against a
//! design — concbench's own or an article's system ([`Target`]) — measured at steady state.
//!
//! Setup starts the server once, connects the clients and warms the server up in windows from
//! the first request until the steady-state criterion holds or its cap passes
//! ([`super::warmup`]); the series is the warm-up's record, handed to the first round. Each round
//! (one sample) is then a window on the warm server; an article's system keeps its server for
//! [`ROUNDS_PER_SERVER`] rounds of a full run (`Experiment::rounds_per_setup`), so its rounds
//! span several server starts.
//!
//! Per round: requests/s (the value); latency — minimum, median, 99th percentile and maximum from
//! each request's intended send time; the server tree's CPU time and context switches per request
//! (from `/proc`, before and after the window); its PSS under load (read halfway through the
//! window) and per connection (less the idle tree's from setup); the connections that got no
//! response at all; whether its server levelled and when; for a JVM, its JIT's share of a CPU,
//! compilations and GC pauses during the window. The first round of each start of an article's
//! system also drives it in an open loop at 50% and 90% of the rate it levelled at, and records
//! the 99th percentile of latency from each request's scheduled time (coordinated omission
//! corrected, as wrk2 and oha).

use super::common::{self, Sizes};
use super::runtime::{Activity, RuntimeWatch};
use super::sweep_point::Point;
use super::target::{Running, Target};
use super::warmup::{self, Schedule};
use anyhow::{Context, Result};
use concbench_core::{
    Host, Meta, Params, Placement, Plan, RunContext, RunMode, RunOutput, SampleTimer, Staged,
    Stages, Support, Warmup,
};
use concbench_load::{Connections, LoadReport, Rate};
use concbench_measure::tree;
use concbench_server::{Design, Handler};
use std::collections::BTreeMap;
use std::time::Duration;

/// Rounds an article system's server serves in a full run before a fresh one is started (and
/// warmed): a verdict's six rounds span two server starts, its adaptive rounds more. Why three:
/// a Netty server takes 10-25 s to level here, a round about 2 s; two starts in six rounds keep
/// what a restart changes in the interval at a cost the run's budget allows.
pub const ROUNDS_PER_SERVER: usize = 3;

/// The open loop's rates, as shares of the rate the server levelled at.
pub const OPEN_LOOP_SHARES: [(f64, &str); 2] = [(0.5, "open50"), (0.9, "open90")];

pub struct Steady {
    meta: &'static Meta,
    target: Target,
    blocking: Option<Duration>,
    /// The crossover sweep's point, which also sets the CPU per request, the pool's size, the
    /// params and the quick subset; `None` for scenarios A and B.
    point: Option<Point>,
    runtime_version: Option<String>,
}

/// What `setup` prepared: the running server, the connected clients, the warm-up.
pub struct State {
    server: Running,
    load: Connections,
    sizes: Sizes,
    idle_pss_kib: u64,
    warnings: Vec<String>,
    watch: RuntimeWatch,
    schedule: Schedule,
    warmup: Warmup,
    /// Rounds measured on this server.
    rounds: usize,
}

impl Steady {
    pub fn new(meta: &'static Meta, target: Target, blocking: Option<Duration>) -> Stages<Self> {
        Stages::new(Self {
            meta,
            target,
            blocking,
            point: None,
            runtime_version: None,
        })
    }

    /// A point of the crossover sweep: scenario A's measurement with the point's work per
    /// request and pool.
    pub fn sweep(meta: &'static Meta, target: Target, point: Point) -> Stages<Self> {
        Stages::new(Self {
            meta,
            target,
            blocking: point.blocking(),
            point: Some(point),
            runtime_version: None,
        })
    }

    /// The pool's size the server starts with.
    fn workers(&self) -> usize {
        self.point
            .map_or(concbench_server::DEFAULT_WORKERS, |p| p.workers())
    }
}

/// The scenario's sizes for `target`: concbench's designs as the mode says, article systems with
/// one-second windows (their rounds are few and each one a window on a warm server).
fn sizes(target: Target, ctx: &RunContext) -> Sizes {
    let s = common::sizes(ctx);
    match target {
        Target::Design(_) => s,
        Target::System(_) => Sizes {
            window: warmup::schedule(target, ctx, s.connections).window,
            ..s
        },
    }
}

impl Staged for Steady {
    type State = State;

    fn meta(&self) -> &Meta {
        self.meta
    }

    fn params(&self) -> Params {
        let p = self
            .target
            .params()
            .with("connections", common::KEEPALIVE_CONNECTIONS as u64);
        if let Some(point) = self.point {
            return point.params(p);
        }
        match self.blocking {
            Some(d) => p.with("blocking_ms", d.as_millis() as u64),
            None => p,
        }
    }

    fn placement(&self) -> Placement {
        Placement::CrossCpu
    }

    fn build_ahead(&self, say: &mut dyn FnMut(&str)) -> anyhow::Result<()> {
        self.target.build_ahead(say)
    }

    fn in_quick(&self) -> bool {
        if let Some(point) = self.point {
            return point.in_quick();
        }
        match self.target {
            Target::Design(d) => {
                let scenario = if self.blocking.is_some() {
                    common::Scenario::Blocking
                } else {
                    common::Scenario::KeepAlive
                };
                common::in_quick(scenario, d)
            }
            // The articles' systems start a runtime (a JVM takes a second or more): full runs.
            Target::System(_) => false,
        }
    }

    fn supported(&self, host: &Host) -> Support {
        self.target
            .supported(host, common::KEEPALIVE_CONNECTIONS as u64)
    }

    /// One window per round; the rounds are the replicates.
    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    /// An article system's server, warmed to steady state, serves several rounds of a full run;
    /// concbench's designs level in a second and start afresh every round.
    fn rounds_per_setup(&self, mode: RunMode) -> usize {
        match (self.target, mode) {
            (Target::System(_), RunMode::Full) => ROUNDS_PER_SERVER,
            _ => 1,
        }
    }

    /// A failed step drops what the earlier ones started (the server's `Drop` stops it).
    fn setup(&mut self, ctx: &RunContext) -> Result<State> {
        let sizes = sizes(self.target, ctx);
        let (connections, cap) = common::fit_descriptors(sizes.connections);
        let handler = Handler {
            blocking: self.blocking,
            cpu: self.point.and_then(|p| p.cpu()),
            allow_crash: false,
        };
        let (server, note) = self.target.start(ctx, handler, self.workers())?;
        self.runtime_version = server.runtime_version().map(str::to_string);
        let idle_pss_kib = tree::tree_pss_kib(server.pid());
        let mut load = Connections::open(common::load_config(server.addr(), ctx, connections))
            .context("connecting the clients")?;
        let mut watch = RuntimeWatch::new(server.pid(), server.is_jvm(), server.jvm_logs());
        let schedule = warmup::schedule(self.target, ctx, connections);
        let warmup = warmup::warm_up(&mut load, &mut watch, &schedule, ctx)
            .with_context(|| format!("warming {} up", self.target))?;
        Ok(State {
            server,
            load,
            sizes: Sizes {
                connections,
                ..sizes
            },
            idle_pss_kib,
            warnings: cap.into_iter().chain(note).collect(),
            watch,
            schedule,
            warmup,
            rounds: 0,
        })
    }

    fn run(
        &mut self,
        st: &mut State,
        ctx: &RunContext,
        _iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        ctx.cancel.check()?;
        let first = st.rounds == 0;
        st.rounds += 1;
        // The articles' systems only: the S2 table's response times. A pool design never answers
        // the connections it starves, so its drain would wait out its whole timeout.
        let open = if first && matches!(self.target, Target::System(_)) {
            open_loop(st, ctx)?
        } else {
            Vec::new()
        };
        // The runtime's activity from here on is the measured window's.
        st.watch.window(1.0);
        let (report, server, empty, pss) = measured_window(st, timer)?;
        let activity = st.watch.window(report.duration_s.max(1e-9));
        let mut out = RunOutput {
            value: Some(report.requests_per_second),
            operations: Some(report.requests),
            extra_usage: Some(server),
            warmup: first.then(|| st.warmup.clone()),
            ..Default::default()
        };
        let per_req = report.requests.max(1) as f64;
        let established = st.load.connected().max(1) as f64;
        out = common::load_metrics(out, &report)
            .metric(
                "server_cpu_us_per_req",
                (server.user_ns + server.sys_ns) / per_req / 1e3,
            )
            .metric("server_user_us_per_req", server.user_ns / per_req / 1e3)
            .metric("server_sys_us_per_req", server.sys_ns / per_req / 1e3)
            .metric(
                "server_switches_per_req",
                (server.voluntary_switches + server.involuntary_switches) / per_req,
            )
            .metric("server_pss_kib", pss as f64)
            .metric(
                "server_pss_kib_per_conn",
                pss.saturating_sub(st.idle_pss_kib) as f64 / established,
            )
            .metric("connections_established", established)
            .metric("connections_unserved", report.connections_unserved as f64)
            .metric("server_cpus", common::cpus(ctx).1.len() as f64);
        out = steady_metrics(out, &st.warmup);
        out = runtime_metrics(out, &activity);
        for (name, value) in open {
            out = out.metric(&name, value);
        }
        out.warnings = st.warnings.clone();
        out.warnings.extend(st.warmup.not_steady.clone());
        if empty > 0 {
            out.warnings.push(format!(
                "{empty} window(s) of {} ms completed no request at all and were measured again \
                 (the server or the client got no CPU for that long: other work on the machine)",
                st.sizes.window.as_millis()
            ));
        }
        out.warnings.extend(common::load_warnings(&report));
        out.warnings
            .extend(starvation(self.target, &report, st.sizes.connections));
        if let Some(d) = self.blocking {
            let (ceiling, w) = littles_law(self.target, self.workers(), st.sizes.connections, d);
            out = out.metric("littles_law_ceiling_rps", ceiling);
            out.warnings.push(w);
        }
        if self.target == Target::Design(Design::IoUring) {
            let fell_back = st.server.fell_back();
            out = out.metric("io_uring_fallback", f64::from(u8::from(fell_back)));
        }
        Ok(out)
    }

    fn info(&self) -> BTreeMap<String, String> {
        concbench_probes::runtime_info(self.runtime_version.as_deref())
    }

    fn teardown(&mut self, st: State, _ctx: &RunContext) -> Result<()> {
        // Closing the clients first, then the server: a design's tree is killed, an article's
        // system must exit cleanly at the end of its input.
        let State { server, load, .. } = st;
        drop(load);
        server.stop()
    }
}

/// Whether the server levelled (1 or 0) and after how long, on every round of its life: a guard
/// withholds every check reading a server that did not.
fn steady_metrics(out: RunOutput, w: &Warmup) -> RunOutput {
    let out = out.metric("steady", f64::from(u8::from(w.steady())));
    match w.steady_after_s {
        Some(s) => out.metric("time_to_steady_s", s),
        None => out,
    }
}

/// The runtime's activity over the measured window: the JIT's share of a CPU (the guard's
/// reading), compilations and GC pauses.
fn runtime_metrics(mut out: RunOutput, a: &Activity) -> RunOutput {
    for (name, v) in [
        ("jit_cpu_share", a.jit_share),
        ("jit_compilations", a.compilations.map(|n| n as f64)),
        ("gc_pauses", a.gc_pauses.map(|n| n as f64)),
        ("gc_pause_ms", a.gc_pause_ms),
    ] {
        if let Some(v) = v {
            out = out.metric(name, v);
        }
    }
    out
}

/// How long the open loop may wait for the closed loop's requests in flight to be answered (a
/// blocked event loop works off 1000 of them at 200 a second).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
/// Responses an open-loop window should hold for its 99th percentile (the third largest of 300):
/// its window grows, up to [`OPEN_WINDOW_MAX`], until the rate times the window reaches this. A
/// blocked Netty loop at half its 200 req/s needs 3 s for them.
const OPEN_MIN_RESPONSES: f64 = 300.0;
const OPEN_WINDOW_MAX: Duration = Duration::from_secs(3);

/// The open loop at each share of the rate the server levelled at: its corrected 99th
/// percentile and median of latency, and the rate achieved, as metrics `{name}_p99_us`,
/// `{name}_p50_us`, `{name}_rps`. Nothing when the warm-up has no rate to take shares of.
fn open_loop(st: &mut State, ctx: &RunContext) -> Result<Vec<(String, f64)>> {
    let Some(level) = warmup::steady_rate(&st.warmup, st.schedule.criterion.k) else {
        return Ok(Vec::new());
    };
    st.load.drain(DRAIN_TIMEOUT)?;
    let mut out = Vec::new();
    for (share, name) in OPEN_LOOP_SHARES {
        ctx.cancel.check()?;
        let rate = level * share;
        if rate <= 0.0 {
            continue;
        }
        let window = st
            .sizes
            .window
            .max(Duration::from_secs_f64(OPEN_MIN_RESPONSES / rate))
            .min(OPEN_WINDOW_MAX);
        let r = st.load.run_at(
            st.sizes.sample_warmup,
            window,
            Some(Rate {
                per_second: rate,
                poisson: false,
            }),
        )?;
        out.push((format!("{name}_p99_us"), r.latency_corrected.p99_us));
        out.push((format!("{name}_p50_us"), r.latency_corrected.p50_us));
        out.push((format!("{name}_rps"), r.requests_per_second));
        // What the open loop left in flight is answered before the closed loop measures.
        st.load.drain(DRAIN_TIMEOUT)?;
    }
    Ok(out)
}

/// Windows one sample may take when a window completes no request at all.
const WINDOW_ATTEMPTS: usize = 3;

/// One measured window on the load: the load report, the server tree's usage over it, and
/// how many windows before it completed nothing. A window that completes nothing is a stretch
/// in which the server or the client got no CPU (a loaded machine; on two CPUs, another
/// program's real-time thread), not the design's throughput: it is measured again, at most
/// [`WINDOW_ATTEMPTS`] windows in all, and then the sample fails with the reason rather than
/// report 0 req/s. Quick and full windows hold thousands of requests, so only the short smoke
/// windows come near this.
fn measured_window(
    st: &mut State,
    timer: &mut dyn SampleTimer,
) -> Result<(LoadReport, concbench_core::Usage, usize, u64)> {
    let pid = st.server.pid();
    let halfway = st.sizes.sample_warmup + st.sizes.window / 2;
    let (report, (usage, pss), empty) = until_measured(|| {
        let before = tree::tree_usage(pid);
        timer.restart();
        // The PSS under load: read halfway through the window, by a thread of its own.
        let (report, pss) = std::thread::scope(|scope| {
            let reader = scope.spawn(move || {
                std::thread::sleep(halfway);
                tree::tree_pss_kib(pid)
            });
            let report = st.load.run_window(st.sizes.sample_warmup, st.sizes.window);
            (report, reader.join().unwrap_or(0))
        });
        let report = report?;
        timer.stop();
        Ok((report, (tree::tree_usage(pid).since(&before), pss)))
    })?;
    Ok((report, usage, empty, pss))
}

/// Take `window` until one completes a request, at most [`WINDOW_ATTEMPTS`] times; with the
/// windows that completed nothing counted.
fn until_measured<T>(
    mut window: impl FnMut() -> Result<(LoadReport, T)>,
) -> Result<(LoadReport, T, usize)> {
    let mut empty = 0;
    loop {
        let (report, extra) = window()?;
        if report.shortfall(1).is_none() || empty + 1 == WINDOW_ATTEMPTS {
            common::require_measured(&report)?;
            return Ok((report, extra, empty));
        }
        empty += 1;
    }
}

fn starvation(target: Target, r: &LoadReport, connections: usize) -> Option<String> {
    let why = match target {
        Target::Design(d) if d.is_pool() => {
            "each worker of a pool serves one keep-alive connection until it closes, the rest \
             wait in the accept queue (starvation)"
        }
        _ => {
            "their requests queued behind blocked workers or event loops for longer than the \
             sample window"
        }
    };
    (r.connections_unserved > 0).then(|| {
        format!(
            "{} of {} connections got no response at all: {why}; it is the design, not a fault",
            r.connections_unserved, connections
        )
    })
}

/// Little's law for the blocking scenario: at most N requests wait in the blocking call at once
/// (N = connections, or the design's pool of `workers` or loop count), so throughput <= N /
/// delay.
pub fn littles_law(
    target: Target,
    workers: usize,
    connections: usize,
    delay: Duration,
) -> (f64, String) {
    let concurrency = target.blocking_concurrency(workers);
    let n = concurrency.map_or(connections, |k| k.min(connections));
    let ceiling = n as f64 / delay.as_secs_f64();
    let who = match (concurrency, target) {
        (Some(1), _) => "1 blocked loop".to_string(),
        (Some(k), Target::System(s))
            if s.name() == "netty" && s != super::system::System::NettyBusinessPool =>
        {
            format!("{k} blocked event loops")
        }
        (Some(k), _) => format!("{k} workers"),
        (None, _) => format!("{connections} connections"),
    };
    let text = format!(
        "Little's law ceiling: {who} / {} ms = {:.0} req/s (at most that many requests wait in \
         the blocking call at once)",
        delay.as_millis(),
        ceiling
    );
    (ceiling, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_load::LoadConfig;

    /// Load against a port nobody listens on: every window is empty.
    fn empty_window() -> LoadConfig {
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let mut cfg = LoadConfig::new(closed);
        cfg.duration = Duration::from_millis(20);
        cfg
    }

    #[test]
    fn empty_windows_are_taken_again_then_the_sample_fails_with_the_reason() {
        let mut calls = 0;
        let err = until_measured(|| {
            calls += 1;
            Ok((concbench_load::run(empty_window())?, ()))
        })
        .unwrap_err();
        assert_eq!(calls, WINDOW_ATTEMPTS);
        assert!(format!("{err:#}").contains("measured nothing"), "{err:#}");
    }

    /// A thread answering one keep-alive connection's requests with empty 200s (a thread, not
    /// a forked server: a fork would inherit the other tests' sockets).
    fn answering_thread() -> std::net::SocketAddr {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut buf = [0u8; 1024];
            while matches!(conn.read(&mut buf), Ok(n) if n > 0) {
                let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
                if conn.write_all(ok).is_err() {
                    break;
                }
            }
        });
        addr
    }

    #[test]
    fn a_measured_window_after_an_empty_one_is_kept_and_the_empty_one_counted() {
        // A budget rather than a window, so the server's CPU share cannot empty it.
        let mut served = LoadConfig::new(answering_thread());
        served.max_requests = Some(10);
        served.duration = Duration::from_secs(30);
        let mut calls = 0;
        let (report, (), empty) = until_measured(|| {
            calls += 1;
            let cfg = if calls == 1 {
                empty_window()
            } else {
                served.clone()
            };
            Ok((concbench_load::run(cfg)?, ()))
        })
        .unwrap();
        assert_eq!((calls, empty, report.requests), (2, 1, 10));
    }
}
