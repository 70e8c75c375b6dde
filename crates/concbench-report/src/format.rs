//! Numbers for people: scaled time units, intervals, counters.

/// A value in `unit` with time units scaled to stay readable: `2650 ns` -> `2.65 µs`.
pub fn value(v: f64, unit: &str) -> String {
    match time_scale(v, unit) {
        Some((scaled, u)) => format!("{} {u}", sig3(scaled)),
        None => format!("{} {unit}", sig3(v)),
    }
}

/// A 95% interval in the scale of its centre value: `[2.61, 2.70] µs`.
/// "[1.2, 1.4] µs"; "no interval" when there were too few values for one.
pub fn interval(centre: f64, ci: Option<[f64; 2]>, unit: &str) -> String {
    let Some(ci) = ci else {
        return "no interval".to_string();
    };
    match time_scale(centre, unit) {
        Some((scaled, u)) => {
            let f = if centre == 0.0 { 1.0 } else { scaled / centre };
            format!("[{}, {}] {u}", sig3(ci[0] * f), sig3(ci[1] * f))
        }
        None => format!("[{}, {}] {unit}", sig3(ci[0]), sig3(ci[1])),
    }
}

/// The display unit for values up to `max` in `unit`: `(factor, unit)` so that `v * factor` is in
/// the returned unit. Time units scale (ns -> µs -> ms -> s); others stay as they are.
pub fn display_unit(max: f64, unit: &str) -> (f64, String) {
    match time_scale(max, unit) {
        Some((scaled, u)) if max != 0.0 => (scaled / max, u.to_string()),
        _ => (1.0, unit.to_string()),
    }
}

/// A time value in seconds; `None` for non-time units.
pub fn seconds(v: f64, unit: &str) -> Option<f64> {
    time_scale(v, unit).map(|_| match unit {
        "ns" => v / 1e9,
        "us" | "µs" => v / 1e6,
        "ms" => v / 1e3,
        _ => v,
    })
}

/// Scale a time value to the largest unit keeping it >= 1; `None` for non-time units.
fn time_scale(v: f64, unit: &str) -> Option<(f64, &'static str)> {
    let ns = match unit {
        "ns" => v,
        "us" | "µs" => v * 1e3,
        "ms" => v * 1e6,
        "s" => v * 1e9,
        _ => return None,
    };
    let a = ns.abs();
    Some(if a >= 1e9 {
        (ns / 1e9, "s")
    } else if a >= 1e6 {
        (ns / 1e6, "ms")
    } else if a >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    })
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

/// A per-operation counter, or "-" when absent.
pub fn counter(v: Option<&f64>) -> String {
    match v {
        Some(v) => sig3(*v),
        None => "-".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_time_units() {
        assert_eq!(value(2650.0, "ns"), "2.65 µs");
        assert_eq!(value(250.0, "ns"), "250 ns");
        assert_eq!(value(1.5e9, "ns"), "1.50 s");
        assert_eq!(value(20312.0, "ms"), "20.3 s");
        assert_eq!(value(12.0, "KiB"), "12.0 KiB");
        assert_eq!(
            interval(2650.0, Some([2610.0, 2700.0]), "ns"),
            "[2.61, 2.70] µs"
        );
    }

    #[test]
    fn small_numbers_keep_three_digits() {
        assert_eq!(sig3(0.0123), "0.0123");
        assert_eq!(sig3(1.0), "1.00");
    }
}
