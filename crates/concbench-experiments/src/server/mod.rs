//! Family `server`: server designs head to head (seeds Stevens, as S0 reproduces him, and S2) —
//! Stevens's nine designs and today's event loops, under four scenarios: (A) 1000 keep-alive
//! connections, (B) the same with a 10 ms blocking call per request, (C) Stevens's one
//! connection per request with server CPU per connection, (X) a worker crashing mid-run — and
//! the crossover sweep ([`crossover`]: blocking time x CPU per request, opt-in by id).
//!
//! The servers are in `concbench-server`, the load generator in `concbench-load`; each variant
//! runs in a fresh worker process, its server is a forked child of that worker (dies with it).
//!
//! Scenarios A and B also run the articles' own systems (Netty, PHP + Swoole, and the Go, Java
//! virtual-thread and PHP Fiber coroutine servers beside them: [`system`]) as designs, and drive each once more with
//! the article's ApacheBench ([`ab`]). They start runtimes, so they stay out of `--quick`.

pub mod ab;
mod blocking;
mod common;
pub mod crash;
pub mod crossover;
mod keepalive;
pub mod runtime;
mod steady;
mod stevens;
mod sweep_point;
pub mod system;
pub mod target;
pub mod warmup;

use concbench_core::Experiment;
use concbench_server::Design;
use system::System;
use target::Target;

/// The naive blocking loop differs from `epoll` only when something blocks: it appears in B.
fn designs_without_naive() -> impl Iterator<Item = Design> {
    Design::ALL
        .into_iter()
        .filter(|d| *d != Design::EpollNaiveBlocking)
}

pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    for d in designs_without_naive() {
        v.push(Box::new(keepalive::variant(Target::Design(d))));
    }
    for d in Design::ALL {
        v.push(Box::new(blocking::variant(Target::Design(d))));
    }
    for s in System::ALL {
        v.push(Box::new(keepalive::variant(Target::System(s))));
        v.push(Box::new(blocking::variant(Target::System(s))));
    }
    for s in System::ALL {
        v.push(Box::new(ab::Ab::keepalive(s)));
        v.push(Box::new(ab::Ab::blocking(s)));
    }
    for d in designs_without_naive() {
        v.push(Box::new(stevens::Stevens::new(d)));
    }
    for d in designs_without_naive() {
        v.push(Box::new(crash::Crash::new(d)));
    }
    for p in crossover::points() {
        v.push(Box::new(crossover::variant(p)));
    }
    v
}

pub use common::{sizes, Sizes};
