//! When a server's warm-up is over: the steady-state criterion over its series of windows
//! (requests/s per window from the first request), with the runtime's own evidence beside —
//! the share of a CPU its JIT compiler used in each window.
//!
//! The criterion holds at the end of window `n` when, over the last `2k` windows:
//! * **no step**: the median of the last `k` windows is within `tolerance` of the median of the
//!   `k` before them (a changepoint between the two halves would show as a shift);
//! * **no spread**: the last `k` windows lie within `(1 + tolerance)²` of each other (a step
//!   inside them);
//! * both bands widened by the counting error of the fewest responses a compared window holds,
//!   `2 / sqrt(n)`: a window of 10 responses (a blocked loop's 100 a second over 0.1 s) moves by
//!   one response, 10%, with no change in the server at all;
//! * **a quiet JIT**: where the runtime compiles, its compiler threads used at most
//!   `jit_share_max` of one CPU over the last `k` windows together — a plateau reached while
//!   the JIT still compiles the request path is not the last one (a JVM levels twice);
//! * **every connection served**: at least `min_requests` responses since the first (in a closed
//!   loop of C connections, the first C responses end the queue that formed at the start).
//!
//! A series that has not met it by `cap` windows never levelled: an outcome, not a figure.
//!
//! Why these (docs/METHODOLOGY.md, "Steady state"): Georges et al. (OOPSLA 2007) stop a JVM's
//! warm-up when the coefficient of variation of the last k iterations falls below a threshold,
//! and take the figure across VM invocations; Barrett et al. (OOPSLA 2017) found that such a rule
//! often stops on a plateau that is not the last (changepoints after hundreds of iterations, or
//! none at all: "no steady state"), so a rate alone cannot tell a JIT's first plateau from its
//! last. The JIT's own activity can: the criterion asks that the compiler be idle as well, caps
//! the wait, and reports a series that never levels instead of measuring it.
//!
//! Invariants (tested): the answer does not change when every rate is multiplied by the same
//! positive factor; it never holds before `2k` windows; a constant series with a quiet JIT and
//! enough requests holds at exactly `2k` windows.

use crate::location::median;

/// One window of a warm-up series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Responses per second completed in the window.
    pub rate: f64,
    /// Responses completed in the window.
    pub requests: u64,
    /// Share of one CPU the runtime's JIT compiler threads used over the window (`None`: the
    /// runtime has no JIT, or it could not be read).
    pub jit_share: Option<f64>,
}

/// The criterion's numbers (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Criterion {
    /// Windows in each half of the test.
    pub k: usize,
    /// Relative shift between the halves (and spread within the last) allowed.
    pub tolerance: f64,
    /// Share of one CPU the JIT may use over the last `k` windows.
    pub jit_share_max: f64,
    /// Responses needed since the first request.
    pub min_requests: u64,
    /// Windows after which a series that has not levelled never will, for this run.
    pub cap: usize,
}

/// Why the criterion does not hold (yet) at the end of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NotLevel {
    /// Fewer than `2k` windows.
    TooShort { windows: usize, needed: usize },
    /// Fewer responses than `min_requests` so far.
    TooFewRequests { requests: u64, needed: u64 },
    /// The last `k` windows' median over the `k` before it.
    Shift { ratio: f64 },
    /// The largest of the last `k` windows over the smallest.
    Spread { ratio: f64 },
    /// The JIT's share of one CPU over the last `k` windows.
    Compiling { share: f64 },
    /// A window completed nothing (the server stalled).
    Stalled,
}

impl std::fmt::Display for NotLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotLevel::TooShort { windows, needed } => {
                write!(f, "{windows} of the {needed} windows the test needs")
            }
            NotLevel::TooFewRequests { requests, needed } => {
                write!(f, "{requests} responses, fewer than the {needed} needed")
            }
            NotLevel::Shift { ratio } => write!(
                f,
                "the last windows moved {:+.0}% from the ones before",
                (ratio - 1.0) * 100.0
            ),
            NotLevel::Spread { ratio } => {
                write!(f, "the last windows spread {:.0}%", (ratio - 1.0) * 100.0)
            }
            NotLevel::Compiling { share } => write!(
                f,
                "the JIT compiler used {:.1}% of a CPU in the last windows",
                share * 100.0
            ),
            NotLevel::Stalled => write!(f, "a window completed no request"),
        }
    }
}

