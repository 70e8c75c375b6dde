//! The articles' own servers (seed S2), run as `server` designs beside concbench's: Netty (the
//! article's event-loop server, with the blocking call in the event loop as measured, or handed
//! to a business pool as a Netty user would), PHP + Swoole (the article's coroutine server,
//! when PHP has the extension or concbench can build it: [`concbench_probes::swoole`]), and the
//! coroutine servers people choose today — Go `net/http`, Java virtual threads, PHP 8 Fibers.
//!
//! Each is a probe program (`probes/<runtime>/`, built on first use and cached like every probe)
//! asked to `serve`: it listens on a loopback port and answers it, then serves until concbench
//! closes its stdin. It is started pinned to the server CPUs, in its own process group, dying
//! with its worker (docs/PROBE_PROTOCOL.md), so the same `/proc` counters (CPU time, switches,
//! PSS of the whole tree) are read as for concbench's own designs.

use super::runtime::JvmLogs;
use anyhow::{Context, Result};
use concbench_core::{Params, RunContext};
use concbench_probes::build::{self, Addon, Recipe};
use concbench_probes::process::ProbeProcess;
use concbench_probes::protocol::{Request, VERSION};
use concbench_probes::swoole;
use concbench_probes::toolchain::{self, discover, Runtime, Search, Toolchain};
use serde_json::Value;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The CPUs the article gave each server ("1G内存+2核CPU", `cpus: 2` in its compose file).
pub const ARTICLE_CPUS: u64 = 2;
/// Netty's worker event loops as the article's prose has them: "两个服务均只开启两个work进程"
/// (both services start only two workers).
pub const NETTY_EVENT_LOOPS: u64 = 2;
/// Netty's worker event loops as the article's printed code has them: `new NioEventLoopGroup()`,
/// whose default is 2 x the CPUs the JVM sees — 4 in the article's 2-CPU container. Fixed here,
/// not taken from this machine, so that the result means the same in every run.
pub const NETTY_DEFAULT_EVENT_LOOPS: u64 = 2 * ARTICLE_CPUS;
/// The boss (accepting) loops of the printed code: `new NioEventLoopGroup(2)`; with one listening
/// channel only one of them ever accepts.
pub const NETTY_BOSS_LOOPS: u64 = 2;
/// The heap policy of every JVM server: the JVM sizes itself as in the article's 1 GB container
/// (`-XX:MaxRAM=1g`: a maximum heap of a quarter, 256 MB, and the collector a 1 GB machine gets).
pub const JVM_MAX_RAM_MIB: u64 = 1024;
/// The business pool of the Netty variant that hands the blocking call off (Tomcat's default
/// thread count, a common size for such pools).
pub const NETTY_POOL_THREADS: u64 = 200;
/// Worker processes of the PHP server (the article ran 2 Swoole workers).
pub const PHP_WORKERS: u64 = 2;
/// The first Java release with virtual threads.
const JAVA_VIRTUAL_FEATURE: u32 = 21;

