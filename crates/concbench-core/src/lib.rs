//! The vocabulary shared by every concbench crate.
//!
//! Nothing here reads a clock or touches the OS: these are the types that flow one way through
//! the pipeline `experiment -> harness -> raw samples -> statistics -> result model -> renderers`.
//! Experiments implement [`Experiment`]; the harness (in `concbench-measure`) drives them and
//! produces [`ResultEntry`] values collected into a [`ResultDoc`].

pub mod capacity;
pub mod container;
pub mod context;
pub mod crossover;
pub mod error;
pub mod experiment;
pub mod host;
pub mod human;
pub mod machine;
pub mod mode;
pub mod params;
pub mod placement;
pub mod pooled;
pub mod raw;
pub mod result;
pub mod run_warning;
pub mod settings;
pub mod staged;
pub mod unit;
pub mod usage;
pub mod verdict_kind;
pub mod vocab;
pub mod warmup;

pub use context::{CancelToken, RunContext};
pub use error::UsageError;
pub use experiment::{Experiment, Meta, Plan, RunOutput, SampleTimer, Support};
pub use host::Host;
pub use machine::MachineIdentity;
pub use params::Params;
pub use placement::{CpuPair, PairClass, Placement};
pub use pooled::{Drift, History, PooledCheck, PooledVerdict};
pub use raw::{Outcome, RawMeasurement, RoundFacts, RoundRaw};
pub use result::{set_build, usable_rounds, MIN_CLEAN_ROUNDS};
pub use result::{
    AtMargin, Check, Failure, Invalid, Judged, Mode, Overhead, Quantity, ResultDoc, ResultEntry,
    Round, Skipped, Spread, Summary, Tool, Verdict, VerdictKind, HOLD_AWAKE_SETTING,
    LABELS_SETTING,
};
pub use run_warning::{MarginCheck, RunWarning, RunWarnings};
pub use settings::{RoundCaps, RunMode};
pub use staged::{Staged, Stages};
pub use unit::Unit;
pub use usage::Usage;
pub use warmup::Warmup;

/// A calibrated sample times at least this many operations, however slow one is: a figure
/// "per operation" from one or two operations is dominated by whatever surrounds them (the
/// timer, the start of the loop, a wake-up). The harness enforces it; the validation gate
/// rejects a result that does not meet it.
pub const MIN_OPERATIONS_PER_SAMPLE: u64 = 10;

/// The schema identifier written into every result document.
pub const SCHEMA_ID: &str = "concbench/result/v1";
