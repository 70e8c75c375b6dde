//! Family `workload`: Zhou Li's print experiment, generalised (seeds S0.print, S0.scale,
//! S0.heavy, S0.dualcore): does it matter, for real work, whether the workers are processes or
//! threads?

mod batch;
mod print;
mod sink;
mod writer;

use batch::Model;
use concbench_core::{Experiment, Placement};
use print::{Point, Print};
use sink::Sink;
use writer::Writer;

/// The seed's COUNT sweep (at P = 255).
const COUNTS: [u64; 8] = [5, 10, 50, 100, 500, 1000, 5000, 10000];
/// The seed's P sweep (S0.scale, at COUNT = 1000).
const WORKERS: [u64; 6] = [100, 255, 350, 500, 800, 1000];
/// S0.heavy: 256-byte lines (at P = 255).
const HEAVY_COUNTS: [u64; 3] = [100, 500, 1000];
const SEED_WORKERS: u64 = 255;
const SEED_COUNT: u64 = 1000;
const SEED_LINE: u64 = 12;
const HEAVY_LINE: u64 = 256;
/// The COUNTs at which the seed's sweep is also run through libc's stdio (`printf`'s locked,
/// line-buffered stream): three decades, on either side of the article's crossover. Full runs
/// only: each is a batch of up to a quarter of a million lines per round.
const STDIO_COUNTS: [u64; 3] = [10, 100, 1000];

/// `(workers, count, line_bytes, sink)` before model and placement are applied.
type Shape = (u64, u64, u64, Sink);

/// Every shape measured on both placements: the three seed sweeps, each through the pipe.
fn shapes() -> Vec<Shape> {
    let mut v: Vec<Shape> = COUNTS
        .iter()
        .map(|&c| (SEED_WORKERS, c, SEED_LINE, Sink::Pipe))
        .collect();
    v.extend(
        WORKERS
            .iter()
            .filter(|&&w| w != SEED_WORKERS)
            .map(|&w| (w, SEED_COUNT, SEED_LINE, Sink::Pipe)),
    );
    v.extend(
        HEAVY_COUNTS
            .iter()
            .map(|&c| (SEED_WORKERS, c, HEAVY_LINE, Sink::Pipe)),
    );
    v
}

/// S0.dualcore's COUNTs: the seed's print experiment on both cores of its machine.
const DUAL_COUNTS: [u64; 4] = [10, 100, 1000, 10000];

/// The `--quick` subset: the COUNT sweep at the seed's P from 10 to 5000 lines (on either side
/// of the article's crossover, so a quick run sees which model leads at each end), and the
/// /dev/null point with no shared consumer.
fn in_quick(shape: &Shape) -> bool {
    let (w, c, l, s) = *shape;
    let seed_sweep = s == Sink::Pipe && [10, 100, 1000, 5000].contains(&c);
    w == SEED_WORKERS && l == SEED_LINE && (seed_sweep || s == Sink::DevNull)
}

/// S0.dualcore on two CPUs: the seed's COUNTs through the pipe, pinned to a pair of CPUs
/// whatever the machine has (the seed compared one core with two, not with every CPU).
fn dual_shapes() -> impl Iterator<Item = Shape> {
    DUAL_COUNTS
        .iter()
        .map(|&c| (SEED_WORKERS, c, SEED_LINE, Sink::Pipe))
}

/// Every point, processes and threads side by side at each shape: every shape on one CPU and
/// unpinned (every CPU; full runs), the dual-core COUNTs on two CPUs.
pub fn points() -> Vec<Point> {
    let mut out = Vec::new();
    let same_cpu_sinks = [Sink::DevNull, Sink::File]
        .into_iter()
        .map(|s| (SEED_WORKERS, SEED_COUNT, SEED_LINE, s));
    // The other sinks at the seed's central point on one CPU; /dev/null unpinned too, as the
    // one sink without a shared consumer.
    let devnull = (SEED_WORKERS, SEED_COUNT, SEED_LINE, Sink::DevNull);
    let placed: [(Placement, Vec<Shape>); 3] = [
        (
            Placement::SameCpu,
            shapes().into_iter().chain(same_cpu_sinks).collect(),
        ),
        (Placement::CrossCpu, dual_shapes().collect()),
        (
            Placement::Unpinned,
            shapes().into_iter().chain([devnull]).collect(),
        ),
    ];
    for (placement, shapes) in placed {
        for shape in shapes {
            for model in [Model::Process, Model::Thread] {
                let (workers, count, line_bytes, sink) = shape;
                out.push(Point {
                    model,
                    workers,
                    count,
                    line_bytes,
                    sink,
                    placement,
                    writer: Writer::Write,
                    // Every CPU, unpinned, is the full run's: a quick run compares one CPU
                    // with two.
                    quick: in_quick(&shape) && placement != Placement::Unpinned,
                });
            }
        }
    }
    for count in STDIO_COUNTS {
        for model in [Model::Process, Model::Thread] {
            out.push(Point {
                model,
                workers: SEED_WORKERS,
                count,
                line_bytes: SEED_LINE,
                sink: Sink::Pipe,
                placement: Placement::SameCpu,
                writer: Writer::Stdio,
                quick: false,
            });
        }
    }
    out
}

pub fn all() -> Vec<Box<dyn Experiment>> {
    points()
        .into_iter()
        .map(|p| Box::new(Print::new(p)) as Box<dyn Experiment>)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dual_core_comparison_is_one_cpu_against_a_pinned_pair_at_the_seeds_counts() {
        let pts = points();
        let on = |placement: Placement, count: u64| {
            pts.iter().any(|p| {
                p.placement == placement
                    && p.count == count
                    && p.workers == SEED_WORKERS
                    && p.line_bytes == SEED_LINE
                    && p.sink == Sink::Pipe
                    && p.writer == Writer::Write
            })
        };
        for count in DUAL_COUNTS {
            assert!(on(Placement::SameCpu, count), "{count}");
            assert!(on(Placement::CrossCpu, count), "{count}");
        }
        // Two CPUs only where S0.dualcore compares them.
        assert!(pts
            .iter()
            .filter(|p| p.placement == Placement::CrossCpu)
            .all(|p| DUAL_COUNTS.contains(&p.count) && p.sink == Sink::Pipe));
        // A quick run compares one CPU with two (never with every CPU) and sees both ends of
        // the COUNT sweep.
        assert!(pts
            .iter()
            .filter(|p| p.quick)
            .all(|p| p.placement != Placement::Unpinned));
        for count in [10, 5000] {
            assert!(pts.iter().any(|p| p.quick && p.count == count));
        }
    }

    #[test]
    fn a_batch_on_two_cpus_may_run_on_both_and_no_other() {
        let allowed = concbench_sys::allowed_cpus().unwrap();
        if allowed.len() < 2 {
            eprintln!("skipped: this process may use one CPU only");
            return;
        }
        let pair = vec![allowed[allowed.len() - 1], allowed[0]];
        let point = points()
            .into_iter()
            .find(|p| p.placement == Placement::CrossCpu)
            .unwrap();
        let mut print = Print::new(point);
        let ctx = concbench_core::RunContext {
            placement: Placement::CrossCpu,
            cpus: pair.clone(),
            ..crate::support::test_context()
        };
        // As the harness does: this thread pinned to the first CPU of the pair.
        let _harness = concbench_sys::AffinityGuard::pin(&pair[..1]).unwrap();
        print.setup(&ctx).unwrap();
        let mut want = pair;
        want.sort_unstable();
        assert_eq!(concbench_sys::allowed_cpus().unwrap(), want);
        print.teardown(&ctx).unwrap();
    }
}
