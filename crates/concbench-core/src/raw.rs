//! What the harness hands to analysis: the raw samples of one variant, before statistics.

use crate::{experiment::Meta, params::Params, result::Failure, result::Skipped, usage::Usage};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything measured for one variant, unsummarised.
///
/// Serializable so a worker process can hand it to the coordinator; `meta` is static and is
/// restored by the receiver from its own registry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RawMeasurement {
    #[serde(skip)]
    pub meta: Meta,
    /// The variant's params, including `placement`.
    pub params: Params,
    pub cpus: Vec<usize>,
    /// Operations per sample.
    pub iterations: u64,
    /// One value per repetition, per operation, in `meta.unit`.
    pub values: Vec<f64>,
    /// Wall time of each sample, nanoseconds (to judge whether samples were long enough).
    pub sample_ns: Vec<f64>,
    /// Resource usage per operation, one per repetition.
    pub usage_per_op: Vec<Usage>,
    /// Experiment metrics, one value per repetition each.
    pub metrics: BTreeMap<String, Vec<f64>>,
    /// Per-operation overhead samples, interleaved with `values`, when the method has one.
    pub overhead: Option<(String, Vec<f64>)>,
    /// Warnings raised by the experiment or the harness while measuring.
    pub warnings: Vec<String>,
    /// The target minimum sample time the harness calibrated for, nanoseconds.
    pub target_sample_ns: f64,
    /// [`crate::Experiment::info`]: facts that are not parameters (a runtime's version).
    #[serde(default)]
    pub info: BTreeMap<String, String>,
    /// Whether the iteration count was calibrated (one operation is a small unit of work timed
    /// many times per sample) rather than fixed by the experiment (one operation is a batch).
    #[serde(default)]
    pub calibrated: bool,
    /// Seconds of this round's `setup` when it made what later rounds reuse
    /// ([`crate::Experiment::prepared_for_later`]: data files created for the run), timed by the
    /// harness and left out of what the next round costs; 0 otherwise.
    #[serde(default)]
    pub prepared_s: f64,
    /// Seconds this round's `setup` took when it ran in this round, for an experiment whose one
    /// setup serves several rounds ([`crate::Experiment::rounds_per_setup`]); 0 for a round
    /// taken on what an earlier round set up, and for every other experiment.
    #[serde(default)]
    pub setup_s: f64,
    /// The warm-up that `setup` ran before this round, when it ran one (a server started and
    /// warmed to steady state).
    #[serde(default)]
    pub warmup: Option<crate::Warmup>,
}

impl RawMeasurement {
    /// A measurement made of known values, as tests and synthetic documents need: one sample per
    /// value, one iteration per sample, 20 ms per sample (above every target), no counters.
    pub fn from_values(meta: Meta, params: Params, values: Vec<f64>) -> Self {
        let n = values.len();
        RawMeasurement {
            meta,
            params,
            cpus: Vec::new(),
            iterations: 1,
            sample_ns: vec![20e6; n],
            usage_per_op: vec![Usage::default(); n],
            metrics: BTreeMap::new(),
            overhead: None,
            warnings: Vec::new(),
            target_sample_ns: 10e6,
            info: BTreeMap::new(),
            calibrated: false,
            prepared_s: 0.0,
            setup_s: 0.0,
            warmup: None,
            values,
        }
    }
}

/// The harness's answer for one variant.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Measured(Box<RawMeasurement>),
    Skipped(Skipped),
    Failed(Failure),
}

/// What the coordinator knows about one round besides its samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundFacts {
    /// The pass of the run the round belongs to.
    pub pass: usize,
    /// CPUs' worth of time other processes used around the round (over at least a second).
    pub interference: Option<f64>,
    /// Share of CPU time stolen by the hypervisor around the round.
    pub steal: Option<f64>,
    /// Seconds from starting the worker to its report.
    pub wall_s: f64,
    /// Why the round should be left out of the statistics, if it should.
    pub excluded: Option<String>,
}

/// One round of one variant: a fresh worker's raw samples and the coordinator's facts.
#[derive(Debug, Clone)]
pub struct RoundRaw {
    pub raw: RawMeasurement,
    pub facts: RoundFacts,
}
