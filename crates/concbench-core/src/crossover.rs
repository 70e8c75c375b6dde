//! What the crossover sweep found (`concbench crossover`, or a run of `server.crossover`): each
//! point's requests/s as measured beside `advise`'s prediction and the error between them, and
//! where each pair of designs crosses along the blocking-time axis, measured and predicted.
//! Stored in the result document's `crossover` object (`concbench/result/v1`).

use serde::{Deserialize, Serialize};

/// The sweep checked against `advise`'s model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crossover {
    /// How the predictions were made, in one sentence per input.
    pub model: Vec<String>,
    /// The CPU of one request's own I/O that every prediction bills beside the request's work,
    /// µs, and the result it was read from; absent when the document has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_cpu_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_source: Option<String>,
    /// The unit costs the predictions need that the document lacks (then no point is predicted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// One entry per measured point, by design, CPU cost and blocking time.
    pub points: Vec<SweepPoint>,
    /// One entry per compared pair and CPU cost.
    pub pairs: Vec<Pair>,
    /// The error of the predictions over every point that has both figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorSummary>,
}

/// One point: a design at one blocking time and CPU cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The server design (`params.design`).
    pub design: String,
    /// The design as the tables name it: "thread pool of 64", "coroutines (tokio)".
    pub label: String,
    /// The pool's size, for pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u64>,
    pub block_us: f64,
    pub cpu_us: f64,
    /// Rounds behind the measured figure.
    pub rounds: usize,
    /// Median requests/s over the rounds.
    pub measured_rps: f64,
    /// Its 95% interval (six rounds or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_ci: Option<[f64; 2]>,
    /// The lowest and highest round.
    pub measured_range: [f64; 2],
    /// Whether every round's server levelled (a point whose server did not is shown, and left out
    /// of the error).
    pub steady: bool,
    /// `advise`'s prediction, requests/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_rps: Option<f64>,
    /// Which of the model's limits sets the prediction: "cpu" or "concurrency".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_by: Option<String>,
    /// measured / predicted, with the measured interval's ends over the prediction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_ci: Option<[f64; 2]>,
}

/// A challenger against a reference (a thread pool against coroutines) at one CPU cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub challenger: String,
    pub reference: String,
    pub cpu_us: f64,
    /// The resolution the predictions are judged with: the median of the points' (see
    /// [`PairRatio::resolution`]); absent when no point could be decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<f64>,
    /// challenger / reference at each blocking time both were measured at.
    pub ratios: Vec<PairRatio>,
    pub measured: Vec<Crossing>,
    pub predicted: Vec<Crossing>,
    /// measured / predicted blocking time of the first crossing each has in the same direction,
    /// when both are inside the sweep and above zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<f64>,
    /// The pair's answer in words.
    pub summary: String,
}

/// The two designs' ratio at one blocking time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRatio {
    pub block_us: f64,
    /// Of the medians.
    pub measured: f64,
    /// Its 95% interval (Hodges-Lehmann over the rounds), when the rounds give one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_ci: Option<[f64; 2]>,
    /// Whether the challenger was decisively behind here: the interval wholly below 1, or, with
    /// too few rounds for an interval, every round of it below every round of the reference.
    pub behind: bool,
    /// The ratio's deciding end over the ratio of medians (the interval's upper end; without an
    /// interval, the challenger's highest round over the reference's lowest): the
    /// measurement's resolution here. Absent when the rounds are too few to decide anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted: Option<f64>,
    /// Whether the prediction is behind as a measurement of it would be: the prediction times
    /// the pair's [`Pair::resolution`] below 1 (never, without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_behind: Option<bool>,
}

/// Where the challenger falls behind (or catches up) along the blocking-time axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crossing {
    /// "falls behind" (it is behind from here on) or "catches up" (it stops being behind).
    pub direction: String,
    /// The sweep points it lies between, µs of blocking.
    pub low_us: f64,
    pub high_us: f64,
    /// The estimate, µs: where the ratio's deciding end (its interval's upper end; for the
    /// prediction, the prediction times the measurement's resolution) reaches 1 — its logarithm
    /// interpolated linearly in the logarithm of the blocking time (linearly in the time itself
    /// next to 0). From there on the challenger is, or stops being, decisively behind.
    pub at_us: f64,
    /// True when that end could not be interpolated (a point the rounds could not decide):
    /// `at_us` is then the undecided point, a bound.
    pub bound: bool,
}

/// How far the predictions were from the measurements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    /// Points with both figures (levelled servers only).
    pub points: usize,
    /// The median of measured / predicted.
    pub median_ratio: f64,
    /// The median and the largest factor between the two, whichever is larger (>= 1).
    pub median_factor: f64,
    pub worst_factor: f64,
    /// The point of the worst factor, as the tables name it.
    pub worst_at: String,
}
