//! How long a print batch takes, roughly, to choose how many repetitions it is worth: the whole
//! family must stay within a few minutes, so the longest batches get the fewest repetitions.
//!
//! Rough costs measured on the 2-CPU development VM while other builds ran (noisy; used only for
//! this choice): 0.38-0.55 us per 12-byte line through the pipe, 0.5-0.6 us per 256-byte line,
//! 0.26-0.34 us to /dev/null, 0.9-1.0 us to a file; creating and reaping a worker ~160 us for a
//! process, ~60 us for a thread. The constants below round those up.

use super::sink::Sink;

/// Seconds per line written (and drained, for the pipe).
fn seconds_per_line(sink: Sink) -> f64 {
    match sink {
        Sink::File => 1.0e-6,
        Sink::DevNull | Sink::Pipe => 0.6e-6,
    }
}

/// Seconds to create and reap one worker.
const SECONDS_PER_WORKER: f64 = 200e-6;

/// Rough seconds one batch takes.
pub fn batch_seconds(workers: u64, count: u64, sink: Sink) -> f64 {
    (workers * count) as f64 * seconds_per_line(sink) + workers as f64 * SECONDS_PER_WORKER
}

/// Repetitions for a batch: the default (10) under 0.2 s, 5 up to 2 s (five per side still let
/// the rank test separate two models; three cannot reach p < 0.05), 3 beyond.
pub fn repetitions(workers: u64, count: u64, sink: Sink) -> usize {
    let s = batch_seconds(workers, count, sink);
    if s < 0.2 {
        10
    } else if s < 2.0 {
        5
    } else {
        3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longer_batches_get_fewer_repetitions() {
        assert_eq!(repetitions(255, 5, Sink::Pipe), 10);
        assert_eq!(repetitions(255, 10_000, Sink::Pipe), 5);
        assert_eq!(repetitions(1000, 10_000, Sink::File), 3);
    }
}
