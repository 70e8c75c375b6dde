//! The result document (`concbench/result/v1`): what a run measured, documented field by field.
//!
//! `schema/result-v1.schema.json` in the repository is the JSON Schema of this model; tests
//! validate real output against it. Extend it by adding optional fields; never change a field's
//! meaning.

use crate::{host::Host, params::Params};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `settings` key under which `run --label KEY=VALUE` records a run's labels (an object of
/// strings): what a fleet report tells runs of one machine apart by (instance type, rack...).
pub const LABELS_SETTING: &str = "labels";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultDoc {
    /// Always [`crate::SCHEMA_ID`].
    pub schema: String,
    pub tool: Tool,
    pub host: Host,
    /// RFC 3339 start time.
    pub started_at: String,
    /// Wall-clock seconds the whole run took.
    #[serde(default)]
    pub duration_s: f64,
    /// The command line's settings (quick, pin, repeat, only).
    #[serde(default)]
    pub settings: BTreeMap<String, serde_json::Value>,
    pub results: Vec<ResultEntry>,
    /// Variants that could not run here, with the reason.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// Variants that failed, with the error chain.
    #[serde(default)]
    pub failures: Vec<Failure>,
    /// Verdicts on the seed articles' claims.
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// Run-wide warnings (confounders such as a busy machine), each saying what to do.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// True when the run was stopped by Ctrl-C before it finished.
    #[serde(default)]
    pub interrupted: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// One measured variant: an id, its params, and the statistics of its samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultEntry {
    pub id: String,
    pub family: String,
    pub title: String,
    /// What one operation is.
    pub op: String,
    /// Unit of `median`, `ci95`, `min`, `max`, `mad`, `samples`: per operation, always stated.
    pub unit: String,
    pub params: Params,
    /// CPUs the variant was pinned to (empty when unpinned).
    #[serde(default)]
    pub cpus: Vec<usize>,
    /// Operations per sample (after calibration).
    pub iterations: u64,
    #[serde(flatten)]
    pub summary: Summary,
    /// One value per repetition, per operation, in `unit`.
    pub samples: Vec<f64>,
    /// Per-operation counters (`voluntary_switches_per_op`, ...) and experiment metrics,
    /// each the median over repetitions.
    pub counters: BTreeMap<String, f64>,
    /// When a method overhead was measured and subtracted: what and how much.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Overhead>,
    /// What the user should know about this number, each saying what to do about it.
    pub warnings: Vec<String>,
    /// Facts about what was measured that are not parameters, e.g. `runtime_version` of a probe.
    /// Never used to match results across runs (params are).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub info: BTreeMap<String, String>,
}

/// The statistics of a sample set (see `concbench-stats`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub median: f64,
    /// 95% confidence interval of the median; `None` (JSON `null`) when there are too few
    /// values for a finite interval. Read it through [`ResultEntry::interval`].
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
    pub min: f64,
    pub max: f64,
    /// Median absolute deviation (unscaled).
    pub mad: f64,
    pub mean: f64,
}

/// A subtracted method overhead (e.g. the pipe write+read of a ring of pipes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    pub method: String,
    /// Median overhead per operation, in the result's unit.
    pub median: f64,
    /// The median before subtraction.
    pub raw_median: f64,
    pub samples: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub id: String,
    pub params: Params,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub id: String,
    pub params: Params,
    /// The whole error chain, outermost first.
    pub error: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictKind {
    Confirmed,
    Refuted,
    Depends,
    /// The evidence straddles the rule's margin at the budget spent: neither confirmed nor
    /// refuted. Never read as a refutation.
    Inconclusive,
}

/// A judgement on one claim of a seed article, resting on result ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub claim: String,
    /// Where the claim comes from, e.g. `S0.table` or `S0.create`.
    pub source: String,
    pub verdict: VerdictKind,
    /// Result ids the verdict rests on.
    pub evidence: Vec<String>,
    pub explanation: String,
}

impl ResultEntry {
    /// The 95% interval of the median, when there were enough values for one.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.summary.ci95.map(|[lo, hi]| (lo, hi))
    }
}

impl ResultDoc {
    /// An empty document (no results yet) for a run on `host` that started at `started_at`.
    pub fn new(host: Host, started_at: String) -> Self {
        ResultDoc {
            schema: crate::SCHEMA_ID.to_string(),
            tool: Tool {
                name: "concbench".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            host,
            started_at,
            duration_s: 0.0,
            settings: BTreeMap::new(),
            results: Vec::new(),
            skipped: Vec::new(),
            failures: Vec::new(),
            verdicts: Vec::new(),
            warnings: Vec::new(),
            interrupted: false,
        }
    }

    /// The run's labels (`run --label KEY=VALUE`), from `settings.labels`.
    pub fn labels(&self) -> BTreeMap<String, String> {
        self.settings
            .get(LABELS_SETTING)
            .and_then(|v| v.as_object())
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Results with this id, in document order.
    pub fn find<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a ResultEntry> + 'a {
        self.results.iter().filter(move |r| r.id == id)
    }
}
