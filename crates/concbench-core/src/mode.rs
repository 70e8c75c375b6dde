//! One mode of a result's round values: a result whose rounds fall into separate groups (a
//! wake-up from a halted CPU or not) reports each group.

use serde::{Deserialize, Serialize};

/// One mode of a result's round values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mode {
    pub median: f64,
    pub low: f64,
    pub high: f64,
    /// Share of the rounds in this mode (0..=1).
    pub share: f64,
    /// Whether the result's median lies in this mode.
    pub holds_median: bool,
}
