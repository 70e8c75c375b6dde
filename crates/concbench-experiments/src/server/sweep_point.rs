//! The crossover sweep's points (issue 45): which design, with which pool, at which blocking
//! time and CPU per request. Apart from the sweep itself (`crossover`) because scenario A's
//! measurement (`steady`) takes a point, and the sweep builds on that measurement: in one file
//! the two would import each other.

use concbench_core::Params;
use concbench_server::Design;
use std::time::Duration;

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
pub(super) const QUICK_BLOCK_US: [u64; 3] = [0, 1_000, 10_000];
pub(super) const QUICK_POOL: usize = 64;

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
