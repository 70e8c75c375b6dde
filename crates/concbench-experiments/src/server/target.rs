//! What a scenario drives: one of concbench's own designs (a forked server process) or one of the
//! articles' own systems (a probe program serving), behind one interface — its address, the root
//! of its process tree, its Little's-law concurrency, the params and info it records.

use super::common;
use super::system::{ExternalServer, System};
use anyhow::Result;
use concbench_core::{Host, Params, RunContext, Support};
use concbench_server::{Design, Handler, RunningServer};
use std::net::SocketAddr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Design(Design),
    System(System),
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Design(d) => d.name(),
            Target::System(s) => s.name(),
        }
    }

    /// `design` plus what else distinguishes an article system (runtime, loops, pool).
    pub fn params(self) -> Params {
        let p = Params::new().with("design", self.name());
        match self {
            Target::Design(_) => p,
            Target::System(s) => s.params(p),
        }
    }

    /// The N of Little's law with `workers` pool units, for a design (`None`: one per
    /// connection); an article's system has its own.
    pub fn blocking_concurrency(self, workers: usize) -> Option<usize> {
        match self {
            Target::Design(d) => d.blocking_concurrency(workers),
            Target::System(s) => s.blocking_concurrency(),
        }
    }

    /// Whether this target can run here with `connections` keep-alive connections.
    pub fn supported(self, host: &Host, connections: u64) -> Support {
        match self {
            Target::System(s) => {
                match s.unsupported(&concbench_probes::toolchain::Search::from_env()) {
                    Some(why) => Support::No(why),
                    None => Support::Yes,
                }
            }
            Target::Design(Design::ForkPerConnection) => {
                let needed = connections + 100;
                match host.rlimit_nproc {
                    Some(limit) if limit < needed => Support::No(format!(
                        "fork-per-connection needs a process per connection: RLIMIT_NPROC is \
                         {limit}; raise it (ulimit -u) to at least {needed}"
                    )),
                    _ => Support::Yes,
                }
            }
            Target::Design(_) => Support::Yes,
        }
    }

    /// Build an article system's server ahead of the run (concbench's designs need none).
    pub fn build_ahead(self, say: &mut dyn FnMut(&str)) -> Result<()> {
        match self {
            Target::Design(_) => Ok(()),
            Target::System(s) => s.build_ahead(say),
        }
    }

    /// Start it on the server CPUs, a design's pool with `workers` units; the second value is a
    /// warning to carry (a design that fell back, a probe cache that had to move).
    pub fn start(
        self,
        ctx: &RunContext,
        handler: Handler,
        workers: usize,
    ) -> Result<(Running, Option<String>)> {
        match self {
            Target::Design(d) => {
                common::start(d, ctx, handler, workers).map(|(s, note)| (Running::Design(s), note))
            }
            Target::System(s) => {
                let server = s.start(ctx, &common::cpus(ctx).1, handler.blocking)?;
                let note = server.note().map(str::to_string);
                Ok((Running::System(Box::new(server)), note))
            }
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A started target. Dropping it ends the server and everything it started.
pub enum Running {
    Design(RunningServer),
    /// Boxed: a probe process carries its pipes and buffers, a design only a pid and an address.
    System(Box<ExternalServer>),
}

impl Running {
    pub fn addr(&self) -> SocketAddr {
        match self {
            Running::Design(s) => s.addr(),
            Running::System(s) => s.addr(),
        }
    }

    /// The root of the server's process tree.
    pub fn pid(&self) -> i32 {
        match self {
            Running::Design(s) => s.pid(),
            Running::System(s) => s.pid(),
        }
    }

    /// Whether it runs on a JVM (its JIT and GC are watched).
    pub fn is_jvm(&self) -> bool {
        matches!(self, Running::System(s) if s.is_jvm())
    }

    /// A JVM's unified logs (JIT compilations, GC pauses), when it writes them.
    pub fn jvm_logs(&self) -> Option<&super::runtime::JvmLogs> {
        match self {
            Running::Design(_) => None,
            Running::System(s) => s.jvm_logs(),
        }
    }

    /// Whether a design fell back to something else (io_uring refused: epoll).
    pub fn fell_back(&self) -> bool {
        matches!(self, Running::Design(s) if s.note().contains("fell back"))
    }

    /// The runtime's version, for the result's `info` (article systems only).
    pub fn runtime_version(&self) -> Option<&str> {
        match self {
            Running::Design(_) => None,
            Running::System(s) => Some(s.version()),
        }
    }

    /// End the server: an article system must exit cleanly at end of input.
    pub fn stop(self) -> Result<()> {
        match self {
            Running::Design(s) => drop(s),
            Running::System(s) => s.stop()?,
        }
        Ok(())
    }
}
