//! Pure statistics over measured values.
//!
//! Every function here is deterministic, reads no clock and does no IO. Inputs are finite `f64`
//! samples; each function states its invariants and `tests/properties.rs` checks them on random
//! inputs; `tests/coverage.rs` checks by simulation that the 95% intervals cover 95% of the time.
//!
//! * [`against_zero`], [`bound_at_zero`]: whether a quantity that cannot be negative can be told
//!   from zero, and its estimate and interval bounded to the values it can take.
//! * [`median_interval`], [`paired_ratio`]: distribution-free intervals for a median and for the
//!   median ratio of paired values (a run's interleaved rounds).
//! * [`shift_ratio`]: B relative to A for two independent samples (two runs), Hodges-Lehmann with
//!   the Mann-Whitney interval; [`with_run_variation`] adds the variation between runs to it.
//! * [`benjamini_hochberg`]: significance over many comparisons.
//! * [`modes`]: separate modes (a wake-up that sometimes finds its CPU halted).
//! * [`projected_half_width`], [`decision_chance`]: how narrow a median's interval would get with
//!   more values, and how likely more values are to decide a check.
//! * [`random_effects`]: a quantity over several runs, the run as the top level (runs, then
//!   rounds), so the interval includes the variation between runs.
//! * [`sequential_interval`], [`sign_boundary`]: the exact distribution-free boundary that keeps
//!   the error of decisions taken at every look within 5%; [`hochberg_step_up`] and
//!   [`holm_step_down`] across a claim's conditions.
//! * [`linear_fit`]: the slope of a line through points with its interval (what each further
//!   unit adds, read at several counts).
//! * [`holds`], [`first_steady`]: whether a server's warm-up series has levelled (its rate and
//!   its JIT's activity), and where.

mod between_runs;
mod bounded;
mod fdr;
mod hierarchy;
mod location;
mod mann_whitney;
mod modes;
mod order_interval;
mod outliers;
mod projection;
mod sequential;
mod shift;
mod slope;
mod steady;
mod summary;

pub use between_runs::with_run_variation;
pub use bounded::{against_zero, bound_at_zero, AgainstZero};
pub use fdr::benjamini_hochberg;
pub use hierarchy::{random_effects, student_t_cdf, student_t_quantile, Pooled};
pub use location::{geometric_mean, mad, mean, median, quantile, stddev};
pub use mann_whitney::mann_whitney_p;
pub use modes::{modes, Mode, MODE_GAP, MODE_MIN_SHARE, MODE_MIN_VALUES};
pub use order_interval::{median_interval, paired_ratio, MIN_VALUES_95};
pub use outliers::{tukey_outliers, Outliers};
pub use projection::{decision_chance, projected_half_width};
pub use sequential::{
    boundary_k, crossing_probability, hochberg_step_up, holm, holm_step_down, pocock_spending,
    sequential_interval, sign_boundary, SEQUENTIAL_ALPHA,
};
pub use shift::{shift_ratio, Shift};
pub use slope::{linear_fit, Slope};
pub use steady::{first_steady, holds, Criterion, NotLevel, Window};
pub use summary::{summarize, Stats};