/// Whether the criterion holds at the end of `series` (its windows in order from the first
/// request), and if not, the first reason found.
pub fn holds(series: &[Window], c: &Criterion) -> Result<(), NotLevel> {
    let k = c.k.max(1);
    let needed = 2 * k;
    if series.len() < needed {
        return Err(NotLevel::TooShort {
            windows: series.len(),
            needed,
        });
    }
    let requests: u64 = series.iter().map(|w| w.requests).sum();
    if requests < c.min_requests {
        return Err(NotLevel::TooFewRequests {
            requests,
            needed: c.min_requests,
        });
    }
    let tail = &series[series.len() - needed..];
    let (before, last) = tail.split_at(k);
    if last.iter().any(|w| w.rate <= 0.0 || w.rate.is_nan()) {
        return Err(NotLevel::Stalled);
    }
    let rates = |ws: &[Window]| ws.iter().map(|w| w.rate).collect::<Vec<f64>>();
    let (m_before, m_last) = (median(&rates(before)), median(&rates(last)));
    if m_before <= 0.0 {
        return Err(NotLevel::Stalled);
    }
    let shift = m_last / m_before;
    let fewest = tail.iter().map(|w| w.requests).min().unwrap_or(0).max(1);
    let band = 1.0 + c.tolerance + 2.0 / (fewest as f64).sqrt();
    if shift > band || shift < 1.0 / band {
        return Err(NotLevel::Shift { ratio: shift });
    }
    let last_rates = rates(last);
    let (lo, hi) = last_rates
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        });
    let spread = hi / lo;
    if spread > band * band {
        return Err(NotLevel::Spread { ratio: spread });
    }
    let shares: Vec<f64> = last.iter().filter_map(|w| w.jit_share).collect();
    if !shares.is_empty() {
        let share = shares.iter().sum::<f64>() / last.len() as f64;
        if share > c.jit_share_max {
            return Err(NotLevel::Compiling { share });
        }
    }
    Ok(())
}

