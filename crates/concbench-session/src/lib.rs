//! The run: how many rounds each variant gets, in what order, until when.
//!
//! The unit of evidence is the round — one fresh worker process calibrating, warming up and
//! sampling one variant. A run is a sequence of passes; each pass measures one round of every
//! variant it includes, in a shuffled order that keeps the variants a verdict compares next to
//! each other ([`schedule`]), so a ratio can be taken pass by pass and the machine's slow drift
//! cancels. The base passes give the variants a verdict uses their first rounds, then the others
//! one each while the budget beside a reserve for adaptive rounds lasts, cheapest first; then the
//! verdicts are judged, and the variants of every undecided check get more passes until it is
//! decided, a variant reaches its cap, or the run's budget is spent ([`plan`]). Before the first pass the run waits, bounded,
//! for the machine to settle ([`settle`]); every round records how much CPU other processes and
//! the hypervisor took around it, and a round taken under interference is left out and replaced
//! ([`monitor`]). Finally every variant's rounds are summarised, passed through the validation
//! gate, and judged.
//!
//! Nothing here needs the command line: a [`RunRequest`] says what to run (mode, plan,
//! pinning, settings), [`selection`] picks the variants from a [`Registry`], [`run`] runs
//! them and returns the finished result document with the run's statistics; [`RoundRunner`]
//! measures one round (a worker process in production, a fake in tests), [`Machine`] reads the
//! clock and the CPU counters. Every run policy lives here: the plan, the worker's time limit,
//! the steal warning, the check of the claims' selectors.

mod assemble;
mod closing;
pub mod machine;
pub mod monitor;
mod passes;
pub mod plan;
mod request;
mod rig;
mod run;
pub mod runner;
pub mod schedule;
pub mod selection;
pub mod settle;
mod variant;

pub use machine::{Machine, SystemMachine};
pub use passes::run_passes;
pub use plan::RunPlan;
pub use request::RunRequest;
pub use rig::{Finished, Observer, Rig, RunStats};
pub use run::{broken_selectors, run};
pub use runner::{RoundRunner, WorkerRunner};
pub use selection::{Chosen, Registry};
pub use variant::Variant;
