//! What one load thread records, how threads merge, and the report.
//!
//! Latency goes into two HdrHistograms (nanoseconds, 3 significant digits, up to 100 s):
//! from the *intended* send time — the schedule's, in open loop; in closed loop the moment the
//! connection was free to send — which is corrected for coordinated omission, and from the
//! *actual* send time (uncorrected). Histograms of threads are added together, which is exact.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

/// Kinds of errors, counted separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    ConnectRefused,
    ConnectOther,
    ConnectTimeout,
    /// ECONNRESET / EPIPE on an established connection.
    Reset,
    /// End of file while a response was due.
    ServerClosed,
    /// A response that could not be framed (no Content-Length, chunked, garbage).
    BadResponse,
    /// A complete response whose status was not 2xx.
    HttpStatus,
    /// Any other read or write error.
    Io,
}

pub const ERROR_KINDS: [ErrorKind; 8] = [
    ErrorKind::ConnectRefused,
    ErrorKind::ConnectOther,
    ErrorKind::ConnectTimeout,
    ErrorKind::Reset,
    ErrorKind::ServerClosed,
    ErrorKind::BadResponse,
    ErrorKind::HttpStatus,
    ErrorKind::Io,
];

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::ConnectRefused => "connect_refused",
            ErrorKind::ConnectOther => "connect_other",
            ErrorKind::ConnectTimeout => "connect_timeout",
            ErrorKind::Reset => "reset",
            ErrorKind::ServerClosed => "server_closed",
            ErrorKind::BadResponse => "bad_response",
            ErrorKind::HttpStatus => "http_status",
            ErrorKind::Io => "io",
        }
    }
}

/// Completions and errors in one second of the run.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Second {
    pub completed: u64,
    pub errors: u64,
}

/// One thread's record of a run.
pub struct ThreadStats {
    pub corrected: Histogram<u64>,
    pub uncorrected: Histogram<u64>,
    /// Responses completed inside the measured window.
    pub completed: u64,
    /// Responses completed during warm-up (not in the histograms).
    pub warmup_completed: u64,
    pub errors: [u64; ERROR_KINDS.len()],
    /// Requests sent whose connection failed before their response.
    pub lost: u64,
    pub connections_requested: u64,
    pub connections_established: u64,
    pub timeline: Vec<Second>,
    /// Fault injection: responses completed for requests sent after the fault was observed,
    /// the first such completion (ns since the run's start), and errors after the fault.
    pub completed_after_fault: u64,
    pub first_after_fault: Option<u64>,
    pub errors_after_fault: u64,
    /// This thread's CPU time over the run, and the run's wall time, in ns.
    pub cpu_ns: f64,
    pub wall_ns: f64,
}

/// Histogram range: 1 ns to 100 s.
const MAX_NS: u64 = 100_000_000_000;

impl ThreadStats {
    pub fn new(seconds: usize) -> Self {
        let h = || Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds");
        Self {
            corrected: h(),
            uncorrected: h(),
            completed: 0,
            warmup_completed: 0,
            errors: [0; ERROR_KINDS.len()],
            lost: 0,
            connections_requested: 0,
            connections_established: 0,
            timeline: vec![Second::default(); seconds.max(1)],
            completed_after_fault: 0,
            first_after_fault: None,
            errors_after_fault: 0,
            cpu_ns: 0.0,
            wall_ns: 0.0,
        }
    }

    pub fn record(&mut self, from_intended: u64, from_sent: u64) {
        self.corrected.saturating_record(from_intended.max(1));
        self.uncorrected.saturating_record(from_sent.max(1));
        self.completed += 1;
    }

    pub fn second(&mut self, at_ns: u64) -> &mut Second {
        let i = ((at_ns / 1_000_000_000) as usize).min(self.timeline.len() - 1);
        &mut self.timeline[i]
    }

    pub fn error(&mut self, kind: ErrorKind, at_ns: u64) {
        self.errors[kind as usize] += 1;
        self.second(at_ns).errors += 1;
    }

    /// Add `other` into `self` (histograms add exactly).
    pub fn merge(&mut self, other: &ThreadStats) {
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.corrected.add(&other.corrected);
        let _ = self.uncorrected.add(&other.uncorrected);
        self.completed += other.completed;
        self.warmup_completed += other.warmup_completed;
        for (a, b) in self.errors.iter_mut().zip(other.errors) {
            *a += b;
        }
        self.lost += other.lost;
        self.connections_requested += other.connections_requested;
        self.connections_established += other.connections_established;
        if self.timeline.len() < other.timeline.len() {
            self.timeline
                .resize(other.timeline.len(), Second::default());
        }
        for (a, b) in self.timeline.iter_mut().zip(&other.timeline) {
            a.completed += b.completed;
            a.errors += b.errors;
        }
        self.completed_after_fault += other.completed_after_fault;
        self.first_after_fault = match (self.first_after_fault, other.first_after_fault) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.errors_after_fault += other.errors_after_fault;
        self.cpu_ns += other.cpu_ns;
        self.wall_ns = self.wall_ns.max(other.wall_ns);
    }
}

