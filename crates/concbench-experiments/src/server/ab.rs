//! `server.keepalive.ab` and `server.blocking.ab` (opt-in: `--only server.keepalive.ab`) — the
//! article's own load generator beside concbench's: ApacheBench (`ab -k -c 1000`, Debian's apache2-utils) drives each of the
//! articles' systems as seed S2 did, so ab's figure can be read next to the same system's
//! `server.keepalive` / `server.blocking` result (same design, same params).
//!
//! Each sample is one ab run for a fixed time (`-t`; the article's `-n 1000000` would take hours
//! against a blocked event loop), pinned to the client CPU as concbench's load generator is.
//! When ab stops it abandons the requests in flight; a blocked event loop still serves them (10
//! ms each), so before each sample the server is drained: fresh connections — enough to reach
//! every event loop — must each get an answer first. The
//! value is ab's "Requests per second"; ab's latency percentiles (whole milliseconds, from the
//! moment ab sent each request: not corrected for coordinated omission) and failures are
//! counters, beside the server's CPU per request and PSS per connection read from `/proc` as for
//! every design.

use super::common;
use super::runtime::RuntimeWatch;
use super::system::{ExternalServer, System};
use super::target::Target;
use super::warmup;
use anyhow::{bail, Context, Result};
use concbench_core::{
    Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Staged, Stages,
    Support, Warmup,
};
use concbench_load::Connections;
use concbench_measure::tree;
use concbench_probes::toolchain::{self, Search};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The ids, which run only when `--only` names them (`registry::OPT_IN_IDS`).
pub const KEEPALIVE_ID: &str = "server.keepalive.ab";
pub const BLOCKING_ID: &str = "server.blocking.ab";

static KEEPALIVE: Meta = Meta {
    id: KEEPALIVE_ID,
    family: "server",
    title: "Scenario A driven by ab -k -c 1000, as the article did",
    op: "one request/response on a keep-alive connection, by ApacheBench (value: requests per \
         second, ab's own figure)",
    unit: "req/s",
    expected_switches_per_op: None,
};

static BLOCKING: Meta = Meta {
    id: BLOCKING_ID,
    family: "server",
    title: "Scenario B driven by ab -k -c 1000, as the article did",
    op: "one request/response with a 10 ms blocking call, by ApacheBench (value: requests per \
         second, ab's own figure)",
    unit: "req/s",
    expected_switches_per_op: None,
};

/// What one ab run reported.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AbReport {
    pub complete: u64,
    pub failed: u64,
    pub keep_alive: u64,
    pub non_2xx: u64,
    pub requests_per_second: f64,
    /// (percent, milliseconds) from ab's "served within a certain time" table.
    pub percentiles: Vec<(u32, f64)>,
    /// The shortest request, milliseconds (the `Total:` row of ab's connection times).
    pub min_ms: Option<f64>,
}

impl AbReport {
    pub fn percentile_ms(&self, pct: u32) -> Option<f64> {
        self.percentiles
            .iter()
            .find(|(p, _)| *p == pct)
            .map(|(_, ms)| *ms)
    }
}

/// Parse ab's report (stdout).
pub fn parse(text: &str) -> Result<AbReport> {
    let field = |name: &str| -> Option<&str> {
        text.lines()
            .find_map(|l| l.trim_start().strip_prefix(name))
            .map(str::trim)
    };
    let count = |name: &str| -> u64 {
        field(name)
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let rps = field("Requests per second:")
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .with_context(|| {
            format!(
                "ab's report has no \"Requests per second\" line: '{}'",
                concbench_probes::protocol::excerpt(text)
            )
        })?;
    let percentiles = text
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let pct = parts.next()?.strip_suffix('%')?.parse().ok()?;
            let ms = parts.next()?.parse().ok()?;
            Some((pct, ms))
        })
        .collect();
    let min_ms = field("Total:")
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok());
    Ok(AbReport {
        min_ms,
        complete: count("Complete requests:"),
        failed: count("Failed requests:"),
        keep_alive: count("Keep-Alive requests:"),
        non_2xx: count("Non-2xx responses:"),
        requests_per_second: rps,
        percentiles,
    })
}

pub struct Ab {
    meta: &'static Meta,
    system: System,
    blocking: Option<Duration>,
    runtime_version: Option<String>,
}

/// What `setup` prepared: the running article system (warmed to steady state by concbench's
/// load generator) and the ab that loads it.
pub struct State {
    server: ExternalServer,
    ab: PathBuf,
    idle_pss_kib: u64,
    note: Option<String>,
    warmup: Option<Warmup>,
}

