//! Which machine a run was measured on, and the one rule for "the same machine": the runs a
//! verdict pools (`verdicts::compatible`) and the history listing's quick filter before any
//! document is parsed (`concbench`'s `pooling`) both use it, so they cannot disagree.
//!
//! Why one rule: they were two (the listing compared host names alone, the verdicts host name
//! and CPU model), so a machine renamed onto new hardware passed the one and failed the other.

use crate::Host;

/// What identifies a machine in a run's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineIdentity<'a> {
    /// `/etc/machine-id` (or the like), when the run could read one.
    pub machine_id: Option<&'a str>,
    pub hostname: &'a str,
    pub cpu_model: &'a str,
}

impl MachineIdentity<'_> {
    /// The machine id when both have one; else the host name and the CPU model.
    ///
    /// Invariants: symmetric; reflexive.
    pub fn same_as(&self, other: &MachineIdentity<'_>) -> bool {
        match (self.machine_id, other.machine_id) {
            (Some(a), Some(b)) => a == b,
            _ => self.hostname == other.hostname && self.cpu_model == other.cpu_model,
        }
    }
}

impl Host {
    /// This host's identity ([`MachineIdentity::same_as`] compares two).
    pub fn identity(&self) -> MachineIdentity<'_> {
        MachineIdentity {
            machine_id: self.machine_id.as_deref(),
            hostname: &self.hostname,
            cpu_model: &self.cpu_model,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id<'a>(machine_id: Option<&'a str>, hostname: &'a str, cpu: &'a str) -> MachineIdentity<'a> {
        MachineIdentity {
            machine_id,
            hostname,
            cpu_model: cpu,
        }
    }

    #[test]
    fn the_machine_id_decides_when_both_have_one() {
        assert!(id(Some("a"), "h1", "x").same_as(&id(Some("a"), "h2", "y")));
        assert!(!id(Some("a"), "h", "x").same_as(&id(Some("b"), "h", "x")));
    }

    #[test]
    fn without_both_ids_the_host_name_and_cpu_model_decide() {
        assert!(id(None, "h", "x").same_as(&id(Some("a"), "h", "x")));
        // Regression: the history listing compared host names alone, the verdicts name and
        // model, so a host renamed onto other hardware passed one filter and failed the other.
        assert!(!id(None, "h", "x").same_as(&id(None, "h", "y")));
        assert!(!id(None, "h1", "x").same_as(&id(None, "h2", "x")));
    }

    #[test]
    fn same_as_is_symmetric_and_reflexive() {
        let ids = [
            id(Some("a"), "h", "x"),
            id(Some("b"), "h", "x"),
            id(None, "h", "x"),
            id(None, "h", "y"),
            id(None, "g", "x"),
        ];
        for a in &ids {
            assert!(a.same_as(a));
            for b in &ids {
                assert_eq!(a.same_as(b), b.same_as(a), "{a:?} {b:?}");
            }
        }
    }
}
