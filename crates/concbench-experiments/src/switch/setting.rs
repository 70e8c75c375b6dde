//! The variants of an OS-level switch experiment: placement x scheduling policy x working set.
//!
//! Every OS-level switch is measured at three placements (same CPU, two CPUs, unpinned),
//! because on a VM a wake-up across CPUs costs several times a switch on one CPU. Experiments
//! that follow seed S3's method add SCHED_FIFO variants, and the pipe ping-pongs add lmbench
//! lat_ctx's working-set sweep (same CPU only: that is where the two sides evict each other).

use super::sched::Sched;
use concbench_core::{Params, Placement};

/// Every placement an OS-level switch is measured at.
pub const PLACEMENTS: [Placement; 3] =
    [Placement::SameCpu, Placement::CrossCpu, Placement::Unpinned];

/// The working-set sizes (KiB) of the indirect-cost sweep, beyond the plain 0.
pub const WORKING_SETS_KIB: [usize; 4] = [16, 256, 1024, 4096];

/// The subset of [`WORKING_SETS_KIB`] a `--quick` run keeps: one that fits in a core's L2
/// cache and one that does not fit in most.
pub const QUICK_WORKING_SETS_KIB: [usize; 2] = [256, 4096];

/// One variant's setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    pub placement: Placement,
    pub sched: Sched,
    /// KiB each side reads between switches (0: none).
    pub working_set_kib: usize,
    /// Whether `--quick` keeps this variant.
    pub in_quick: bool,
}

impl Setting {
    /// `params` of the variant (the harness adds `placement`).
    pub fn params(&self) -> Params {
        Params::new()
            .with("sched", self.sched.as_str())
            .with("working_set_kib", self.working_set_kib as u64)
    }
}

/// Which dimensions an experiment sweeps besides placement.
#[derive(Debug, Clone, Copy)]
pub struct Sweep {
    /// SCHED_FIFO variants at every placement (`--quick` keeps same-cpu).
    pub fifo: bool,
    /// The working-set sweep, same CPU only.
    pub working_sets: bool,
    /// Whether `--quick` keeps part of the working-set sweep.
    pub quick_working_sets: bool,
}

impl Sweep {
    pub const PLACEMENTS_ONLY: Sweep = Sweep {
        fifo: false,
        working_sets: false,
        quick_working_sets: false,
    };

    /// Every setting of the sweep; the plain one (other, no working set) first at each placement.
    pub fn settings(self) -> Vec<Setting> {
        let plain = |placement, sched, in_quick| Setting {
            placement,
            sched,
            working_set_kib: 0,
            in_quick,
        };
        let mut out: Vec<Setting> = PLACEMENTS
            .iter()
            .map(|&p| plain(p, Sched::Other, true))
            .collect();
        if self.fifo {
            out.extend(
                PLACEMENTS
                    .iter()
                    .map(|&p| plain(p, Sched::Fifo, p == Placement::SameCpu)),
            );
        }
        if self.working_sets {
            out.extend(WORKING_SETS_KIB.iter().map(|&kib| Setting {
                placement: Placement::SameCpu,
                sched: Sched::Other,
                working_set_kib: kib,
                in_quick: self.quick_working_sets && QUICK_WORKING_SETS_KIB.contains(&kib),
            }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_sweep_has_every_placement_policy_and_working_set_once() {
        let all = Sweep {
            fifo: true,
            working_sets: true,
            quick_working_sets: true,
        }
        .settings();
        assert_eq!(all.len(), 3 + 3 + 4);
        let keys: std::collections::HashSet<_> = all
            .iter()
            .map(|s| (s.placement, s.sched, s.working_set_kib))
            .collect();
        assert_eq!(keys.len(), all.len(), "duplicate settings");
        assert_eq!(all[0].params().get_str("sched"), Some("other"));
        assert_eq!(all[0].params().get_f64("working_set_kib"), Some(0.0));
        // The sweep stays on one CPU, under the default policy.
        assert!(all
            .iter()
            .filter(|s| s.working_set_kib > 0)
            .all(|s| s.placement == Placement::SameCpu && s.sched == Sched::Other));
    }

    #[test]
    fn quick_keeps_plain_placements_fifo_same_cpu_and_two_working_sets() {
        let quick: Vec<_> = Sweep {
            fifo: true,
            working_sets: true,
            quick_working_sets: true,
        }
        .settings()
        .into_iter()
        .filter(|s| s.in_quick)
        .map(|s| (s.placement, s.sched, s.working_set_kib))
        .collect();
        assert_eq!(
            quick,
            vec![
                (Placement::SameCpu, Sched::Other, 0),
                (Placement::CrossCpu, Sched::Other, 0),
                (Placement::Unpinned, Sched::Other, 0),
                (Placement::SameCpu, Sched::Fifo, 0),
                (Placement::SameCpu, Sched::Other, 256),
                (Placement::SameCpu, Sched::Other, 4096),
            ]
        );
    }

    #[test]
    fn placements_only_is_three_plain_variants() {
        let s = Sweep::PLACEMENTS_ONLY.settings();
        assert_eq!(s.len(), 3);
        assert!(s
            .iter()
            .all(|s| s.sched == Sched::Other && s.working_set_kib == 0 && s.in_quick));
    }
}
