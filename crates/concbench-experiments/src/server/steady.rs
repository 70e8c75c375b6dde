//! Scenarios A and B's shared measurement: C keep-alive connections in a closed loop against a
//! design — concbench's own or an article's system ([`Target`]) — in samples of a fixed window
//! on the same connections (established once in setup).
//!
//! Per sample: requests/s (the value), latency percentiles, the server tree's CPU time and
//! context switches per request (from `/proc`, taken before and after the window), its PSS per
//! connection (measured loaded, minus the idle tree's PSS from setup), and the connections that
//! got no response at all (a pool of 15 under keep-alive serves 15 connections; the other 985
//! wait in the accept queue: starvation).

use super::common::{self, Sizes};
use super::target::{Running, Target};
use anyhow::{Context, Result};
use concbench_core::{
    Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Staged, Stages,
    Support,
};
use concbench_load::{LoadReport, Session};
use concbench_measure::tree;
use concbench_server::{Design, Handler};
use std::collections::BTreeMap;
use std::time::Duration;

/// The untimed warm-up of an article system in a full run: long enough for a JVM's JIT to have
/// compiled the request path (tens of thousands of requests: C2 compiles a method after about
/// ten thousand calls) before the first sample.
const SYSTEM_WARMUP: Duration = Duration::from_secs(1);
/// The shortest warm-up and window of an article system even in smoke runs: a fresh JVM loads
/// classes and compiles on the first requests, and a 40 ms smoke window can pass without an
/// answer.
const SYSTEM_WARMUP_MIN: Duration = Duration::from_secs(1);
const SYSTEM_WINDOW_MIN: Duration = Duration::from_millis(300);

pub struct Steady {
    meta: &'static Meta,
    target: Target,
    blocking: Option<Duration>,
    runtime_version: Option<String>,
}

/// What `setup` prepared: the running server and the connected, warmed-up clients.
pub struct State {
    server: Running,
    session: Session,
    sizes: Sizes,
    idle_pss_kib: u64,
    warnings: Vec<String>,
}

impl Steady {
    pub fn new(meta: &'static Meta, target: Target, blocking: Option<Duration>) -> Stages<Self> {
        Stages::new(Self {
            meta,
            target,
            blocking,
            runtime_version: None,
        })
    }
}

/// How long an article system may take to answer its first requests (a cold JVM on a busy
/// machine takes seconds) before setup gives up.
const SYSTEM_FIRST_ANSWER: Duration = Duration::from_secs(60);

/// Run the untimed warm-up; an article system's goes on, a window at a time, until a window saw
/// answers (its runtime has loaded and compiled the request path).
fn warm_up(
    target: Target,
    session: &mut Session,
    window: Duration,
    ctx: &RunContext,
) -> Result<()> {
    let started = std::time::Instant::now();
    loop {
        let report = session.run_window(Duration::ZERO, window)?;
        if matches!(target, Target::Design(_)) || report.requests > 0 {
            return Ok(());
        }
        ctx.cancel.check()?;
        if started.elapsed() > SYSTEM_FIRST_ANSWER {
            anyhow::bail!(
                "{target} answered no request within {} s of warming up",
                SYSTEM_FIRST_ANSWER.as_secs()
            );
        }
    }
}

/// The scenario's sizes for `target`: concbench's designs as the mode says, article systems
/// with room for their runtime to warm up.
fn sizes(target: Target, ctx: &RunContext) -> Sizes {
    let s = common::sizes(ctx);
    match target {
        Target::Design(_) => s,
        Target::System(_) if !ctx.smoke && !ctx.quick => Sizes {
            warmup: s.warmup.max(SYSTEM_WARMUP),
            ..s
        },
        Target::System(_) => Sizes {
            warmup: s.warmup.max(SYSTEM_WARMUP_MIN),
            window: s.window.max(SYSTEM_WINDOW_MIN),
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

    /// A failed step drops what the earlier ones started (the server's `Drop` stops it).
    fn setup(&mut self, ctx: &RunContext) -> Result<State> {
        let sizes = sizes(self.target, ctx);
        let (connections, cap) = common::fit_descriptors(sizes.connections);
        let handler = Handler {
            blocking: self.blocking,
            allow_crash: false,
        };
        let (server, note) = self.target.start(ctx, handler)?;
        self.runtime_version = server.runtime_version().map(str::to_string);
        let idle_pss_kib = tree::tree_pss_kib(server.pid());
        let mut session = Session::open(common::load_config(server.addr(), ctx, connections))
            .context("connecting the clients")?;
        warm_up(self.target, &mut session, sizes.warmup, ctx)?;
        Ok(State {
            server,
            session,
            sizes: Sizes {
                connections,
                ..sizes
            },
            idle_pss_kib,
            warnings: cap.into_iter().chain(note).collect(),
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
        let pid = st.server.pid();
        let (report, server, empty) = measured_window(st, timer)?;
        let pss = tree::tree_pss_kib(pid);
        let mut out = RunOutput {
            value: Some(report.requests_per_second),
            operations: Some(report.requests),
            extra_usage: Some(server),
            ..Default::default()
        };
        let per_req = report.requests.max(1) as f64;
        let established = st.session.connected().max(1) as f64;
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
            .metric("connections_unserved", report.connections_unserved as f64);
        out.warnings = st.warnings.clone();
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
            let (ceiling, w) = littles_law(self.target, st.sizes.connections, d);
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
        let State {
            server, session, ..
        } = st;
        drop(session);
        server.stop()
    }
}

/// Windows one sample may take when a window completes no request at all.
const WINDOW_ATTEMPTS: usize = 3;

/// One measured window on the session: the load report, the server tree's usage over it, and
/// how many windows before it completed nothing. A window that completes nothing is a stretch
/// in which the server or the client got no CPU (a loaded machine; on two CPUs, another
/// program's real-time thread), not the design's throughput: it is measured again, at most
/// [`WINDOW_ATTEMPTS`] windows in all, and then the sample fails with the reason rather than
/// report 0 req/s. Quick and full windows (150 ms, 2 s) hold thousands of requests, so only
/// the short smoke windows come near this.
fn measured_window(
    st: &mut State,
    timer: &mut dyn SampleTimer,
) -> Result<(LoadReport, concbench_core::Usage, usize)> {
    let pid = st.server.pid();
    until_measured(|| {
        let before = tree::tree_usage(pid);
        timer.restart();
        let report = st
            .session
            .run_window(st.sizes.sample_warmup, st.sizes.window)?;
        timer.stop();
        Ok((report, tree::tree_usage(pid).since(&before)))
    })
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
/// (N = connections, or the design's pool or loop count), so throughput <= N / delay.
pub fn littles_law(target: Target, connections: usize, delay: Duration) -> (f64, String) {
    let concurrency = target.blocking_concurrency();
    let n = concurrency.map_or(connections, |k| k.min(connections));
    let ceiling = n as f64 / delay.as_secs_f64();
    let who = match (concurrency, target) {
        (Some(1), _) => "1 blocked loop".to_string(),
        (Some(k), Target::System(super::system::System::Netty)) => {
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
