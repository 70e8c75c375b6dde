//! The articles' own servers (seed S2), run as `server` designs beside concbench's: Netty (the
//! article's event-loop server, with the blocking call in the event loop as measured, or handed
//! to a business pool as a Netty user would), and the coroutine servers people choose today in
//! place of the article's PHP + Swoole — Go `net/http`, Java virtual threads, PHP 8 Fibers.
//! Swoole itself keeps its row, skipped: it is not packaged for this machine's registries.
//!
//! Each is a probe program (`probes/<runtime>/`, built on first use and cached like every probe)
//! asked to `serve`: it listens on a loopback port and answers it, then serves until concbench
//! closes its stdin. It is started pinned to the server CPUs, in its own process group, dying
//! with its worker (docs/PROBE_PROTOCOL.md), so the same `/proc` counters (CPU time, switches,
//! PSS of the whole tree) are read as for concbench's own designs.

use crate::probes::build::{self, Addon, Recipe};
use crate::probes::process::ProbeProcess;
use crate::probes::protocol::{Request, VERSION};
use crate::probes::toolchain::{self, discover, Runtime, Search, Toolchain};
use anyhow::{Context, Result};
use concbench_core::{Params, RunContext};
use serde_json::Value;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The article's Netty set-up: 2 worker event loops ("two workers, for two CPUs").
pub const NETTY_EVENT_LOOPS: u64 = 2;
/// The business pool of the Netty variant that hands the blocking call off (Tomcat's default
/// thread count, a common size for such pools).
pub const NETTY_POOL_THREADS: u64 = 200;
/// Worker processes of the PHP server (the article ran 2 Swoole workers).
pub const PHP_WORKERS: u64 = 2;
/// The first Java release with virtual threads.
const JAVA_VIRTUAL_FEATURE: u32 = 21;

/// Why Swoole has a row but no figure.
pub const SWOOLE_REASON: &str = "PHP + Swoole (the article's coroutine server) is not packaged \
    for this machine's registries (Debian has no php-swoole; PECL is not reachable): \
    php-fibers, go-net-http and java-virtual-threads stand in for it";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    /// Netty's HttpHelloWorldServer on 2 worker loops; the handler and its blocking call run on
    /// the event loop (what the article measured).
    Netty,
    /// The same, with the handler on a `DefaultEventExecutorGroup` business pool.
    NettyBusinessPool,
    /// Go `net/http`: a goroutine per connection, `time.Sleep` for the blocking call.
    GoNetHttp,
    /// Java: a virtual thread per connection, `Thread.sleep` for the blocking call.
    JavaVirtualThreads,
    /// PHP 8 Fibers over a `stream_select` loop, 2 worker processes.
    PhpFibers,
    /// PHP + Swoole: always skipped here (see [`SWOOLE_REASON`]).
    Swoole,
}

impl System {
    pub const ALL: [System; 6] = [
        System::Netty,
        System::NettyBusinessPool,
        System::GoNetHttp,
        System::JavaVirtualThreads,
        System::PhpFibers,
        System::Swoole,
    ];