impl Ab {
    pub fn keepalive(system: System) -> Stages<Self> {
        Self::new(&KEEPALIVE, system, None)
    }

    pub fn blocking(system: System) -> Stages<Self> {
        Self::new(&BLOCKING, system, Some(common::BLOCKING))
    }

    fn new(meta: &'static Meta, system: System, blocking: Option<Duration>) -> Stages<Self> {
        Stages::new(Self {
            meta,
            system,
            blocking,
            runtime_version: None,
        })
    }
}

fn find_ab(search: &Search) -> Result<PathBuf, String> {
    toolchain::helper(search, "ab", "apt-get install apache2-utils")
        .map_err(|why| format!("ApacheBench: {why}"))
}

/// `ab -k -c C -t SECONDS` against `url`'s root; `-n` far above what the time allows, so the
/// time limit ends the run (alone, `-t` caps it at 50,000 requests).
fn ab_command(ab: &Path, connections: usize, seconds: u64, port: u16) -> Command {
    let mut cmd = Command::new(ab);
    cmd.args(["-k", "-q", "-c"])
        .arg(connections.to_string())
        .arg("-t")
        .arg(seconds.to_string())
        .args(["-n", "100000000"])
        .arg(format!("http://127.0.0.1:{port}/"));
    cmd
}

/// One ab run of `seconds`, pinned to the client CPUs. `midway` is called once, halfway through,
/// while ab's connections are open (to read the server's PSS under load).
fn run_ab(
    ctx: &RunContext,
    ab: &Path,
    port: u16,
    connections: usize,
    seconds: u64,
    midway: &mut dyn FnMut(),
) -> Result<AbReport> {
    let out_path = ctx
        .scratch_dir
        .join(format!("ab-{}.out", std::process::id()));
    let err_path = ctx
        .scratch_dir
        .join(format!("ab-{}.err", std::process::id()));
    let mut cmd = ab_command(ab, connections, seconds, port);
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?);
    let mut child = concbench_sys::spawn_tied(&mut cmd, &common::cpus(ctx).0)?;
    let started = Instant::now();
    let half = Duration::from_secs(seconds) / 2;
    let deadline = Duration::from_secs(seconds + 60);
    let mut measured = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if ctx.cancel.check().is_err() || started.elapsed() > deadline {
            concbench_sys::end_group(&mut child, Duration::ZERO)?;
            ctx.cancel.check()?;
            bail!("ab did not finish within {} s", deadline.as_secs());
        }
        if !measured && started.elapsed() >= half {
            midway();
            measured = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let errors = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    if !status.success() {
        let tail: Vec<&str> = errors.lines().rev().take(3).collect();
        bail!(
            "ab failed ({status}): {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        );
    }
    parse(&text)
}

/// Connections that together reach every event loop of a server that hands connections out
/// round-robin (Netty: 2 worker loops; PHP: 2 workers sharing by hash, so a few more).
const DRAIN_CONNECTIONS: usize = 8;
/// How long a server may take to work off the requests an ab run abandoned.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(120);

/// Wait until `addr` answers a request on each of [`DRAIN_CONNECTIONS`] fresh connections,
/// i.e. until every event loop has worked off what was queued before.
fn drain(addr: SocketAddr, ctx: &RunContext) -> Result<()> {
    let request = b"GET / HTTP/1.1\r\nHost: concbench\r\nConnection: close\r\n\r\n";
    let mut conns = Vec::new();
    for _ in 0..DRAIN_CONNECTIONS {
        let mut c = TcpStream::connect(addr).context("connecting to drain the server")?;
        c.write_all(request)?;
        c.set_read_timeout(Some(Duration::from_millis(200)))?;
        conns.push(c);
    }
    let started = Instant::now();
    for mut c in conns {
        let mut buf = [0u8; 1024];
        loop {
            ctx.cancel.check()?;
            match c.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => return Err(e).context("draining the server"),
            }
            if started.elapsed() > DRAIN_TIMEOUT {
                bail!(
                    "the server did not answer within {} s after ab stopped",
                    DRAIN_TIMEOUT.as_secs()
                );
            }
        }
    }
    Ok(())
}

/// ab's time limit for one sample: the scenario's window in whole seconds (ab's unit).
fn seconds(sizes: &common::Sizes) -> u64 {
    sizes.window.as_secs_f64().ceil().max(1.0) as u64
}

impl Staged for Ab {
    type State = State;

    fn meta(&self) -> &Meta {
        self.meta
    }

    fn params(&self) -> Params {
        let p = self
            .system
            .params(Params::new().with("design", self.system.name()))
            .with("connections", common::KEEPALIVE_CONNECTIONS as u64);
        match self.blocking {
            Some(d) => p.with("blocking_ms", d.as_millis() as u64),
            None => p,
        }
    }