/// A latency distribution in microseconds.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub count: u64,
    pub mean_us: f64,
    pub min_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub p9999_us: f64,
    pub max_us: f64,
    /// The full spectrum: (percentile, latency in us) at percentile ticks that halve the
    /// distance to 100% (HdrHistogram's percentile iteration, 5 ticks per half).
    pub spectrum: Vec<(f64, f64)>,
}

impl Latency {
    pub fn of(h: &Histogram<u64>) -> Self {
        let us = |ns: u64| ns as f64 / 1e3;
        let spectrum = if h.is_empty() {
            Vec::new()
        } else {
            h.iter_quantiles(5)
                .map(|v| (v.quantile_iterated_to() * 100.0, us(v.value_iterated_to())))
                .collect()
        };
        Self {
            count: h.len(),
            mean_us: h.mean() / 1e3,
            min_us: if h.is_empty() { 0.0 } else { us(h.min()) },
            p50_us: us(h.value_at_quantile(0.5)),
            p90_us: us(h.value_at_quantile(0.9)),
            p99_us: us(h.value_at_quantile(0.99)),
            p999_us: us(h.value_at_quantile(0.999)),
            p9999_us: us(h.value_at_quantile(0.9999)),
            max_us: us(h.max()),
            spectrum,
        }
    }
}

/// What happened around an injected fault (the crash scenario).
#[derive(Debug, Clone, Serialize)]
pub struct FaultReport {
    /// When the fault request was sent, seconds since the start of the run.
    pub sent_at_s: f64,
    /// When its connection was dropped by the server (the crash), if it was.
    pub observed_at_s: Option<f64>,
    /// The server answered the fault request instead of dying with it.
    pub answered: bool,
    /// Responses to requests sent after the crash was observed.
    pub completed_after: u64,
    /// Errors of any kind after the fault was sent.
    pub errors_after: u64,
    /// Whether any request sent after the crash was answered.
    pub serving_continued: bool,
    /// From the crash to the first answer of a request sent after it, in milliseconds.
    pub recovery_ms: Option<f64>,
}

/// The load generator's report of one run.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    pub target: String,
    pub threads: usize,
    pub connections: usize,
    pub mode: String,
    pub pipeline: usize,
    /// Open-loop rate (requests/s), or null for a closed loop.
    pub rate: Option<f64>,
    pub warmup_s: f64,
    /// The measured window's length.
    pub duration_s: f64,
    /// Responses completed in the window.
    pub requests: u64,
    pub requests_per_second: f64,
    pub warmup_requests: u64,
    /// From the intended send time (corrected for coordinated omission).
    pub latency_corrected: Latency,
    /// From the actual send time (what a naive load generator reports).
    pub latency_uncorrected: Latency,
    pub errors: BTreeMap<String, u64>,
    pub errors_total: u64,
    /// Requests whose connection failed before they were answered.
    pub requests_lost: u64,
    pub connections_requested: u64,
    pub connections_established: u64,
    /// Established connections that got no response in the whole run (starvation).
    pub connections_unserved: u64,
    /// Requests still waiting for their response when the run ended.
    pub unanswered_at_end: u64,
    pub timeline: Vec<Second>,
    /// The busiest load thread's CPU use over the run (1.0 = one CPU saturated).
    pub client_cpu_busy: f64,
    pub fault: Option<FaultReport>,
}

impl LoadReport {
    /// True when the generator, not the server, probably limited the result.
    pub fn client_bound(&self) -> bool {
        self.client_cpu_busy >= CLIENT_BOUND
    }
}

/// A load thread busier than this was probably the bottleneck.
pub const CLIENT_BOUND: f64 = 0.9;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_threads_adds_histograms_and_counts() {
        let mut a = ThreadStats::new(2);
        let mut b = ThreadStats::new(3);
        for v in [1_000, 2_000, 3_000] {
            a.record(v, v);
        }
        b.record(1_000_000, 10);
        b.error(ErrorKind::Reset, 2_500_000_000);
        b.first_after_fault = Some(7);
        a.merge(&b);
        assert_eq!(a.corrected.len(), 4);
        assert_eq!(a.completed, 4);
        assert_eq!(a.errors[ErrorKind::Reset as usize], 1);
        assert_eq!(a.timeline.len(), 3);
        assert_eq!(a.timeline[2].errors, 1);
        assert_eq!(a.first_after_fault, Some(7));
        let l = Latency::of(&a.corrected);
        assert!(l.max_us >= 999.0 && l.p50_us < 5.0);
        assert!(l.spectrum.last().unwrap().0 > 99.0);
    }
}
