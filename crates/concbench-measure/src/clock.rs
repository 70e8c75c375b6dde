//! Clocks: the harness's sample timer, and timestamps for experiments that time per worker.
//!
//! `std::time::Instant` is CLOCK_MONOTONIC, read through the vDSO (tens of nanoseconds with the
//! tsc clocksource); samples last at least a millisecond, so its cost and resolution vanish.

use crate::usage;
use concbench_core::{SampleTimer, Usage};
use std::time::{Duration, Instant, SystemTime};

/// A point in time, for experiments that record when each worker finished (stragglers).
pub fn now() -> Instant {
    Instant::now()
}

/// The wall-clock time now, RFC 3339 in UTC (for `started_at` and file names).
pub fn wall_now_rfc3339() -> String {
    rfc3339_seconds(SystemTime::now())
}

/// `t` rounded to the nearest second, as `2023-11-14T22:13:20Z`. humantime formats (and
/// truncates) whole seconds; the half second added first makes it round, as the timestamps
/// always have.
fn rfc3339_seconds(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t + Duration::from_millis(500)).to_string()
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
    fn timestamps_are_utc_rounded_to_the_second() {
        let at = |ms: u64| rfc3339_seconds(SystemTime::UNIX_EPOCH + Duration::from_millis(ms));
        assert_eq!(at(1_700_000_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(at(1_700_000_000_499), "2023-11-14T22:13:20Z");
        assert_eq!(at(1_700_000_000_500), "2023-11-14T22:13:21Z");
        assert_eq!(at(951_868_799_600), "2000-03-01T00:00:00Z");
    }

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