    /// The name in `params.design`.
    pub fn name(self) -> &'static str {
        match self {
            System::Netty => "netty",
            System::NettyBusinessPool => "netty-business-pool",
            System::GoNetHttp => "go-net-http",
            System::JavaVirtualThreads => "java-virtual-threads",
            System::PhpFibers => "php-fibers",
            System::Swoole => "swoole",
        }
    }

    fn runtime(self) -> Option<Runtime> {
        match self {
            System::Netty | System::NettyBusinessPool | System::JavaVirtualThreads => {
                Some(Runtime::Java)
            }
            System::GoNetHttp => Some(Runtime::Go),
            System::PhpFibers => Some(Runtime::Php),
            System::Swoole => None,
        }
    }

    fn addon(self) -> Addon {
        match self {
            System::Netty | System::NettyBusinessPool => Addon::Netty,
            System::GoNetHttp => Addon::NetHttp,
            _ => Addon::None,
        }
    }

    /// What distinguishes the system beyond its design name: recorded as params and sent to the
    /// probe as its `serve` args (with `blocking_ms`).
    fn settings(self) -> Vec<(&'static str, Value)> {
        let mut v: Vec<(&'static str, Value)> = Vec::new();
        if let Some(rt) = self.runtime() {
            v.push(("runtime", rt.name().into()));
        }
        match self {
            System::Netty | System::NettyBusinessPool => {
                v.push(("server", "netty".into()));
                v.push(("event_loops", NETTY_EVENT_LOOPS.into()));
            }
            System::JavaVirtualThreads => v.push(("server", "virtual-threads".into())),
            System::PhpFibers => v.push(("workers", PHP_WORKERS.into())),
            _ => {}
        }
        match self {
            System::Netty => v.push(("blocking_in", "event-loop".into())),
            System::NettyBusinessPool => {
                v.push(("blocking_in", "business-pool".into()));
                v.push(("pool_threads", NETTY_POOL_THREADS.into()));
            }
            _ => {}
        }
        v
    }

    /// Params beyond `design` (the probe's `server` arg is implied by the design name).
    pub fn params(self, p: Params) -> Params {
        self.settings()
            .into_iter()
            .filter(|(k, _)| *k != "server")
            .fold(p, |p, (k, v)| p.with(k, v))
    }

    /// How many requests can wait in the blocking call at once: the N of Little's law (`None`:
    /// one per connection).
    pub fn blocking_concurrency(self) -> Option<usize> {
        match self {
            System::Netty => Some(NETTY_EVENT_LOOPS as usize),
            System::NettyBusinessPool => Some(NETTY_POOL_THREADS as usize),
            _ => None,
        }
    }

    /// Why the system cannot run here, in one line; instant (files only, nothing started).
    pub fn unsupported(self, search: &Search) -> Option<String> {
        self.recipe_parts(search).err()
    }

    /// The toolchain and, for Netty, Maven; or why they are missing.
    fn recipe_parts(
        self,
        search: &Search,
    ) -> Result<(Toolchain, Option<std::path::PathBuf>), String> {
        let runtime = self.runtime().ok_or_else(|| SWOOLE_REASON.to_string())?;
        let name = self.name();
        let tc = discover(runtime, search).map_err(|why| format!("{name}: {why}"))?;
        let feature = tc.java_feature.unwrap_or(0);
        if self == System::JavaVirtualThreads && feature < JAVA_VIRTUAL_FEATURE {
            return Err(format!(
                "{name}: virtual threads need Java {JAVA_VIRTUAL_FEATURE} or later; the newest JDK \
                 found is {feature}"
            ));
        }
        let maven = match self.addon() {
            Addon::Netty => Some(
                toolchain::helper(
                    search,
                    "mvn",
                    "apt-get install maven; it fetches Netty from Maven Central",
                )
                .map_err(|why| format!("{name}: {why}"))?,
            ),
            Addon::None | Addon::NetHttp => None,
        };
        Ok((tc, maven))
    }

    /// Build it now if its build is not cached (see `Experiment::build_ahead`).
    pub fn build_ahead(self, say: &mut dyn FnMut(&str)) -> Result<()> {
        self.prepare(say).map(|_| ())
    }

    /// Its build (made now on first use, `say` told before), and how to start it.
    fn prepare(self, say: &mut dyn FnMut(&str)) -> Result<build::Prepared> {
        let (tc, maven) = self
            .recipe_parts(&Search::from_env())
            .map_err(anyhow::Error::msg)?;
        let recipe = Recipe {
            toolchain: &tc,
            addon: self.addon(),
            maven,
        };
        build::prepare(&recipe, &[], say)
    }

    /// Build (first use) and start the server pinned to `cpus`, with `blocking` per request.
    pub fn start(
        self,
        ctx: &RunContext,
        cpus: &[usize],
        blocking: Option<Duration>,
    ) -> Result<ExternalServer> {
        let built = self.prepare(&mut |_| {})?;
        let label = format!("the {} server", self.name());
        let stderr = ctx.scratch_dir.join(stderr_name(self));
        let mut probe = ProbeProcess::start(&label, &built.launch, cpus, stderr, &ctx.cancel)?;
        let mut args: serde_json::Map<String, Value> = self
            .settings()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let blocking_ms = blocking.map_or(0, |d| d.as_millis() as u64);
        args.insert("blocking_ms".into(), blocking_ms.into());
        let request = Request {
            v: VERSION,
            id: "serve",
            iterations: 1,
            args: &args,
        };
        let answer = probe
            .request(&request, &ctx.cancel)
            .with_context(|| format!("starting {label}"))?;
        let port = answer
            .port
            .with_context(|| format!("{label} answered no port"))?;
        Ok(ExternalServer {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            version: probe.hello.version.clone(),
            pid: probe.pid().context("the server probe is not running")?,
            probe: Some(probe),
            note: built.note,
        })
    }
}

impl std::fmt::Display for System {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name for the server's stderr file, unique within this process.
fn stderr_name(system: System) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("server-{}-{}-{n}.stderr", system.name(), std::process::id())
}

/// A running article server. Dropping it ends its whole process group.
pub struct ExternalServer {
    probe: Option<ProbeProcess>,
    addr: SocketAddr,
    pid: i32,
    version: String,
    note: Option<String>,
}

impl ExternalServer {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The probe process: the root of the server's process tree.
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The runtime's own description (`go1.26.8 linux/amd64`, `25.0.3 ... + Netty 4.2.18.Final`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// What the build wants the user to know (a probe cache that had to move).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Close its stdin so it exits, then end its group; an unclean exit is an error.
    pub fn stop(mut self) -> Result<()> {
        match self.probe.take() {
            Some(p) => p.stop(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn names_are_unique_and_not_concbench_designs() {
        let mut seen = std::collections::HashSet::new();
        for s in System::ALL {
            assert!(seen.insert(s.name()));
            assert!(concbench_server::Design::from_name(s.name()).is_none());
        }
    }

    #[test]
    fn missing_toolchains_and_swoole_give_one_line_reasons() {
        let nowhere = Search::only(&[Path::new("/nonexistent/concbench-test")]);
        for s in System::ALL {
            let why = s
                .unsupported(&nowhere)
                .expect("nothing can run from nowhere");
            assert!(!why.contains('\n'), "{why}");
            if s == System::Swoole {
                assert!(why.contains("not packaged"), "{why}");
            } else {
                assert!(why.starts_with(s.name()), "{why}");
                assert!(why.contains("no "), "{why}");
            }
        }
    }

    #[test]
    fn netty_params_name_its_loops_and_pool() {
        let p = System::NettyBusinessPool.params(Params::new());
        assert_eq!(p.get_f64("event_loops"), Some(2.0));
        assert_eq!(p.get_f64("pool_threads"), Some(200.0));
        assert_eq!(p.get_str("blocking_in"), Some("business-pool"));
        assert_eq!(p.get_str("runtime"), Some("java"));
        assert!(p.get("server").is_none());
        assert_eq!(System::Netty.blocking_concurrency(), Some(2));
        assert_eq!(System::GoNetHttp.blocking_concurrency(), None);
    }
}
