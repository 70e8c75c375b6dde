//! What the server experiments share: how long each scenario runs in each mode, where client
//! and server run, the descriptor limit, starting a design, and turning a load report into
//! metrics and warnings — or into a failed sample when it measured nothing.
//!
//! Placement: the load generator runs on the variant's primary CPU (where the harness pinned
//! the worker) and the server on the other allowed CPUs, two at most — one CPU on the 2-CPU
//! machines this was developed on, two (as the article gave each server) on four or more — so
//! they never compete for a CPU; a client that saturates its CPU is flagged (client-bound).

use anyhow::{Context, Result};
use concbench_core::{Placement, RunContext, RunOutput};
use concbench_load::{LoadConfig, LoadReport, Protocol};
use concbench_server::{Design, Handler, RunningServer, ServerConfig};
use std::net::SocketAddr;
use std::time::Duration;

/// Concurrent keep-alive connections of scenarios A and B (seed S2: `ab -c 1000`).
pub const KEEPALIVE_CONNECTIONS: usize = 1000;
/// The blocking call of scenario B (seed S2).
pub const BLOCKING: Duration = Duration::from_millis(10);

/// Durations and sizes, by mode. One window per round (a fresh worker and server): the rounds
/// are the replicates. Quick: about 0.25 s per round; 100 ms windows still hold thousands of
/// requests at keep-alive rates (enough for the median and p99; p99.9 wants a full run).
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub connections: usize,
    /// Untimed load before the first sample (connections warm, pools settled).
    pub warmup: Duration,
    /// Warm-up at the start of each sample, excluded from its statistics.
    pub sample_warmup: Duration,
    pub window: Duration,
}

pub fn sizes(ctx: &RunContext) -> Sizes {
    if ctx.smoke {
        Sizes {
            connections: 50,
            warmup: Duration::from_millis(20),
            sample_warmup: Duration::from_millis(5),
            // Not shorter: a window in which nothing completes is taken again, and after three
            // the sample fails (it measured nothing); a blocked event loop serves one request
            // per 10 ms blocking call, and a busy 2-CPU machine can leave the server without a
            // CPU for tens of ms.
            window: Duration::from_millis(100),
        }
    } else if ctx.quick {
        Sizes {
            connections: KEEPALIVE_CONNECTIONS,
            warmup: Duration::from_millis(50),
            sample_warmup: Duration::from_millis(10),
            window: Duration::from_millis(100),
        }
    } else {
        // A third of a second of load per sample (tens of thousands of requests): a full run's
        // evidence is its rounds (fresh servers, interleaved), and the throughput of this kind of
        // VM drifts more from one minute to the next than a longer window within one round
        // would reduce.
        Sizes {
            connections: KEEPALIVE_CONNECTIONS,
            warmup: Duration::from_millis(200),
            sample_warmup: Duration::from_millis(50),
            window: Duration::from_millis(300),
        }
    }
}

/// The designs a `--quick` run measures in each scenario: those a verdict compares (S2's
/// coroutines against a blocking and a non-blocking event loop, their memory; Stevens's designs
/// for his ordering) and a thread per connection for reference; the crash scenario runs in full
/// runs only. A full run measures every design.
pub fn in_quick(scenario: Scenario, design: Design) -> bool {
    use Design::*;
    match scenario {
        Scenario::KeepAlive => matches!(design, Epoll | TokioCurrent | ThreadPerConnection),
        Scenario::Blocking => matches!(design, EpollNaiveBlocking | Epoll | TokioMulti),
        Scenario::Stevens => !matches!(
            design,
            Iterative | Epoll | EpollPerCpu | IoUring | TokioCurrent | TokioMulti
        ),
        // No verdict rests on the crash scenario (isolation.crash judges reliability): full runs.
        Scenario::Crash => false,
    }
}

/// The four scenarios, for [`in_quick`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    KeepAlive,
    Blocking,
    Stevens,
    Crash,
}

/// The most CPUs a server gets: seed S2 gave each of its servers a 2-CPU container.
pub const SERVER_CPUS_MAX: usize = 2;

/// (client CPUs, server CPUs) for this variant's placement: the server on the allowed CPUs other
/// than the client's, [`SERVER_CPUS_MAX`] at most — the partner CPU the harness chose first.
pub fn cpus(ctx: &RunContext) -> (Vec<usize>, Vec<usize>) {
    match (ctx.placement, ctx.primary_cpu()) {
        (Placement::Unpinned, _) | (_, None) => (Vec::new(), Vec::new()),
        (_, Some(client)) => {
            let others = ctx
                .host
                .cpus_allowed
                .iter()
                .copied()
                .filter(|&c| c != client);
            let mut server: Vec<usize> = ctx.cpus.iter().copied().skip(1).collect();
            server.extend(others.filter(|c| !ctx.cpus.contains(c)));
            server.truncate(SERVER_CPUS_MAX);
            (vec![client], server)
        }
    }
}

