//! Analysis: from raw samples to the answer.
//!
//! * [`entry`] summarises a variant's rounds into a result entry (statistics across rounds,
//!   baseline subtraction, counters, modes).
//! * [`validate`](mod@validate) is the gate every result passes: an impossible number is
//!   reported as invalid with its reason, never shown as a measurement.
//! * [`warnings`] says when a number should not be trusted, and what to do about it.
//! * [`published`] holds the seed articles' figures (`data/published.toml`) and matches them
//!   to measured results.
//! * [`replication`] maps a seed article to the variants that replicate it.
//! * [`verdicts`] judges the seed articles' claims from the measured results.
//! * [`crossover`] finds where two models swap places along a sweep (S0.print).
//! * [`comparison`] sets two runs side by side (`concbench compare`), counting how far a result
//!   moves between runs ([`variation`]); [`gate`] says which comparisons break a `--fail-if`
//!   threshold.
//! * [`anatomy`] takes a hand-over apart layer by layer, with the victim's slowdown, fork against
//!   the parent's size and the kernel's evidence.
//! * [`answer`] is the answer a run gives, computed once for every renderer: unit costs, advice,
//!   verdicts as said, and the figures each check is computed from.
//! * [`advice`] answers "which model costs least for this workload" from measured costs.
//! * [`sweep`] checks `advise`'s model against the crossover sweep of servers: each point's
//!   measured and predicted requests/s, and where each pair of designs crosses.
//!
//! Nothing here reads a clock or formats for a terminal.

pub mod advice;
pub mod anatomy;
pub mod answer;
pub mod comparison;
pub mod crossover;
pub mod entry;
pub mod gate;
pub mod published;
pub mod replication;
pub mod sweep;
mod threshold;
mod toml_json;
pub mod validate;
pub mod variation;
pub mod verdicts;
pub mod warnings;

/// The fewest rounds that give a finite 95% interval.
pub use concbench_stats::MIN_VALUES_95;
pub use entry::build_entry;
pub use validate::validate;

pub mod synthetic;
