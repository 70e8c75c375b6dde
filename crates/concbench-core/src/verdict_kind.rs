//! The four outcomes of a claim or a check: confirmed, refuted, depends, inconclusive.

use serde::{Deserialize, Serialize};

/// A claim's or a check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictKind {
    Confirmed,
    Refuted,
    Depends,
    /// The evidence straddles the rule's margin at the budget spent: neither confirmed nor
    /// refuted. Never read as a refutation.
    Inconclusive,
}
