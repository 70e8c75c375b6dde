//! Numbers for people: the one formatter for durations (and memory sizes), used by every
//! renderer, by the verdicts' and the advice's sentences and by the load generator's summary, so
//! that a page never says "µs" in one place and "us" in another.
//!
//! Only display changes: a result document keeps the unit it was recorded in (`us` is a unit
//! id); what people read is scaled to stay readable (`2650 ns` -> `2.65 µs`).

use crate::unit::{ns_per, Unit};

/// A unit as people read it: `us` -> `µs`; every other unit as it is.
pub fn unit_text(unit: &str) -> &str {
    match Unit::parse(unit) {
        Unit::Us => "µs",
        _ => unit,
    }
}

/// Scale a time value to the largest unit keeping it >= 1; `None` for non-time units.
fn time_scale(v: f64, unit: &str) -> Option<(f64, &'static str)> {
    let ns = v * ns_per(unit)?;
    let a = ns.abs();
    // The smallest unit when no larger one keeps it >= 1 (values below a nanosecond, zero).
    let fits = |u: &Unit| u.ns_per().is_some_and(|f| a >= f);
    let to = Unit::TIMES.into_iter().find(fits).unwrap_or(Unit::Ns);
    Some((ns / to.ns_per()?, to.text()?))
}

/// Three significant digits, without scientific notation for everyday magnitudes.
pub fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if a >= 1e6 {
        return format!("{v:.3e}");
    }
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        (2 - a.log10().floor() as i32).clamp(2, 6) as usize
    };
    format!("{v:.decimals$}")
}

/// A value in `unit`, times scaled to stay readable: `2650 ns` -> `2.65 µs`, `171.4 us` ->
/// `171 µs`; other units as they are (`12.0 KiB`).
pub fn value(v: f64, unit: &str) -> String {
    match time_scale(v, unit) {
        Some((scaled, u)) => format!("{} {u}", sig3(scaled)),
        None => format!("{} {}", sig3(v), unit_text(unit)),
    }
}

/// A duration given in nanoseconds, scaled: `10800.0` -> `10.8 µs`.
pub fn nanos(ns: f64) -> String {
    value(ns, "ns")
}

/// A duration given in microseconds, scaled: `5000.0` -> `5.00 ms`.
pub fn micros(us: f64) -> String {
    value(us, "us")
}

/// The factor that scales values in `unit` into the scale of `centre` (1 for non-time units),
/// and that scale's unit text.
fn scale_of(centre: f64, unit: &str) -> (f64, String) {
    match time_scale(centre, unit) {
        Some((scaled, u)) if centre != 0.0 => (scaled / centre, u.to_string()),
        Some((_, u)) => (1.0, u.to_string()),
        None => (1.0, unit_text(unit).to_string()),
    }
}

/// A 95% interval in the scale of its centre value: `[2.61, 2.70] µs`; "no interval" when
/// there were too few values for one.
pub fn interval(centre: f64, ci: Option<[f64; 2]>, unit: &str) -> String {
    let Some([lo, hi]) = ci else {
        return "no interval".to_string();
    };
    let (f, u) = scale_of(centre, unit);
    format!("[{}, {}] {u}", sig3(lo * f), sig3(hi * f))
}

/// An estimate with its interval, as verdicts and summaries print it: `2.65 µs [2.61, 2.70]`,
/// `0.93x [0.89, 0.97]` for ratios, `2.65 µs, no interval` without one.
pub fn measured(estimate: f64, ci: Option<[f64; 2]>, unit: &str) -> String {
    let (f, u) = scale_of(estimate, unit);
    let centre = if u == "x" {
        format!("{}x", sig3(estimate * f))
    } else {
        format!("{} {u}", sig3(estimate * f))
    };
    match ci {
        Some([lo, hi]) => format!("{centre} [{}, {}]", sig3(lo * f), sig3(hi * f)),
        None => format!("{centre}, no interval"),
    }
}

