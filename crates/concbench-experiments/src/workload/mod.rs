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

/// The `--quick` subset: three decades of the COUNT sweep at the seed's P, enough to see where
/// creation stops mattering, and the /dev/null point that shows the use of all CPUs.
fn in_quick(shape: &Shape) -> bool {
    let (w, c, l, s) = *shape;
    let seed_sweep = s == Sink::Pipe && [10, 100, 1000].contains(&c);
    w == SEED_WORKERS && l == SEED_LINE && (seed_sweep || s == Sink::DevNull)
}

/// Every point, processes and threads side by side at each shape.
pub fn points() -> Vec<Point> {
    let mut out = Vec::new();
    for placement in [Placement::SameCpu, Placement::Unpinned] {
        // The other sinks at the seed's central point; /dev/null on both placements too, as the
        // one sink without a shared consumer (the distribution verdict's best evidence).
        let sinks = [Sink::DevNull, Sink::File]
            .into_iter()
            .filter(|&s| placement == Placement::SameCpu || s == Sink::DevNull)
            .map(|s| (SEED_WORKERS, SEED_COUNT, SEED_LINE, s));
        for shape in shapes().into_iter().chain(sinks) {
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
                    quick: in_quick(&shape),
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
