//! Units of measure: the one table of time units and how they convert.
//!
//! A result records its unit as an id (`ns`, `us`, `ms`, `s`, `KiB`, `x`, `switches`...; see
//! [`crate::Meta::unit`]): the harness divides a sample's time into its unit, a probe's answer
//! is converted into it, a published figure is compared in its own unit, and people read it
//! scaled ([`crate::human`]). All of them read the factors here, so a unit means one thing
//! everywhere.

/// A unit id, classified: the time units convert among themselves; every other unit is only
/// ever compared with itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Ns,
    Us,
    Ms,
    S,
    /// Not a time (`KiB`, `x`, `threads`, `switches`...).
    Other,
}

impl Unit {
    /// The time units, largest first (the order readable scaling tries them in).
    pub const TIMES: [Unit; 4] = [Unit::S, Unit::Ms, Unit::Us, Unit::Ns];

    /// The unit a unit id names (`us` and `µs` both name microseconds).
    pub fn parse(id: &str) -> Unit {
        match id {
            "ns" => Unit::Ns,
            "us" | "µs" => Unit::Us,
            "ms" => Unit::Ms,
            "s" => Unit::S,
            _ => Unit::Other,
        }
    }

    /// Nanoseconds in one of this unit; `None` for units that are not times. Integers, so a
    /// conversion of an exact input is exact.
    pub fn ns_per(self) -> Option<f64> {
        match self {
            Unit::Ns => Some(1.0),
            Unit::Us => Some(1e3),
            Unit::Ms => Some(1e6),
            Unit::S => Some(1e9),
            Unit::Other => None,
        }
    }

    /// How people read a time unit (`µs`, not `us`); `None` for other units.
    pub fn text(self) -> Option<&'static str> {
        match self {
            Unit::Ns => Some("ns"),
            Unit::Us => Some("µs"),
            Unit::Ms => Some("ms"),
            Unit::S => Some("s"),
            Unit::Other => None,
        }
    }
}

/// Nanoseconds in one `unit` (an id); `None` for units that are not times.
pub fn ns_per(unit: &str) -> Option<f64> {
    Unit::parse(unit).ns_per()
}

/// Whether a figure in `unit` cannot be negative: a time, a memory size, a ratio of positive
/// quantities (`x`) or a rate (`req/s`, `MiB/s`). Its estimate and interval never go below zero
/// (`concbench_stats::bound_at_zero`), and the validation gate rejects any that does. A share or
/// a count may be a difference of two (ten readers' iowait minus one's): no bound is assumed.
pub fn cannot_be_negative(unit: &str) -> bool {
    ns_per(unit).is_some()
        || matches!(unit, "KiB" | "MiB" | "GiB" | "B" | "bytes" | "x")
        || unit.ends_with("/s")
}

/// Convert `value` from one unit id to another: time units among themselves, any unit to
/// itself; `None` otherwise.
pub fn convert(value: f64, from: &str, to: &str) -> Option<f64> {
    if from == to {
        return Some(value);
    }
    Some(value * ns_per(from)? / ns_per(to)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_units_convert_and_others_only_to_themselves() {
        assert_eq!(convert(1500.0, "ms", "s"), Some(1.5));
        assert_eq!(convert(2.0, "us", "ns"), Some(2000.0));
        assert_eq!(convert(2.0, "µs", "us"), Some(2.0));
        assert_eq!(convert(3.0, "KiB", "KiB"), Some(3.0));
        assert_eq!(convert(3.0, "KiB", "ns"), None);
        assert_eq!(ns_per("switches"), None);
    }

    #[test]
    fn times_sizes_ratios_and_rates_cannot_be_negative_shares_can() {
        for unit in ["ns", "us", "µs", "s", "KiB", "MiB", "x", "req/s", "MiB/s"] {
            assert!(cannot_be_negative(unit), "{unit}");
        }
        for unit in ["share", "tasks", "switches/increment", "%"] {
            assert!(!cannot_be_negative(unit), "{unit}");
        }
    }

    #[test]
    fn the_time_units_are_listed_largest_first() {
        let factors: Vec<f64> = Unit::TIMES.iter().filter_map(|u| u.ns_per()).collect();
        assert!(factors.windows(2).all(|w| w[0] > w[1]), "{factors:?}");
        assert_eq!(factors.len(), 4);
    }
}
