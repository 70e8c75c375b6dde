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
pub use super::sweep_point::{Contender, Point, BLOCK_US, CPU_US, PROCESS_POOL, THREAD_POOLS};
use super::target::Target;
use concbench_core::{Meta, Stages};

pub const ID: &str = "server.crossover";

static META: Meta = Meta {
    id: ID,
    family: "server",
    title: "Crossover sweep: 1000 keep-alive connections, blocking time x CPU per request",
    op: "one request/response with its CPU and blocking call (value: requests per second)",
    unit: "req/s",
    expected_switches_per_op: None,
};

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
    use super::super::sweep_point::QUICK_POOL;
    use super::*;
    use concbench_core::Params;
    use concbench_server::Design;

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
