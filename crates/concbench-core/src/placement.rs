//! Where the units of an experiment run: one CPU, two CPUs, or wherever the scheduler likes.
//!
//! Placement is part of every result (`params.placement`): on a VM a wake-up across CPUs can cost
//! ten times a switch on one CPU, so a number without its placement is not comparable.
//!
//! Two CPUs are not all alike either: SMT siblings share a core, others share a last-level
//! cache, others sit on another CCD or socket. A cross-CPU variant may name the pair it runs on
//! ([`CpuPair`]) and its class ([`PairClass`]), recorded as `params.pair_class`.

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

/// How close two CPUs are, from the machine's topology, closest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairClass {
    /// Two hardware threads of one core (they share its L1 and L2).
    SmtSibling,
    /// Different cores sharing a cache below the last level (a cluster sharing an L2).
    SameCluster,
    /// Different cores sharing the last-level cache (one CCX/CCD, or one socket's L3).
    SameLlc,
    /// One package, no shared cache (another CCX/CCD).
    CrossLlc,
    /// One package, cache sharing unknown (the machine does not describe its caches).
    SamePackage,
    /// Different packages (sockets).
    CrossPackage,
}

impl PairClass {
    /// The string stored in `params.pair_class`.
    pub fn as_str(self) -> &'static str {
        match self {
            PairClass::SmtSibling => "smt-sibling",
            PairClass::SameCluster => "same-cluster",
            PairClass::SameLlc => "same-llc",
            PairClass::CrossLlc => "cross-llc",
            PairClass::SamePackage => "same-package",
            PairClass::CrossPackage => "cross-package",
        }
    }
}

impl std::fmt::Display for PairClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Two CPUs a cross-CPU variant runs on: the harness thread on `cpus[0]`, the partner on
/// `cpus[1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuPair {
    pub cpus: [usize; 2],
    pub class: PairClass,
    /// The NUMA distance between the two CPUs' nodes (10 within a node), when the machine
    /// reports NUMA nodes.
    pub numa_distance: Option<u32>,
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
