//! Whether a load report holds a measurement at all. A run against a closed port, a window of
//! zero length or a handful of requests still yields a report full of numbers — requests/s 0,
//! latencies 0, or 131,921 req/s from 7 requests in 53 µs — and none of them is a figure.
//! Every user of the load generator (`concbench load`, the server experiments) asks this before
//! presenting one.

use crate::LoadReport;
use std::fmt;

/// Why a report holds no figure.
#[derive(Debug, Clone, PartialEq)]
pub enum Shortfall {
    /// Not one successful response, warm-up included.
    NoResponse { target: String, errors: String },
    /// The measured window has no length: any rate from it is a division by (almost) zero.
    EmptyWindow { window_s: f64 },
    /// Fewer responses in the window than the minimum asked for.
    TooFew {
        requests: u64,
        minimum: u64,
        window_s: f64,
        warmup_requests: u64,
    },
}

impl fmt::Display for Shortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shortfall::NoResponse { target, errors } => {
                write!(
                    f,
                    "no successful response at all from {target} during the run ({errors})"
                )
            }
            Shortfall::EmptyWindow { window_s } => write!(
                f,
                "the measured window lasted {window_s:.6} s: a rate over it means nothing"
            ),
            Shortfall::TooFew {
                requests,
                minimum,
                window_s,
                warmup_requests,
            } => write!(
                f,
                "only {requests} request(s) completed in the {window_s:.3} s measured window \
                 ({warmup_requests} during the warm-up), fewer than the {minimum} a figure needs"
            ),
        }
    }
}

impl std::error::Error for Shortfall {}

impl LoadReport {
    /// Why this report holds no figure with at least `minimum` measured requests, if it does not.
    pub fn shortfall(&self, minimum: u64) -> Option<Shortfall> {
        if self.requests == 0 && self.warmup_requests == 0 {
            return Some(Shortfall::NoResponse {
                target: self.target.clone(),
                errors: self.error_summary(),
            });
        }
        if self.duration_s <= 0.0 {
            return Some(Shortfall::EmptyWindow {
                window_s: self.duration_s,
            });
        }
        (self.requests < minimum.max(1)).then(|| Shortfall::TooFew {
            requests: self.requests,
            minimum: minimum.max(1),
            window_s: self.duration_s,
            warmup_requests: self.warmup_requests,
        })
    }

    /// "3,012 connect_refused" or "no errors either: nothing answered".
    fn error_summary(&self) -> String {
        if self.errors_total == 0 {
            return "no errors either: nothing answered while the run lasted".into();
        }
        let kinds: Vec<String> = self
            .errors
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        kinds.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Latency, ThreadStats};

    /// A report with `requests` measured, `warmup` before, over `window_s`, and these errors.
    fn report(requests: u64, warmup: u64, window_s: f64, errors: &[(&str, u64)]) -> LoadReport {
        let empty = Latency::of(&ThreadStats::new(1).corrected);
        LoadReport {
            target: "127.0.0.1:1".into(),
            threads: 1,
            connections: 1,
            mode: "keep-alive".into(),
            pipeline: 1,
            rate: None,
            warmup_s: 1.0,
            duration_s: window_s,
            requests,
            requests_per_second: 0.0,
            warmup_requests: warmup,
            latency_corrected: empty.clone(),
            latency_uncorrected: empty,
            errors: errors.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
            errors_total: errors.iter().map(|(_, n)| n).sum(),
            requests_lost: 0,
            connections_requested: 1,
            connections_established: 0,
            connections_unserved: 0,
            unanswered_at_end: 0,
            timeline: Vec::new(),
            client_cpu_busy: 0.0,
            fault: None,
        }
    }

    #[test]
    fn a_closed_port_is_no_response_with_its_errors() {
        let r = report(0, 0, 1.0, &[("connect_refused", 97)]);
        let s = r.shortfall(1).unwrap();
        assert!(matches!(s, Shortfall::NoResponse { .. }), "{s:?}");
        assert!(s.to_string().contains("97 connect_refused"), "{s}");
        let silent = report(0, 0, 1.0, &[]).shortfall(1).unwrap().to_string();
        assert!(silent.contains("nothing answered"), "{silent}");
    }

    #[test]
    fn an_empty_window_is_refused_even_with_requests_in_it() {
        let s = report(7, 900, 0.0, &[]).shortfall(1).unwrap();
        assert!(matches!(s, Shortfall::EmptyWindow { .. }), "{s:?}");
    }

    #[test]
    fn fewer_requests_than_the_minimum_are_too_few() {
        let s = report(7, 900, 0.5, &[]).shortfall(100).unwrap();
        assert_eq!(
            s,
            Shortfall::TooFew {
                requests: 7,
                minimum: 100,
                window_s: 0.5,
                warmup_requests: 900
            }
        );
        assert!(s.to_string().contains("only 7 request(s)"), "{s}");
        // All of them in the warm-up, none measured: too few, even at a minimum of 0.
        assert!(report(0, 900, 0.5, &[]).shortfall(0).is_some());
        assert_eq!(report(100, 0, 0.5, &[]).shortfall(100), None);
    }
}
