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

/// How much of a claim a verdict judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judged {
    /// Every deciding check was measured.
    #[default]
    Whole,
    /// Some deciding checks were not: the verdict holds among what was measured.
    Partly,
}

impl Judged {
    /// `Partly` when any deciding check is left unmeasured.
    pub fn from_unmeasured(unmeasured: &[String]) -> Self {
        if unmeasured.is_empty() {
            Judged::Whole
        } else {
            Judged::Partly
        }
    }

    /// A verdict's word with the qualifier: "partly judged" for a partly judged inconclusive
    /// verdict, "partly judged: refuted" for another, the word alone for a whole one.
    pub fn qualify(self, kind: VerdictKind, word: &str) -> String {
        match (self, kind) {
            (Judged::Whole, _) => word.to_string(),
            (Judged::Partly, VerdictKind::Inconclusive) => "partly judged".to_string(),
            (Judged::Partly, _) => format!("partly judged: {word}"),
        }
    }
}