/// Swoole's worker processes, matched to Netty's worker event loops: the article gave each
/// server two CPUs and "only two workers" ("两个服务均只开启两个work进程"); each Swoole worker
/// runs one event loop with a coroutine per request, as each Netty loop serves its channels.
pub const SWOOLE_WORKERS: u64 = NETTY_EVENT_LOOPS;
/// Swoole's reactor threads (SWOOLE_PROCESS mode, the default of the article's Swoole 4): they
/// accept and read connections for the workers; Swoole's default is one per CPU, the article's
/// two.
pub const SWOOLE_REACTOR_THREADS: u64 = 2;
/// PHP-FPM's pool: Debian's default `pm.max_children` (5), held fixed (`pm = static`) so every
/// round serves with the same pool. Each process serves one request at a time, so with the
/// 10 ms call the pool caps at 5 / 10 ms = 500 req/s whatever the connections.
pub const PHP_FPM_CHILDREN: u64 = 5;
/// nginx's worker processes in front of PHP-FPM, matched to Netty's event loops.
pub const NGINX_WORKERS: u64 = NETTY_EVENT_LOOPS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    /// Netty's HttpHelloWorldServer as the article's prose has it, on 2 worker loops; the
    /// handler and its blocking call run on the event loop (what the article measured).
    Netty,
    /// The same as the article's printed code has it: Netty's default worker group, 4 loops for
    /// the article's 2 CPUs.
    NettyPrinted,
    /// The same, with the handler on a `DefaultEventExecutorGroup` business pool.
    NettyBusinessPool,
    /// Go `net/http`: a goroutine per connection, `time.Sleep` for the blocking call.
    GoNetHttp,
    /// Java: a virtual thread per connection, `Thread.sleep` for the blocking call.
    JavaVirtualThreads,
    /// PHP 8 Fibers over a `stream_select` loop, 2 worker processes.
    PhpFibers,
    /// PHP-FPM (a static pool of [`PHP_FPM_CHILDREN`]) behind nginx: `usleep` blocks a process.
    PhpFpm,
    /// PHP + Swoole 6: an HTTP server with coroutines and the runtime hooks on (SWOOLE_PROCESS,
    /// 2 workers and 2 reactor threads); `usleep` for the blocking call, which the hooks make a
    /// coroutine sleep.
    Swoole,
}

impl System {
    pub const ALL: [System; 8] = [
        System::Netty,
        System::NettyPrinted,
        System::NettyBusinessPool,
        System::GoNetHttp,
        System::JavaVirtualThreads,
        System::PhpFibers,
        System::Swoole,
        System::PhpFpm,
    ];

    /// The system named `name` (its `params.design`) with `event_loops` worker loops where it
    /// has a choice (Netty's two readings: 4, the printed code, by default).
    pub fn find(name: &str, event_loops: Option<u64>) -> Option<System> {
        let loops = |s: &System| s.params(Params::new()).get_f64("event_loops");
        System::ALL.into_iter().find(|s| {
            s.name() == name
                && match event_loops {
                    Some(l) => loops(s).is_none_or(|have| have == l as f64),
                    None => *s != System::Netty,
                }
        })
    }

