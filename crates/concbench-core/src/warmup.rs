//! A server's warm-up as evidence: its requests/s per window from the first request until its
//! steady-state criterion held (or the cap), with what its runtime did meanwhile — JIT
//! compilations and the compiler's share of a CPU, garbage-collection pauses. Recorded on the
//! round that started the server; the rounds after it on the same server carry none.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Warmup {
    /// Seconds per window.
    pub window_s: f64,
    /// Responses per second in each window, from the first request.
    pub rates: Vec<f64>,
    /// Share of one CPU the runtime's JIT compiler threads used in each window (empty: no JIT).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jit_share: Vec<f64>,
    /// Methods the JIT compiled in each window, from the runtime's log (empty: no log).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jit_compilations: Vec<u64>,
    /// Garbage-collection pauses in each window and their milliseconds, from the runtime's log.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gc_pauses: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gc_pause_ms: Vec<f64>,
    /// Seconds from the first request until the criterion held; `None`: it did not hold within
    /// the cap (the server never levelled: its rounds are shown and withheld from every check).
    pub steady_after_s: Option<f64>,
    /// The criterion, in words.
    pub criterion: String,
    /// Why the criterion did not hold at the cap, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_steady: Option<String>,
}

impl Warmup {
    /// Whether the server levelled within the cap.
    pub fn steady(&self) -> bool {
        self.steady_after_s.is_some()
    }

    /// Seconds the series covers.
    pub fn span_s(&self) -> f64 {
        self.rates.len() as f64 * self.window_s
    }
}