    fn placement(&self) -> Placement {
        Placement::CrossCpu
    }

    fn in_quick(&self) -> bool {
        false
    }

    fn build_ahead(&self, say: &mut dyn FnMut(&str)) -> anyhow::Result<()> {
        self.system.build_ahead(say)
    }

    fn supported(&self, _host: &Host) -> Support {
        let search = Search::from_env();
        match self
            .system
            .unsupported(&search)
            .map_or_else(|| find_ab(&search).err(), Some)
        {
            Some(why) => Support::No(why),
            None => Support::Yes,
        }
    }

    /// One ab run per round (a fresh worker and server); the rounds are the replicates.
    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    /// A failed warm-up drops the server, whose `Drop` stops it.
    fn setup(&mut self, ctx: &RunContext) -> Result<State> {
        let ab = find_ab(&Search::from_env()).map_err(anyhow::Error::msg)?;
        let sizes = common::sizes(ctx);
        let (connections, cap) = common::fit_descriptors(sizes.connections);
        let server = self
            .system
            .start(ctx, &common::cpus(ctx).1, self.blocking)?;
        self.runtime_version = Some(server.version().to_string());
        let idle_pss_kib = tree::tree_pss_kib(server.pid());
        // Warmed as the steady scenarios warm theirs (its series recorded the same way), by
        // concbench's load generator: ab reports one figure per run, not windows.
        let warmup = warm_up(self.system, &server, connections, ctx)?;
        drain(server.addr(), ctx)?;
        let note = server.note().map(str::to_string);
        Ok(State {
            server,
            ab,
            idle_pss_kib,
            note: cap
                .into_iter()
                .chain(note)
                .reduce(|a, b| format!("{a}; {b}")),
            warmup: Some(warmup),
        })
    }

    fn before_sample(&mut self, st: &mut State, ctx: &RunContext) -> Result<()> {
        drain(st.server.addr(), ctx)
    }

    fn run(
        &mut self,
        st: &mut State,
        ctx: &RunContext,
        _iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let sizes = common::sizes(ctx);
        let (connections, _) = common::fit_descriptors(sizes.connections);
        let pid = st.server.pid();
        let mut pss = 0;
        let before = tree::tree_usage(pid);
        timer.restart();
        let report = run_ab(
            ctx,
            &st.ab,
            st.server.addr().port(),
            connections,
            seconds(&sizes),
            &mut || pss = tree::tree_pss_kib(pid),
        )?;
        timer.stop();
        let server = tree::tree_usage(pid).since(&before);
        let per_req = report.complete.max(1) as f64;
        let warmup = st.warmup.take();
        let steady = warmup.as_ref().map(Warmup::steady);
        let mut out = RunOutput {
            value: Some(report.requests_per_second),
            operations: Some(report.complete),
            extra_usage: Some(server),
            warmup,
            ..Default::default()
        };
        if let Some(steady) = steady {
            out = out.metric("steady", f64::from(u8::from(steady)));
        }
        for (pct, name) in [(50, "latency_p50_us"), (99, "latency_p99_us")] {
            if let Some(ms) = report.percentile_ms(pct) {
                out = out.metric(name, ms * 1e3);
            }
        }
        if let Some(ms) = report.percentile_ms(100) {
            out = out.metric("latency_max_us", ms * 1e3);
        }
        if let Some(ms) = report.min_ms {
            out = out.metric("latency_min_us", ms * 1e3);
        }
        out = out
            .metric("errors", (report.failed + report.non_2xx) as f64)
            .metric("keep_alive_requests", report.keep_alive as f64)
            .metric(
                "server_cpu_us_per_req",
                (server.user_ns + server.sys_ns) / per_req / 1e3,
            )
            .metric("server_pss_kib", pss as f64)
            .metric(
                "server_pss_kib_per_conn",
                pss.saturating_sub(st.idle_pss_kib) as f64 / connections.max(1) as f64,
            );
        out.warnings.extend(st.note.clone());
        out.warnings.extend(ab_warnings(&report));
        Ok(out)
    }

    fn info(&self) -> BTreeMap<String, String> {
        concbench_probes::runtime_info(self.runtime_version.as_deref())
    }

    fn teardown(&mut self, st: State, _ctx: &RunContext) -> Result<()> {
        st.server.stop()
    }
}