/// A difference that cannot be told from zero, as people read it: "≤ 3.76 µs" (the upper end
/// of its interval, bounded at zero), "≈ 0" without an interval. Never a bare "0 ns", which
/// would read as a measured zero.
pub fn at_most(ci: Option<[f64; 2]>, unit: &str) -> String {
    match ci {
        Some([_, hi]) => format!("≤ {}", value(hi, unit)),
        None => "≈ 0".to_string(),
    }
}

/// The display unit for values up to `max` in `unit`: `(factor, unit)` so that `v * factor` is
/// in the returned unit. Time units scale (ns -> µs -> ms -> s); others stay as they are.
pub fn display_unit(max: f64, unit: &str) -> (f64, String) {
    scale_of(max, unit)
}

/// A time value in seconds; `None` for non-time units.
pub fn seconds(v: f64, unit: &str) -> Option<f64> {
    ns_per(unit).map(|f| v * f / 1e9)
}

/// A memory size given in KiB, in the largest binary unit that keeps it >= 1: `0.497 KiB`,
/// `28.1 KiB`, `1.50 MiB`.
pub fn kib(kib: f64) -> String {
    if kib.abs() >= 1024.0 * 1024.0 {
        format!("{} GiB", sig3(kib / 1024.0 / 1024.0))
    } else if kib.abs() >= 1024.0 {
        format!("{} MiB", sig3(kib / 1024.0))
    } else {
        format!("{} KiB", sig3(kib))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_scaled_and_spelled_one_way() {
        assert_eq!(value(2650.0, "ns"), "2.65 µs");
        assert_eq!(value(250.0, "ns"), "250 ns");
        assert_eq!(value(1.5e9, "ns"), "1.50 s");
        assert_eq!(value(20312.0, "ms"), "20.3 s");
        assert_eq!(value(171.4, "us"), "171 µs");
        assert_eq!(value(0.5, "us"), "500 ns");
        assert_eq!(nanos(10_800.0), "10.8 µs");
        assert_eq!(micros(5000.0), "5.00 ms");
        for text in [value(171.4, "us"), micros(3.0), measured(40.0, None, "us")] {
            assert!(!text.contains("us"), "{text}");
        }
    }

    #[test]
    fn other_units_stay_as_recorded() {
        assert_eq!(value(12.0, "KiB"), "12.0 KiB");
        assert_eq!(value(23936.9, "req/s"), "23937 req/s");
        assert_eq!(unit_text("us"), "µs");
        assert_eq!(unit_text("KiB"), "KiB");
    }

    #[test]
    fn intervals_take_the_scale_of_their_centre() {
        assert_eq!(
            interval(2650.0, Some([2610.0, 2700.0]), "ns"),
            "[2.61, 2.70] µs"
        );
        assert_eq!(interval(2650.0, None, "ns"), "no interval");
        assert_eq!(
            measured(171.4, Some([160.0, 1200.0]), "us"),
            "171 µs [160, 1200]"
        );
        assert_eq!(
            measured(0.93, Some([0.89, 0.97]), "x"),
            "0.930x [0.890, 0.970]"
        );
        assert_eq!(measured(1714.0, None, "us"), "1.71 ms, no interval");
    }

    #[test]
    fn sizes_use_binary_units() {
        assert_eq!(kib(0.4971), "0.497 KiB");
        assert_eq!(kib(28.07), "28.1 KiB");
        assert_eq!(kib(1536.0), "1.50 MiB");
        assert_eq!(kib(3.0 * 1024.0 * 1024.0), "3.00 GiB");
    }

    #[test]
    fn small_numbers_keep_three_digits() {
        assert_eq!(sig3(0.0123), "0.0123");
        assert_eq!(sig3(1.0), "1.00");
        assert_eq!(seconds(2.0, "ms"), Some(0.002));
        assert_eq!(seconds(2.0, "KiB"), None);
    }
}