    /// The name in `params.design`.
    pub fn name(self) -> &'static str {
        match self {
            System::Netty | System::NettyPrinted => "netty",
            System::NettyBusinessPool => "netty-business-pool",
            System::GoNetHttp => "go-net-http",
            System::JavaVirtualThreads => "java-virtual-threads",
            System::PhpFibers => "php-fibers",
            System::Swoole => "swoole",
            System::PhpFpm => "php-fpm",
        }
    }

    fn runtime(self) -> Runtime {
        match self {
            System::Netty
            | System::NettyPrinted
            | System::NettyBusinessPool
            | System::JavaVirtualThreads => Runtime::Java,
            System::GoNetHttp => Runtime::Go,
            System::PhpFibers | System::Swoole | System::PhpFpm => Runtime::Php,
        }
    }

    fn addon(self) -> Addon {
        match self {
            System::Netty | System::NettyPrinted | System::NettyBusinessPool => Addon::Netty,
            System::GoNetHttp => Addon::NetHttp,
            System::Swoole => Addon::Swoole,
            System::PhpFpm => Addon::PhpFpm,
            _ => Addon::None,
        }
    }

    /// What distinguishes the system beyond its design name: recorded as params and sent to the
    /// probe as its `serve` args (with `blocking_ms`).
    fn settings(self) -> Vec<(&'static str, Value)> {
        let mut v: Vec<(&'static str, Value)> = vec![("runtime", self.runtime().name().into())];
        match self {
            System::Netty | System::NettyBusinessPool => {
                v.push(("server", "netty".into()));
                v.push(("event_loops", NETTY_EVENT_LOOPS.into()));
                v.push(("boss_loops", NETTY_BOSS_LOOPS.into()));
            }
            System::NettyPrinted => {
                v.push(("server", "netty".into()));
                v.push(("event_loops", NETTY_DEFAULT_EVENT_LOOPS.into()));
                v.push(("boss_loops", NETTY_BOSS_LOOPS.into()));
            }
            System::JavaVirtualThreads => v.push(("server", "virtual-threads".into())),
            System::PhpFibers => v.push(("workers", PHP_WORKERS.into())),
            System::Swoole => {
                v.push(("workers", SWOOLE_WORKERS.into()));
                v.push(("reactor_threads", SWOOLE_REACTOR_THREADS.into()));
            }
            System::PhpFpm => {
                v.push(("pool_children", PHP_FPM_CHILDREN.into()));
                v.push(("nginx_workers", NGINX_WORKERS.into()));
            }
            _ => {}
        }
        if self.runtime() == Runtime::Java {
            v.push(("jvm_max_ram_mib", JVM_MAX_RAM_MIB.into()));
        }
        match self {
            System::Netty | System::NettyPrinted => v.push(("blocking_in", "event-loop".into())),
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
            System::NettyPrinted => Some(NETTY_DEFAULT_EVENT_LOOPS as usize),
            System::NettyBusinessPool => Some(NETTY_POOL_THREADS as usize),
            System::PhpFpm => Some(PHP_FPM_CHILDREN as usize),
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
        let runtime = self.runtime();
        let name = self.name();
        if self == System::Swoole {
            // First: its reasons say how to get Swoole, PHP included.
            swoole::locate(search)?;
        }
        let tc = discover(runtime, search).map_err(|why| format!("{name}: {why}"))?;
        if self == System::PhpFpm {
            fpm_programs(search)?;
        }
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
            Addon::None | Addon::NetHttp | Addon::Swoole | Addon::PhpFpm => None,
        };
        Ok((tc, maven))
    }

    /// Build it now if its build is not cached (see `Experiment::build_ahead`).
    pub fn build_ahead(self, say: &mut dyn FnMut(&str)) -> Result<()> {
        self.prepare(say, &[]).map(|_| ())
    }

    /// Whether it runs on a JVM (a JIT to watch, a heap policy, unified logs).
    pub fn is_jvm(self) -> bool {
        self.runtime() == Runtime::Java
    }

    /// Its build (made now on first use, `say` told before), and how to start it with the
    /// runtime flags `extra` beside its own.
    fn prepare(self, say: &mut dyn FnMut(&str), extra: &[String]) -> Result<build::Prepared> {
        let search = Search::from_env();
        let (tc, maven) = self.recipe_parts(&search).map_err(anyhow::Error::msg)?;
        let recipe = Recipe {
            toolchain: &tc,
            addon: self.addon(),
            maven,
        };
        let mut flags: Vec<String> = Vec::new();
        if self == System::Swoole {
            let located = swoole::locate(&search).map_err(anyhow::Error::msg)?;
            if let Some(so) = swoole::extension(&located, say)? {
                flags.push("-d".into());
                flags.push(format!("extension={}", so.display()));
            }
        }
        if self.is_jvm() {
            flags.push(format!("-XX:MaxRAM={JVM_MAX_RAM_MIB}m"));
        }
        flags.extend(extra.iter().cloned());
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        build::prepare(&recipe, &flags, say)
    }

    /// Build (first use) and start the server pinned to `cpus`, with `blocking` per request.
    pub fn start(
        self,
        ctx: &RunContext,
        cpus: &[usize],
        blocking: Option<Duration>,
    ) -> Result<ExternalServer> {
        let tag = file_tag(self);
        let logs = self
            .is_jvm()
            .then(|| JvmLogs::in_dir(&ctx.scratch_dir, &tag));
        let built = self.prepare(
            &mut |_| {},
            &logs.as_ref().map(JvmLogs::flags).unwrap_or_default(),
        )?;
        let label = format!("the {} server", self.name());
        let stderr = ctx.scratch_dir.join(format!("{tag}.stderr"));
        let mut probe = ProbeProcess::start(&label, &built.launch, cpus, stderr, &ctx.cancel)?;
        let mut args: serde_json::Map<String, Value> = self
            .settings()
            .into_iter()
            .filter(|(k, _)| *k != "jvm_max_ram_mib")
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        if self == System::PhpFpm {
            let (fpm, nginx) = fpm_programs(&Search::from_env()).map_err(anyhow::Error::msg)?;
            args.insert("php_fpm".into(), fpm.display().to_string().into());
            args.insert("nginx".into(), nginx.display().to_string().into());
        }
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
            logs,
            note: built.note,
        })
    }
}

