//! `server.crossover` — the crossover sweep (issue 45): where a pool of threads or processes, or
//! an event loop that blocks in its loop, stops keeping up with coroutines. The blocking time per
//! request (0, 0.1, 1 and 10 ms) by the CPU per request (0 and 100 µs), for a thread pool of 8,
//! 64 and 256 threads, a process pool of 64, epoll blocking inside its loop and tokio, under
//! scenario A's 1000 keep-alive connections.
//!
//! Every point is scenario A's measurement (`steady::Steady`): a fresh server each round, warmed to
//! steady state with the warm-up recorded. Only what each request does (CPU, then the blocking
//! call) and the pool's size differ, so one harness serves the scenarios and the sweep.
//!
//! Opt-in by id (`run --only server.crossover`, or `concbench crossover`, which also measures the
//! unit costs `advise` predicts from): 48 points of several rounds each are longer than a default
//! run gives the server family.

use super::steady::Steady;
use super::target::Target;
use concbench_core::{Meta, Params, Stages};
use concbench_server::Design;
use std::time::Duration;

pub const ID: &str = "server.crossover";

static META: Meta = Meta {
    id: ID,
    family: "server",
    title: "Crossover sweep: 1000 keep-alive connections, blocking time x CPU per request",
    op: "one request/response with its CPU and blocking call (value: requests per second)",
    unit: "req/s",
    expected_switches_per_op: None,
};

/// The blocking time per request, µs: none, then three decades.
pub const BLOCK_US: [u64; 4] = [0, 100, 1_000, 10_000];
/// The CPU per request, µs: none (the request's I/O alone) and 100 µs of work.
pub const CPU_US: [u64; 2] = [0, 100];
/// The thread pool's sizes: below, near and above what 1 ms of blocking needs at 1000
/// connections (Little's law: N = rate x time in the server).
pub const THREAD_POOLS: [usize; 3] = [8, 64, 256];
/// The process pool's size: the middle thread pool's, so that the pair differs only in the kind
/// of unit.
pub const PROCESS_POOL: usize = 64;

/// The points of a `--quick` (and `--smoke`) sweep: the four contenders at 64 units, at no, 1 and
/// 10 ms of blocking, without CPU work — each pair still has points on both sides of where it is
/// expected to cross.
const QUICK_BLOCK_US: [u64; 3] = [0, 1_000, 10_000];
const QUICK_POOL: usize = 64;

/// One design of the sweep, with its pool's size where it has a pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contender {
    pub design: Design,
    pub workers: Option<usize>,
}

impl Contender {
    /// The sweep's designs, in the order they are measured and drawn.
    pub fn all() -> Vec<Contender> {
        let pool = |design, n| Contender {
            design,
            workers: Some(n),
        };
        let mut v: Vec<Contender> = THREAD_POOLS
            .iter()
            .map(|&n| pool(Design::PrethreadMutex, n))
            .collect();
        v.push(pool(Design::Prefork, PROCESS_POOL));
        for design in [Design::EpollNaiveBlocking, Design::TokioMulti] {
            v.push(Contender {
                design,
                workers: None,
            });
        }
        v
    }

    fn in_quick(self) -> bool {
        self.workers.is_none_or(|n| n == QUICK_POOL)
    }
}

/// One point of the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub contender: Contender,
    pub block_us: u64,
    pub cpu_us: u64,
}

impl Point {
    /// The blocking call, `None` for none.
    pub fn blocking(self) -> Option<Duration> {
        (self.block_us > 0).then(|| Duration::from_micros(self.block_us))
    }

    /// The CPU burned per request, `None` for none.
    pub fn cpu(self) -> Option<Duration> {
        (self.cpu_us > 0).then(|| Duration::from_micros(self.cpu_us))
    }

    /// The pool's size the server starts with (a design without a pool ignores it).
    pub fn workers(self) -> usize {
        self.contender
            .workers
            .unwrap_or(concbench_server::DEFAULT_WORKERS)
    }

    /// `design`, `workers` (pools only), `block_us`, `cpu_us`: what fixes the point's quantity.
    pub fn params(self, base: Params) -> Params {
        let p = match self.contender.workers {
            Some(n) => base.with("workers", n as u64),
            None => base,
        };
        p.with("block_us", self.block_us)
            .with("cpu_us", self.cpu_us)
    }

    pub fn in_quick(self) -> bool {
        self.contender.in_quick() && self.cpu_us == 0 && QUICK_BLOCK_US.contains(&self.block_us)
    }
}

/// Every point of the sweep: per contender, CPU cost, then blocking time.
pub fn points() -> Vec<Point> {
    let mut v = Vec::new();
    for contender in Contender::all() {
        for cpu_us in CPU_US {
            for block_us in BLOCK_US {
                v.push(Point {
                    contender,
                    block_us,
                    cpu_us,
                });
            }
        }
    }
    v
}

pub fn variant(point: Point) -> Stages<Steady> {
    Steady::sweep(&META, Target::Design(point.contender.design), point)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_has_every_contender_at_every_point_and_quick_a_subset_on_both_sides() {
        let all = points();
        assert_eq!(all.len(), 6 * 4 * 2);
        let quick: Vec<Point> = all.iter().copied().filter(|p| p.in_quick()).collect();
        assert_eq!(quick.len(), 4 * 3);
        assert!(quick.iter().any(|p| p.block_us == 0));
        assert!(quick.iter().any(|p| p.block_us == 10_000));
        // Each quick pair is measured at the same pool size.
        let pools: Vec<usize> = quick.iter().filter_map(|p| p.contender.workers).collect();
        assert!(pools.iter().all(|n| *n == QUICK_POOL));
    }

    #[test]
    fn params_name_the_pool_only_where_there_is_one() {
        let all = points();
        let loop_point = all
            .iter()
            .find(|p| p.contender.design == Design::EpollNaiveBlocking)
            .unwrap();
        let p = loop_point.params(Params::new());
        assert!(p.get("workers").is_none());
        assert_eq!(p.get_f64("block_us"), Some(0.0));
        let pool = all.iter().find(|p| p.contender.workers == Some(8)).unwrap();
        assert_eq!(pool.params(Params::new()).get_f64("workers"), Some(8.0));
        assert_eq!(pool.workers(), 8);
    }
}
