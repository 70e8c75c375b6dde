//! Pure statistics over measured samples.
//!
//! Every function here is deterministic (bootstrap resampling takes an explicit seed), reads no
//! clock and does no IO. Inputs are finite `f64` samples; each function states its invariants and
//! `tests/properties.rs` checks them on random inputs.

mod bootstrap;
mod location;
mod outliers;
mod rank_test;
mod summary;

pub use bootstrap::{bootstrap_median_ci, bootstrap_ratio_ci};
pub use location::{geometric_mean, mad, mean, median, quantile, stddev};
pub use outliers::{tukey_outliers, Outliers};
pub use rank_test::mann_whitney_p;
pub use summary::{summarize, Stats};

/// Resamples used for bootstrap intervals: enough for stable 2.5%/97.5% quantiles.
pub const DEFAULT_RESAMPLES: usize = 2000;
/// The seed for bootstrap resampling, fixed so the same samples always give the same interval.
pub const DEFAULT_SEED: u64 = 0x636f_6e63_6265_6e63; // "concbenc"