impl std::fmt::Display for System {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// PHP-FPM (Debian names it after its PHP version) and nginx, or why one is missing.
fn fpm_programs(search: &Search) -> Result<(std::path::PathBuf, std::path::PathBuf), String> {
    const FPM: [&str; 6] = [
        "php-fpm",
        "php-fpm8.5",
        "php-fpm8.4",
        "php-fpm8.3",
        "php-fpm8.2",
        "php-fpm8.1",
    ];
    let fpm = search
        .program(&FPM, &["/usr/sbin", "/usr/local/sbin"])
        .ok_or("php-fpm: no php-fpm found (apt-get install php-fpm)")?;
    let nginx = search
        .program(&["nginx"], &["/usr/sbin", "/usr/local/sbin"])
        .ok_or("php-fpm: no nginx found to serve HTTP in front of it (apt-get install nginx)")?;
    Ok((fpm, nginx))
}

/// A name for the server's files (stderr, a JVM's logs), unique within this process.
fn file_tag(system: System) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("server-{}-{}-{n}", system.name(), std::process::id())
}

/// A running article server. Dropping it ends its whole process group.
pub struct ExternalServer {
    probe: Option<ProbeProcess>,
    /// A JVM's unified logs (JIT compilations, GC pauses).
    logs: Option<JvmLogs>,
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

    /// A JVM's unified logs, when it is one.
    pub fn jvm_logs(&self) -> Option<&JvmLogs> {
        self.logs.as_ref()
    }

    /// Whether it is a JVM.
    pub fn is_jvm(&self) -> bool {
        self.logs.is_some()
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
    fn params_are_unique_and_names_not_concbench_designs() {
        let mut seen = std::collections::HashSet::new();
        for s in System::ALL {
            assert!(seen.insert(s.params(Params::new().with("design", s.name())).compact()));
            assert!(concbench_server::Design::from_name(s.name()).is_none());
        }
    }

    #[test]
    fn netty_runs_at_both_readings_of_the_article() {
        let loops = |s: System| s.params(Params::new()).get_f64("event_loops");
        assert_eq!(System::Netty.name(), System::NettyPrinted.name());
        assert_eq!(loops(System::Netty), Some(2.0), "the prose");
        assert_eq!(
            loops(System::NettyPrinted),
            Some(4.0),
            "the code: 2 x 2 CPUs"
        );
        for s in [System::Netty, System::NettyPrinted] {
            let p = s.params(Params::new());
            assert_eq!(p.get_f64("boss_loops"), Some(2.0));
            assert_eq!(p.get_f64("jvm_max_ram_mib"), Some(1024.0));
        }
        assert_eq!(System::NettyPrinted.blocking_concurrency(), Some(4));
    }

    #[test]
    fn missing_toolchains_give_one_line_reasons() {
        let nowhere = Search::only(&[Path::new("/nonexistent/concbench-test")]);
        for s in System::ALL {
            let why = s
                .unsupported(&nowhere)
                .expect("nothing can run from nowhere");
            assert!(!why.contains('\n'), "{why}");
            assert!(why.starts_with(s.name()), "{why}");
            assert!(why.contains("no "), "{why}");
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
