//! The result document (`concbench/result/v1`): what a run measured, documented field by field.
//!
//! `schema/result-v1.schema.json` in the repository is the JSON Schema of this model; tests
//! validate real output against it. Extend it by adding optional fields; never change a field's
//! meaning.

use crate::{host::Host, params::Params, run_warning::RunWarnings};
// Their own files, so that `pooled.rs` (which `ResultDoc` holds) does not import this one back.
pub use crate::mode::Mode;
pub use crate::verdict_kind::{Judged, VerdictKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `settings` key under which `run --label KEY=VALUE` records a run's labels (an object of
/// strings): what a fleet report tells runs of one machine apart by (instance type, rack...).
pub const LABELS_SETTING: &str = "labels";

/// The `settings` key under which `run --hold-awake` records how the CPUs were held out of deep
/// idle: `{"held": bool, "method": "cpu_dma_latency" | "spinner" | null, "note": "..."}`.
pub const HOLD_AWAKE_SETTING: &str = "hold_awake";

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
    /// Variants whose measurement cannot be right (a negative time, a per-operation figure
    /// from too few operations, a placement its CPUs contradict): shown with the reason, never
    /// judged, never compared with a published figure.
    #[serde(default)]
    pub invalid: Vec<Invalid>,
    /// Verdicts on the seed articles' claims.
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// Run-wide warnings (confounders such as a busy machine), each saying what to do: in JSON
    /// `warnings` (their sentences) and `warning_kinds` (the same, typed; see
    /// [`crate::run_warning`]).
    #[serde(flatten)]
    pub warnings: RunWarnings,
    /// True when the run was stopped by Ctrl-C before it finished.
    #[serde(default)]
    pub interrupted: bool,
    /// The claims judged over this run and the compatible stored runs of its host (absent with
    /// `run --alone`, without a history, or in documents from before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::pooled::History>,
    /// What `concbench capacity` found: units per model and the limit that stopped each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<crate::capacity::Capacity>,
    /// The CPU limit the run was under (`--cpus`), what each runtime detected, the throttling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<crate::container::Container>,
    /// The crossover sweep checked against `advise`'s predictions (`concbench crossover`, or a
    /// run of `server.crossover`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossover: Option<crate::crossover::Crossover>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// Which build measured: the first 16 hex digits of the SHA-256 of the executable (the
    /// version is the same for every commit between releases). Absent in older documents and
    /// where the executable could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
}

/// The build id [`ResultDoc::new`] records, set once by the program that measures
/// ([`set_build`]); this crate never reads the executable itself.
static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Records the running build's id for every document made after it (the first call wins).
pub fn set_build(id: String) {
    let _ = BUILD.set(id);
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
    /// One value per sample (every round's samples, in order), per operation, in `unit`, as
    /// measured: for a result that subtracts a baseline, before the subtraction (the baseline's
    /// samples are in `overhead.samples`).
    pub samples: Vec<f64>,
    /// The rounds: each a fresh worker process measuring this variant. The unit of evidence:
    /// `median`, `ci95`, `min`, `max`, `mad` and `mean` are over the rounds' values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Round>,
    /// How much the value moves between rounds and within one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// Separate modes among the rounds' values (only when there is more than one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<Mode>,
    /// Per-operation counters (`voluntary_switches_per_op`, ...) and experiment metrics,
    /// each the median over repetitions.
    pub counters: BTreeMap<String, f64>,
    /// When a method overhead was measured and subtracted: what and how much.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Overhead>,
    /// Which quantity `median`, `ci95`, `min`, `max`, `mad` and `mean` hold, fixed by the id and
    /// params: the same in every run. Read it through [`ResultEntry::quantity`] (documents from
    /// before the field say it through `overhead`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<Quantity>,
    /// What the user should know about this number, each saying what to do about it.
    pub warnings: Vec<String>,
    /// Facts about what was measured that are not parameters, e.g. `runtime_version` of a probe.
    /// Never used to match results across runs (params are).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub info: BTreeMap<String, String>,
}

/// Which quantity a result's statistics hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// The figure as measured.
    Measured,
    /// The measured figure minus a baseline measured interleaved with it (`overhead.method`
    /// says what), round by round: always the difference, also when it cannot be told from
    /// zero (`overhead.distinguishable` false; its median and interval are then bounded at zero
    /// and no check decides on it). `min`, `max` and `mean` are over the rounds' differences
    /// and may be below zero; `samples` are as measured, before the subtraction.
    Difference,
}

impl Quantity {
    /// "the difference" / "the figure as measured", for sentences that set two apart.
    pub fn describe(self) -> &'static str {
        match self {
            Quantity::Measured => "the figure as measured",
            Quantity::Difference => "the difference from a subtracted baseline",
        }
    }
}