/// Raise RLIMIT_NOFILE's soft limit toward the hard one so `connections` fit (client and
/// server are separate processes, each needing one descriptor per connection). Returns how
/// many connections fit, and a warning when that is fewer than asked.
pub fn fit_descriptors(connections: usize) -> (usize, Option<String>) {
    let fit = concbench_load::descriptors::fit(connections);
    if fit.all(connections) {
        return (connections, None);
    }
    let hard = fit.hard.map_or("unlimited".to_string(), |h| h.to_string());
    (
        fit.connections,
        Some(format!(
            "connections capped at {} (not {connections}) by RLIMIT_NOFILE (hard limit {hard}); \
             raise it with `ulimit -Hn {}` as root",
            fit.connections, fit.wanted
        )),
    )
}

/// Start `design` pinned to the server CPUs, with `workers` units if it is a pool. The second
/// value is a warning when the design ran something other than itself (io_uring refused by the
/// kernel: epoll instead).
pub fn start(
    design: Design,
    ctx: &RunContext,
    handler: Handler,
    workers: usize,
) -> Result<(RunningServer, Option<String>)> {
    let mut config = ServerConfig::new(design);
    config.handler = handler;
    config.workers = workers;
    config.cpus = cpus(ctx).1;
    let server = concbench_server::start(&config)?;
    let warning = server
        .note()
        .contains("fell back")
        .then(|| format!("{}: {}", design, server.note()));
    Ok((server, warning))
}

/// A one-thread load generator on the client CPU.
pub fn load_config(addr: SocketAddr, ctx: &RunContext, connections: usize) -> LoadConfig {
    let mut c = LoadConfig::new(addr);
    c.connections = connections;
    c.cpus = cpus(ctx).0;
    c
}

/// A Stevens client: connection per request, `N\n` for `bytes` bytes.
pub fn stevens_config(
    addr: SocketAddr,
    ctx: &RunContext,
    clients: usize,
    bytes: usize,
) -> LoadConfig {
    let mut c = load_config(addr, ctx, clients);
    c.protocol = Protocol::Stevens { bytes };
    c.per_request = true;
    c
}

/// A report that measured nothing is a failed sample, not a zero: no successful response at
/// all (the server never answered), or none in the window.
pub fn require_measured(r: &LoadReport) -> Result<()> {
    match r.shortfall(1) {
        Some(s) => Err(s).context("the load generator measured nothing"),
        None => Ok(()),
    }
}

/// Latency percentiles (corrected and uncorrected), errors and client load as metrics.
pub fn load_metrics(out: RunOutput, r: &LoadReport) -> RunOutput {
    let c = &r.latency_corrected;
    out.metric("latency_min_us", c.min_us)
        .metric("latency_p50_us", c.p50_us)
        .metric("latency_p99_us", c.p99_us)
        .metric("latency_p999_us", c.p999_us)
        .metric("latency_max_us", c.max_us)
        .metric("latency_p99_us_uncorrected", r.latency_uncorrected.p99_us)
        .metric("errors", r.errors_total as f64)
        .metric("client_cpu_busy", r.client_cpu_busy)
}

/// Warnings every load report can raise: client-bound, errors.
pub fn load_warnings(r: &LoadReport) -> Vec<String> {
    let mut w = Vec::new();
    if r.client_bound() {
        w.push(format!(
            "client-bound: the load generator's CPU was {:.0}% busy, so the server may be able to \
             serve more than this; read it as a lower bound (on a machine with more CPUs the \
             client gets more)",
            r.client_cpu_busy * 100.0
        ));
    }
    if r.errors_total > 0 {
        let kinds: Vec<String> = r.errors.iter().map(|(k, n)| format!("{n} {k}")).collect();
        w.push(format!(
            "the load generator saw errors ({}); see the server's stderr above",
            kinds.join(", ")
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(allowed: Vec<usize>, pair: Vec<usize>) -> RunContext {
        RunContext {
            quick: false,
            smoke: false,
            placement: Placement::CrossCpu,
            cpus: pair,
            cancel: concbench_core::CancelToken::new(),
            host: std::sync::Arc::new(concbench_core::Host {
                cpus_allowed: allowed,
                ..Default::default()
            }),
            scratch_dir: std::env::temp_dir(),
            options: Default::default(),
        }
    }

    #[test]
    fn the_server_gets_the_other_cpu_of_two_and_two_of_four_or_more() {
        assert_eq!(cpus(&on(vec![0, 1], vec![1, 0])), (vec![1], vec![0]));
        let (client, server) = cpus(&on((0..8).collect(), vec![7, 3]));
        assert_eq!(client, vec![7]);
        assert_eq!(server.len(), 2);
        assert_eq!(server[0], 3, "the harness's partner first");
        assert!(!server.contains(&7));
    }

    /// Load against a port nobody listens on: the sample fails with the reason instead of
    /// reporting 0 requests/s.
    #[test]
    fn a_load_report_that_measured_nothing_is_an_error_not_a_zero() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let mut cfg = LoadConfig::new(closed);
        cfg.duration = Duration::from_millis(50);
        let report = concbench_load::run(cfg).unwrap();
        let err = format!("{:#}", require_measured(&report).unwrap_err());
        assert!(err.contains("measured nothing"), "{err}");
        assert!(err.contains("no successful response"), "{err}");
    }
}