/// Warm `server` to steady state with concbench's closed loop on `connections` connections, as
/// the steady scenarios do (their criterion, their record).
fn warm_up(
    system: System,
    server: &ExternalServer,
    connections: usize,
    ctx: &RunContext,
) -> Result<Warmup> {
    let mut load = Connections::open(common::load_config(server.addr(), ctx, connections))
        .context("connecting the clients that warm the server up")?;
    let mut watch = RuntimeWatch::new(server.pid(), server.is_jvm(), server.jvm_logs());
    let schedule = warmup::schedule(Target::System(system), ctx, connections);
    warmup::warm_up(&mut load, &mut watch, &schedule, ctx)
        .with_context(|| format!("warming {system} up"))
}

/// What in ab's report makes its figure mean less than it seems.
fn ab_warnings(r: &AbReport) -> Vec<String> {
    let mut w = Vec::new();
    if r.keep_alive < r.complete {
        w.push(format!(
            "only {} of ab's {} requests were on kept-alive connections: ab reconnected for the \
             rest, so its figure includes connection set-up",
            r.keep_alive, r.complete
        ));
    }
    if r.failed + r.non_2xx > 0 {
        w.push(format!(
            "ab counted {} failed requests and {} non-2xx responses",
            r.failed, r.non_2xx
        ));
    }
    w.push(
        "ab is single-threaded and on one CPU: its figure is a floor for the server, and its \
         latency percentiles are whole milliseconds not corrected for coordinated omission"
            .into(),
    );
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of a real `ab -k -c 1000 -t 3` report (ApacheBench 2.3, Debian bookworm).
    const REPORT: &str = "This is ApacheBench, Version 2.3 <$Revision: 1903618 $>
Benchmarking 127.0.0.1 (be patient)


Server Software:
Server Hostname:        127.0.0.1
Server Port:            37521

Document Path:          /
Document Length:        13 bytes

Concurrency Level:      1000
Time taken for tests:   3.014 seconds
Complete requests:      104198
Failed requests:        0
Keep-Alive requests:    104198
Total transferred:      8648434 bytes
HTML transferred:       1354574 bytes
Requests per second:    34571.26 [#/sec] (mean)
Time per request:       28.926 [ms] (mean)
Time per request:       0.029 [ms] (mean, across all concurrent requests)
Transfer rate:          2802.16 [Kbytes/sec] received

Connection Times (ms)
              min  mean[+/-sd] median   max
Connect:        0    1   5.6      0      59
Processing:     2   28  11.2     25     121
Waiting:        2   28  11.2     25     121
Total:          2   28  12.6     25     145

Percentage of the requests served within a certain time (ms)
  50%     25
  66%     29
  75%     32
  80%     34
  90%     41
  95%     51
  98%     71
  99%     86
 100%    145 (longest request)
";

    #[test]
    fn parses_a_real_report() {
        let r = parse(REPORT).unwrap();
        assert_eq!(r.complete, 104_198);
        assert_eq!(r.keep_alive, 104_198);
        assert_eq!(r.failed, 0);
        assert_eq!(r.requests_per_second, 34_571.26);
        assert_eq!(r.percentile_ms(50), Some(25.0));
        assert_eq!(r.percentile_ms(99), Some(86.0));
        assert_eq!(r.percentile_ms(100), Some(145.0));
        assert_eq!(r.percentiles.len(), 9);
        assert_eq!(r.min_ms, Some(2.0));
        let w = ab_warnings(&r);
        assert_eq!(w.len(), 1, "{w:?}");
    }

    #[test]
    fn a_report_without_throughput_is_an_error_and_reconnects_are_flagged() {
        let e = parse("apr_socket_recv: Connection reset by peer (104)").unwrap_err();
        assert!(format!("{e:#}").contains("Requests per second"), "{e:#}");
        let r = AbReport {
            complete: 100,
            keep_alive: 40,
            failed: 2,
            ..AbReport::default()
        };
        let w = ab_warnings(&r).join("\n");
        assert!(w.contains("only 40 of ab's 100"), "{w}");
        assert!(w.contains("2 failed"), "{w}");
    }

    #[test]
    fn the_command_is_the_articles_with_a_time_limit() {
        let cmd = ab_command(Path::new("/usr/bin/ab"), 1000, 2, 8080);
        let args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "-k",
                "-q",
                "-c",
                "1000",
                "-t",
                "2",
                "-n",
                "100000000",
                "http://127.0.0.1:8080/"
            ]
        );
    }

    #[test]
    fn a_missing_ab_is_a_skip_reason() {
        let nowhere = Search::only(&[Path::new("/nonexistent/concbench-test")]);
        let why = find_ab(&nowhere).unwrap_err();
        assert!(why.contains("apache2-utils"), "{why}");
    }
}