/// One round: a fresh worker process's calibration, warm-up and samples of one variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// The pass of the run this round belongs to. Rounds of different variants in the same pass
    /// were measured back to back (in shuffled order) and are compared in pairs.
    pub pass: usize,
    /// The median of the round's samples, per operation, in the result's unit (before any
    /// baseline is subtracted).
    pub value: f64,
    /// The median of the baseline measured interleaved in the same round, when the result is a
    /// difference (see [`Overhead`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    /// Samples the round took.
    pub samples: usize,
    /// Operations per sample.
    pub iterations: u64,
    /// Median absolute deviation of the round's samples relative to their median.
    pub within_spread: f64,
    /// Each counter's median over the round's samples.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, f64>,
    /// CPUs' worth of time other processes used around this round (0 = none, 1 = a whole CPU),
    /// over a window of at least a second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<f64>,
    /// Share of CPU time the hypervisor stole around this round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal: Option<f64>,
    /// Seconds from starting the worker to its report.
    #[serde(default)]
    pub wall_s: f64,
    /// Seconds of `wall_s` the round's setup spent on what later rounds reuse (the io data
    /// files it created for the run): a replay of the run prices its later rounds without them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prepared_s: f64,
    /// Why the round should be left out of the statistics (taken under interference), if it
    /// should; it is, when enough clean rounds remain (see [`usable_rounds`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// The warm-up run before this round when the round started its server (requests/s per
    /// window from the first request, time to steady state); absent on a round taken on the
    /// server an earlier round started and warmed ([`crate::Experiment::rounds_per_setup`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<crate::Warmup>,
}

/// Whether a figure is zero (left out of the document when it is).
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Round {
    /// The round's value net of its baseline, when it has one.
    pub fn net(&self) -> f64 {
        self.value - self.baseline.unwrap_or(0.0)
    }
}

/// Clean rounds a result needs before the rounds taken under interference are left out: as many
/// as a 95% interval needs. With fewer, leaving the others out would throw away most of the
/// evidence of a run on a busy machine; they are kept, and the result says so.
pub const MIN_CLEAN_ROUNDS: usize = 6;

/// The rounds a result's statistics rest on: the clean ones when there are at least
/// [`MIN_CLEAN_ROUNDS`] (or every round is clean), else all of them.
pub fn usable_rounds(rounds: &[Round]) -> Vec<&Round> {
    let clean: Vec<&Round> = rounds.iter().filter(|r| r.excluded.is_none()).collect();
    if clean.len() >= MIN_CLEAN_ROUNDS.min(rounds.len()) {
        clean
    } else {
        rounds.iter().collect()
    }
}

/// Relative spread (MAD / median) between rounds and within them: a between-round spread far
/// above the within-round one means the machine, not the sampling, moves the figure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub between_rounds: f64,
    /// The median over rounds of each round's own relative spread.
    pub within_round: f64,
}

/// A measurement that cannot be right, kept with the reason instead of being shown as a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invalid {
    pub id: String,
    pub params: Params,
    pub unit: String,
    /// What the measurement would have shown (its median), for the record.
    pub median: Option<f64>,
    /// Why it cannot be right, and what to do about it.
    pub reason: String,
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

/// A subtracted baseline (the pipe write+read of a ring of pipes, Stevens's iterative server),
/// measured paired and interleaved with the result's own samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    pub method: String,
    /// Median baseline per operation over the rounds, in the result's unit.
    pub median: f64,
    /// The median before subtraction (over the rounds' raw values).
    pub raw_median: f64,
    pub samples: Vec<f64>,
    /// Whether the difference can be told from zero: its 95% interval lies above zero (without
    /// one, every round's difference is positive). When not, the result is still the
    /// difference (`quantity: difference`), bounded at zero and said to be "not distinguishable
    /// from zero", and every check that reads it is inconclusive. (Documents from before
    /// `quantity` held the raw figure in the summary then.)
    #[serde(default = "yes")]
    pub distinguishable: bool,
    /// The median difference over the rounds and its 95% interval, bounded at zero as the
    /// summary's (documents from before `quantity` may hold a negative bound here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference_ci95: Option<[f64; 2]>,
}

fn yes() -> bool {
    true
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
    /// The checks the claim's rule makes (one per condition), each with its own decision.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
    /// Share of resamples of the rounds that give the same verdict (1.0: every one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<f64>,
    /// The most rounds any of its checks rests on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<usize>,
    /// The deciding checks this run did not measure (their conditions): the claim is only
    /// partly judged, and its verdict holds among what was measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmeasured: Vec<String>,
    /// How much of the claim was judged: `partly` when `unmeasured` lists deciding checks the
    /// run did not measure (or measured only by concbench's stand-in for the article's own
    /// program). Documents from before the field say it through `unmeasured` alone.
    #[serde(default)]
    pub judged: Judged,
    /// Of `unmeasured`, the checks a quick run cannot measure and a full run does (on the
    /// article's own program or system): what a full run adds to this claim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub full_run: Vec<String>,
}

