//! The vocabulary shared by every concbench crate.
//!
//! Nothing here reads a clock or touches the OS: these are the types that flow one way through
//! the pipeline `experiment -> harness -> raw samples -> statistics -> result model -> renderers`.
//! Experiments implement [`Experiment`]; the harness (in `concbench-measure`) drives them and
//! produces [`ResultEntry`] values collected into a [`ResultDoc`].

pub mod context;
pub mod error;
pub mod experiment;
pub mod host;
pub mod params;
pub mod placement;
pub mod raw;
pub mod result;
pub mod usage;

pub use context::{CancelToken, RunContext};
pub use error::UsageError;
pub use experiment::{Experiment, Meta, Plan, RunOutput, SampleTimer, Support};
pub use host::Host;
pub use params::Params;
pub use placement::Placement;
pub use raw::{Outcome, RawMeasurement};
pub use result::{
    Failure, Overhead, ResultDoc, ResultEntry, Skipped, Summary, Tool, Verdict, VerdictKind,
    LABELS_SETTING,
};
pub use usage::Usage;

/// The schema identifier written into every result document.
pub const SCHEMA_ID: &str = "concbench/result/v1";
