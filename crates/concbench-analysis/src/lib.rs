//! Analysis: from raw samples to the answer.
//!
//! * [`entry`] summarises a [`concbench_core::RawMeasurement`] into a result entry (statistics,
//!   overhead subtraction, counters).
//! * [`warnings`] says when a number should not be trusted, and what to do about it.
//! * [`published`] holds the seed articles' figures (`data/published.toml`) and matches them
//!   to measured results.
//! * [`verdicts`] judges the seed articles' claims from the measured results.
//! * [`crossover`] finds where two models swap places along a sweep (S0.print).
//! * [`comparison`] sets two runs side by side (`concbench compare`).
//! * [`anatomy`] takes a hand-over apart layer by layer, with the victim's slowdown, fork against
//!   the parent's size and the kernel's evidence.
//! * [`advice`] answers "which model costs least for this workload" from measured costs.
//!
//! Nothing here reads a clock or formats for a terminal.

pub mod advice;
pub mod anatomy;
pub mod comparison;
pub mod crossover;
pub mod entry;
pub mod published;
pub mod verdicts;
pub mod warnings;

pub use entry::build_entry;

pub mod synthetic;
