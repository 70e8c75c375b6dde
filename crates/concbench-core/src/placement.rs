//! Where the units of an experiment run: one CPU, two CPUs, or wherever the scheduler likes.
//!
//! Placement is part of every result (`params.placement`): on a VM a wake-up across CPUs can cost
//! ten times a switch on one CPU, so a number without its placement is not comparable.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Every unit of the experiment is pinned to the same CPU.
    SameCpu,
    /// The experiment's units are pinned to two different CPUs (the partner on the second one).
    CrossCpu,
    /// Nothing is pinned: the scheduler decides.
    Unpinned,
}

impl Placement {
    /// The string stored in `params.placement`.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::SameCpu => "same-cpu",
            Placement::CrossCpu => "cross-cpu",
            Placement::Unpinned => "unpinned",
        }
    }

    /// How many distinct CPUs this placement needs.
    pub fn cpus_needed(self) -> usize {
        match self {
            Placement::SameCpu => 1,
            Placement::CrossCpu => 2,
            Placement::Unpinned => 0,
        }
    }

    /// Whether the harness pins anything for this placement.
    pub fn is_pinned(self) -> bool {
        !matches!(self, Placement::Unpinned)
    }
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
