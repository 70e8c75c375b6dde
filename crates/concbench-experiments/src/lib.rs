//! concbench's experiments: one folder per family, one file per experiment.
//!
//! Each experiment implements [`concbench_core::Experiment`]; the harness owns timing,
//! repetition and counters. [`all`] is the registry: every variant concbench knows, in the order
//! a run measures them.

pub mod anatomy;
pub mod contend;
pub mod create;
pub mod io;
pub mod isolation;
pub mod limits;
pub mod memory;
mod pairs;
pub mod probes;
pub mod reference;
mod registry;
pub mod server;
pub mod share;
pub mod support;
pub mod switch;
pub mod syscall;
pub mod workload;

pub use registry::{
    all, at, families, is_opt_in, name_selects, runs_by_default, select, OPT_IN, OPT_IN_IDS,
};
