//! Clocks: the harness's sample timer, and timestamps for experiments that time per worker.
//!
//! `std::time::Instant` is CLOCK_MONOTONIC, read through the vDSO (tens of nanoseconds with the
//! tsc clocksource); samples last at least a millisecond, so its cost and resolution vanish.

use crate::usage;
use concbench_core::{SampleTimer, Usage};
use std::time::{Duration, Instant};

/// A point in time, for experiments that record when each worker finished (stragglers).
pub fn now() -> Instant {
    Instant::now()
}

/// The wall-clock time now, RFC 3339 in UTC (for `started_at` and file names).
pub fn wall_now_rfc3339() -> String {
    jiff::Timestamp::now()
        .round(jiff::Unit::Second)
        .unwrap_or_else(|_| jiff::Timestamp::now())
        .to_string()
}

/// The [`SampleTimer`] the harness hands to an experiment: wall time plus the process's
/// resource usage (self and reaped children) read at the same two points.
pub struct Stopwatch {
    start: Instant,
    end: Option<Instant>,
    usage_start: Usage,
    usage_end: Option<Usage>,
}

impl Stopwatch {
    /// A stopwatch already running.
    pub fn started() -> Self {
        let usage_start = usage::process_usage();
        Self {
            start: Instant::now(),
            end: None,
            usage_start,
            usage_end: None,
        }
    }

    /// Stop (if the experiment did not) and return the elapsed time and usage.
    pub fn finish(mut self) -> (Duration, Usage) {
        self.stop();
        let end = self.end.expect("stopped above");
        let usage_end = self.usage_end.expect("stopped above");
        (end - self.start, usage_end.since(&self.usage_start))
    }
}

impl SampleTimer for Stopwatch {
    fn restart(&mut self) {
        self.usage_start = usage::process_usage();
        self.end = None;
        self.usage_end = None;
        self.start = Instant::now();
    }

    fn stop(&mut self) {
        if self.end.is_none() {
            self.end = Some(Instant::now());
            self.usage_end = Some(usage::process_usage());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restart_discards_time_before_it() {
        let mut sw = Stopwatch::started();
        std::thread::sleep(Duration::from_millis(30));
        sw.restart();
        let (elapsed, _) = sw.finish();
        assert!(elapsed < Duration::from_millis(30), "{elapsed:?}");
    }

    #[test]
    fn stop_freezes_the_reading() {
        let mut sw = Stopwatch::started();
        sw.stop();
        std::thread::sleep(Duration::from_millis(20));
        let (elapsed, _) = sw.finish();
        assert!(elapsed < Duration::from_millis(20), "{elapsed:?}");
    }
}