/// Where a whole series levelled: the number of windows after which the criterion first held,
/// or why it still did not at the end (a series of `cap` windows or more that never held did
/// not level within the cap).
pub fn first_steady(series: &[Window], c: &Criterion) -> Result<usize, NotLevel> {
    let mut why = NotLevel::TooShort {
        windows: 0,
        needed: 2 * c.k.max(1),
    };
    for n in 1..=series.len().min(c.cap.max(1)) {
        match holds(&series[..n], c) {
            Ok(()) => return Ok(n),
            Err(e) => why = e,
        }
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Criterion = Criterion {
        k: 3,
        tolerance: 0.10,
        jit_share_max: 0.01,
        min_requests: 1000,
        cap: 60,
    };

    fn windows(rates: &[f64]) -> Vec<Window> {
        rates
            .iter()
            .map(|&r| Window {
                rate: r,
                requests: r as u64,
                jit_share: None,
            })
            .collect()
    }

    /// A deterministic ±`amplitude` jitter (no random source: the test cannot flake).
    fn jitter(i: usize, amplitude: f64) -> f64 {
        let pattern = [0.3, -0.8, 1.0, -0.4, 0.7, -1.0, 0.1, 0.9, -0.6, -0.2, 0.5];
        1.0 + amplitude * pattern[i % pattern.len()]
    }

    #[test]
    fn one_step_levels_once_the_last_windows_match_the_ones_before() {
        let s = windows(&[10e3, 50e3, 100e3, 100e3, 100e3, 100e3, 100e3, 100e3]);
        assert_eq!(first_steady(&s, &C), Ok(7));
        assert!(matches!(
            holds(&s[..6], &C),
            Err(NotLevel::Shift { ratio }) if ratio > 1.5
        ));
    }

    #[test]
    fn a_constant_series_levels_at_exactly_two_halves() {
        let s = windows(&[5000.0; 10]);
        assert_eq!(first_steady(&s, &C), Ok(6));
        assert!(matches!(
            holds(&s[..5], &C),
            Err(NotLevel::TooShort {
                windows: 5,
                needed: 6
            })
        ));
    }

    #[test]
    fn noise_within_the_tolerance_levels_and_a_stall_does_not() {
        let noisy: Vec<f64> = (0..20).map(|i| 140e3 * jitter(i, 0.05)).collect();
        assert_eq!(first_steady(&windows(&noisy), &C), Ok(6));
        let mut stalled = noisy.clone();
        stalled[19] = 0.0;
        assert_eq!(holds(&windows(&stalled), &C), Err(NotLevel::Stalled));
    }

    /// The JVM series of issue 41 (Netty, one-second windows from the first request): 16k,
    /// 45k, 68k, 126k, a plateau at 125-148k to window 25, then a second step to 155-167k, with
    /// the JIT still compiling through the plateau. A rate alone stops on the first plateau; the
    /// JIT's activity keeps the criterion open until after the second step.
    #[test]
    fn two_steps_a_rate_alone_stops_on_the_first_plateau_a_quiet_jit_after_the_second() {
        let mut rates = vec![16.2e3, 45.2e3, 68.5e3, 126e3];
        rates.extend((4..25).map(|i| 136e3 * jitter(i, 0.08)));
        rates.extend((25..45).map(|i| 161e3 * jitter(i, 0.035)));
        let rate_only = windows(&rates);
        let first = first_steady(&rate_only, &C).unwrap();
        assert!(first < 25, "the rate alone levels on the plateau: {first}");
        // The JIT compiles (several % of the CPU) until window 26, then idles.
        let with_jit: Vec<Window> = rate_only
            .iter()
            .enumerate()
            .map(|(i, w)| Window {
                jit_share: Some(if i < 26 { 0.04 } else { 0.001 }),
                ..*w
            })
            .collect();
        let steady = first_steady(&with_jit, &C).unwrap();
        assert!(steady > 26, "levelled at {steady}, before the second step");
        let measured = median(&rates[steady..]);
        assert!(measured > 150e3, "{measured}");
    }

    #[test]
    fn a_series_that_keeps_rising_never_levels_within_the_cap() {
        let rising: Vec<f64> = (0..80).map(|i| 1000.0 * 1.12f64.powi(i)).collect();
        let s = windows(&rising);
        assert!(matches!(first_steady(&s, &C), Err(NotLevel::Shift { .. })));
        // A JIT that never idles, on a flat rate, never levels either.
        let busy: Vec<Window> = windows(&[90e3; 70])
            .into_iter()
            .map(|w| Window {
                jit_share: Some(0.2),
                ..w
            })
            .collect();
        assert!(matches!(
            first_steady(&busy, &C),
            Err(NotLevel::Compiling { share }) if share > 0.1
        ));
    }

    #[test]
    fn a_queue_not_yet_cycled_is_too_few_requests() {
        // A blocked event loop: 200 responses a second, 1000 connections waiting.
        let s = windows(&[200.0; 8]);
        let at = first_steady(&s, &C).unwrap();
        assert_eq!(at, 6, "six windows hold 1200 responses");
        assert!(matches!(
            holds(&windows(&[150.0; 6]), &C),
            Err(NotLevel::TooFewRequests {
                requests: 900,
                needed: 1000
            })
        ));
    }

    #[test]
    fn a_few_responses_a_window_are_compared_within_their_counting_error() {
        // A blocked loop: 100 responses a second in 0.1-s windows, 8 to 11 each.
        let blocked: Vec<Window> = [10, 11, 9, 10, 8, 11]
            .iter()
            .map(|&n| Window {
                rate: n as f64 * 10.0,
                requests: n,
                jit_share: None,
            })
            .collect();
        let c = Criterion {
            min_requests: 50,
            ..C
        };
        assert_eq!(holds(&blocked, &c), Ok(()));
        // The same spread over 100,000 responses a window is a step.
        let busy: Vec<Window> = blocked
            .iter()
            .map(|w| Window {
                rate: w.rate * 1e4,
                requests: w.requests * 1e4 as u64,
                ..*w
            })
            .collect();
        assert!(matches!(holds(&busy, &c), Err(NotLevel::Spread { .. })));
    }

    #[test]
    fn a_step_inside_the_last_windows_is_spread() {
        let s = windows(&[100e3, 100e3, 100e3, 80e3, 100e3, 130e3]);
        assert!(matches!(holds(&s, &C), Err(NotLevel::Spread { .. })));
    }

    #[test]
    fn reasons_read_as_sentences() {
        assert_eq!(
            NotLevel::Shift { ratio: 1.14 }.to_string(),
            "the last windows moved +14% from the ones before"
        );
        assert!(NotLevel::Compiling { share: 0.031 }
            .to_string()
            .contains("3.1% of a CPU"));
    }
}
