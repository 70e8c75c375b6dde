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
}

impl RawMeasurement {
    /// Append another round's samples of the same variant (the coordinator measures each variant
    /// in several rounds so slow drift of the machine falls on every variant alike).
    ///
    /// Per-operation values stay comparable even when the rounds calibrated different iteration
    /// counts; `iterations` keeps the smallest. Warnings are united, metrics and overhead samples
    /// concatenated (an overhead series is kept only if every round has one, so values and
    /// overheads stay paired).
    pub fn merge(&mut self, other: RawMeasurement) {
        let had_values = self.values.len();
        self.iterations = self.iterations.min(other.iterations);
        self.values.extend(other.values);
        self.sample_ns.extend(other.sample_ns);
        self.usage_per_op.extend(other.usage_per_op);
        for (name, v) in other.metrics {
            self.metrics.entry(name).or_default().extend(v);
        }
        self.overhead = match (self.overhead.take(), other.overhead) {
            (Some((m, mut a)), Some((_, b))) if a.len() == had_values => {
                a.extend(b);
                Some((m, a))
            }
            _ => None,
        };
        for w in other.warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
        for (k, v) in other.info {
            self.info.entry(k).or_insert(v);
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_rounds_concatenates_samples_and_keeps_overheads_paired() {
        let mut a = RawMeasurement::from_values(Meta::default(), Params::new(), vec![1.0, 2.0]);
        a.overhead = Some(("self-test".into(), vec![0.5, 0.5]));
        a.warnings.push("w1".into());
        let mut b = RawMeasurement::from_values(Meta::default(), Params::new(), vec![3.0]);
        b.overhead = Some(("self-test".into(), vec![0.7]));
        b.iterations = 0;
        b.warnings = vec!["w1".into(), "w2".into()];
        a.merge(b);
        assert_eq!(a.values, vec![1.0, 2.0, 3.0]);
        assert_eq!(a.sample_ns.len(), 3);
        assert_eq!(a.usage_per_op.len(), 3);
        assert_eq!(a.overhead.as_ref().unwrap().1, vec![0.5, 0.5, 0.7]);
        assert_eq!(a.warnings, vec!["w1", "w2"]);
        assert_eq!(a.iterations, 0);
    }

    #[test]
    fn an_overhead_missing_in_one_round_is_dropped_rather_than_misaligned() {
        let mut a = RawMeasurement::from_values(Meta::default(), Params::new(), vec![1.0]);
        a.overhead = Some(("self-test".into(), vec![0.5]));
        a.merge(RawMeasurement::from_values(
            Meta::default(),
            Params::new(),
            vec![2.0],
        ));
        assert!(a.overhead.is_none());
    }
}
