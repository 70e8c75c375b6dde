//! Resource usage over an interval: the counters that verify a mechanism, not just a time.

use serde::{Deserialize, Serialize};

/// A difference of two resource-usage readings (getrusage or /proc), summed over the units
/// involved. All fields are totals over the interval, not rates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Voluntary context switches (the unit blocked: waited for a pipe, futex, child).
    pub voluntary_switches: f64,
    /// Involuntary context switches (the unit was preempted).
    pub involuntary_switches: f64,
    /// Minor page faults (no IO needed).
    pub minor_faults: f64,
    /// Major page faults (IO needed).
    pub major_faults: f64,
    /// User CPU time, nanoseconds.
    pub user_ns: f64,
    /// System CPU time, nanoseconds.
    pub sys_ns: f64,
}

impl Usage {
    /// Field-wise `self - earlier`, clamped at zero (counters of a reaped child can vanish).
    pub fn since(&self, earlier: &Usage) -> Usage {
        let d = |a: f64, b: f64| (a - b).max(0.0);
        Usage {
            voluntary_switches: d(self.voluntary_switches, earlier.voluntary_switches),
            involuntary_switches: d(self.involuntary_switches, earlier.involuntary_switches),
            minor_faults: d(self.minor_faults, earlier.minor_faults),
            major_faults: d(self.major_faults, earlier.major_faults),
            user_ns: d(self.user_ns, earlier.user_ns),
            sys_ns: d(self.sys_ns, earlier.sys_ns),
        }
    }

    /// Field-wise sum.
    pub fn plus(&self, other: &Usage) -> Usage {
        Usage {
            voluntary_switches: self.voluntary_switches + other.voluntary_switches,
            involuntary_switches: self.involuntary_switches + other.involuntary_switches,
            minor_faults: self.minor_faults + other.minor_faults,
            major_faults: self.major_faults + other.major_faults,
            user_ns: self.user_ns + other.user_ns,
            sys_ns: self.sys_ns + other.sys_ns,
        }
    }

    /// Every field divided by `n` (per-operation figures). `n` must be positive.
    pub fn per(&self, n: f64) -> Usage {
        debug_assert!(n > 0.0);
        Usage {
            voluntary_switches: self.voluntary_switches / n,
            involuntary_switches: self.involuntary_switches / n,
            minor_faults: self.minor_faults / n,
            major_faults: self.major_faults / n,
            user_ns: self.user_ns / n,
            sys_ns: self.sys_ns / n,
        }
    }

    /// The per-operation counter names written into a result's `counters`, with their values.
    pub fn as_counters(&self) -> [(&'static str, f64); 5] {
        [
            ("voluntary_switches_per_op", self.voluntary_switches),
            ("involuntary_switches_per_op", self.involuntary_switches),
            ("minor_faults_per_op", self.minor_faults),
            ("user_ns_per_op", self.user_ns),
            ("sys_ns_per_op", self.sys_ns),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_clamps_negative_differences() {
        let a = Usage {
            voluntary_switches: 5.0,
            ..Default::default()
        };
        let b = Usage {
            voluntary_switches: 7.0,
            ..Default::default()
        };
        assert_eq!(a.since(&b).voluntary_switches, 0.0);
        assert_eq!(b.since(&a).voluntary_switches, 2.0);
    }
}