impl Verdict {
    /// Whether some of the claim's deciding checks were not measured.
    pub fn partly_judged(&self) -> bool {
        self.judged == Judged::Partly || !self.unmeasured.is_empty()
    }

    /// How much of the claim was judged (read from `unmeasured` too, for older documents).
    pub fn judged(&self) -> Judged {
        if self.partly_judged() {
            Judged::Partly
        } else {
            Judged::Whole
        }
    }
}

/// One check of a claim's rule on one condition: the rule with its numbers, what was measured,
/// and the decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The condition checked ("creating and destroying", "COUNT = 1000").
    pub condition: String,
    /// The rule with its numbers ("fork / thread >= 1.15").
    pub rule: String,
    /// The measured quantity (median over rounds) and its 95% interval.
    pub estimate: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    /// The unit of `estimate` ("x" for ratios).
    pub unit: String,
    /// Rounds (paired across the quantity's results) the estimate rests on.
    pub rounds: usize,
    /// Confirmed, refuted or inconclusive for this condition.
    pub decision: VerdictKind,
    /// Why, in a sentence; modes or interference the evidence showed.
    pub note: String,
    /// Shown beside another check of the same facet (another method measuring the same thing),
    /// not deciding the verdict.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub beside: bool,
    /// A guard withheld the decision on this machine (its note says why): more rounds cannot
    /// decide it, so the run gives it none beyond those another check needs, and a check at
    /// one round is not one the budget left short.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withheld: bool,
    /// The interval the decision used: the sequential boundary at this look (plain order
    /// statistics at the level the looks' error budget leaves), wider than `ci95`. Absent in
    /// documents from before the boundary, and at a look that cannot decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<[f64; 2]>,
    /// Present when the estimate lies within one half-width (on logarithms for a positive quantity) of the deciding interval of the
    /// rule's margin: a rerun may well decide otherwise, or not at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_margin: Option<AtMargin>,
}

/// How close a check's estimate is to its rule's margin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AtMargin {
    /// The rule's number nearest the estimate.
    pub margin: f64,
    /// `estimate - margin`, in the check's unit.
    pub distance: f64,
    /// The deciding interval's half-width it is compared with.
    pub half_width: f64,
}

impl ResultEntry {
    /// The 95% interval of the median, when there were enough values for one.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.summary.ci95.map(|[lo, hi]| (lo, hi))
    }

    /// The quantity the statistics hold: the recorded one, or for documents from before the
    /// field, the difference when they subtracted a distinguishable baseline (they reported
    /// the raw figure otherwise).
    pub fn quantity(&self) -> Quantity {
        self.quantity.unwrap_or(match &self.overhead {
            Some(o) if o.distinguishable => Quantity::Difference,
            _ => Quantity::Measured,
        })
    }

    /// Whether the result can be told from zero: always for a figure as measured; for a
    /// difference, when its interval lies above zero.
    pub fn distinguishable(&self) -> bool {
        self.quantity() == Quantity::Measured
            || self.overhead.as_ref().is_none_or(|o| o.distinguishable)
    }

    /// The rounds' values the statistics are over: each usable round's difference from its
    /// baseline for a difference, its value as measured otherwise.
    pub fn round_values(&self) -> Vec<f64> {
        let difference = self.quantity() == Quantity::Difference;
        usable_rounds(&self.rounds)
            .into_iter()
            .map(|r| if difference { r.net() } else { r.value })
            .collect()
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
                build: BUILD.get().cloned(),
            },
            host,
            started_at,
            duration_s: 0.0,
            settings: BTreeMap::new(),
            results: Vec::new(),
            skipped: Vec::new(),
            failures: Vec::new(),
            invalid: Vec::new(),
            verdicts: Vec::new(),
            warnings: RunWarnings::default(),
            interrupted: false,
            history: None,
            capacity: None,
            container: None,
            crossover: None,
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

    /// How `run --hold-awake` held the CPUs ("/dev/cpu_dma_latency held at 0 µs ..."), when it
    /// held them.
    pub fn held_awake(&self) -> Option<&str> {
        let h = self.settings.get(HOLD_AWAKE_SETTING)?;
        if h.get("held")?.as_bool()? {
            h.get("method")?.as_str()
        } else {
            None
        }
    }

    /// Results with this id, in document order.
    pub fn find<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a ResultEntry> + 'a {
        self.results.iter().filter(move |r| r.id == id)
    }
}
