//! Family `server`: server designs head to head (seeds S0.stevens and S2) — Stevens's nine
//! designs and today's event loops, under four scenarios: (A) 1000 keep-alive connections,
//! (B) the same with a 10 ms blocking call per request, (C) Stevens's one connection per
//! request with server CPU per connection, (X) a worker crashing mid-run.
//!
//! The servers are in `concbench-server`, the load generator in `concbench-load`; each variant
//! runs in a fresh worker process, its server is a forked child of that worker (dies with it).

mod blocking;
mod common;
pub mod crash;
mod keepalive;
mod steady;
mod stevens;

use concbench_core::Experiment;
use concbench_server::Design;

/// The naive blocking loop differs from `epoll` only when something blocks: it appears in B.
fn designs_without_naive() -> impl Iterator<Item = Design> {
    Design::ALL
        .into_iter()
        .filter(|d| *d != Design::EpollNaiveBlocking)
}

pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    for d in designs_without_naive() {
        v.push(Box::new(keepalive::variant(d)));
    }
    for d in Design::ALL {
        v.push(Box::new(blocking::variant(d)));
    }
    for d in designs_without_naive() {
        v.push(Box::new(stevens::Stevens::new(d)));
    }
    for d in designs_without_naive() {
        v.push(Box::new(crash::Crash::new(d)));
    }
    v
}

pub use common::{sizes, Sizes};
