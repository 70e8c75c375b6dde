//! The memory budget: how much memory one model's units may hold. A share of MemAvailable
//! (25% unless told), or a size; never more than 90% of what is available, so the machine keeps
//! memory for everything else while a model grows.

use concbench_core::capacity::Budget;

/// The share of MemAvailable a model may take unless told otherwise.
pub const DEFAULT_SHARE: f64 = 0.25;
/// The most of MemAvailable any budget may be.
pub const MAX_SHARE: f64 = 0.9;

/// What `--memory-budget` asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Asked {
    /// A share of MemAvailable (0.25 for "25%").
    Share(f64),
    Bytes(u64),
}

impl Default for Asked {
    fn default() -> Self {
        Asked::Share(DEFAULT_SHARE)
    }
}

/// "25%", "2GiB", "512MiB", "1.5G", "300M", or plain bytes.
pub fn parse(text: &str) -> Result<Asked, String> {
    let t = text.trim();
    let bad = || {
        format!("'{text}' is not a memory budget: a share of MemAvailable (25%) or a size (2GiB, 512MiB)")
    };
    if let Some(pct) = t.strip_suffix('%') {
        let share: f64 = pct.trim().parse().map_err(|_| bad())?;
        if !(share > 0.0 && share <= MAX_SHARE * 100.0) {
            return Err(format!(
                "'{text}': a share must be above 0% and at most {:.0}% of MemAvailable",
                MAX_SHARE * 100.0
            ));
        }
        return Ok(Asked::Share(share / 100.0));
    }
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" | "kb" => 1024.0,
        "m" | "mib" | "mb" => 1024.0 * 1024.0,
        "g" | "gib" | "gb" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = value * scale;
    if !(bytes.is_finite() && bytes >= 1024.0 * 1024.0) {
        return Err(format!("'{text}': a budget must be at least 1 MiB"));
    }
    Ok(Asked::Bytes(bytes as u64))
}

/// The budget for `asked`, given MemAvailable; an error when it is more than [`MAX_SHARE`] of it.
pub fn choose(asked: Asked, mem_available_kib: u64, flag_given: bool) -> Result<Budget, String> {
    let available = mem_available_kib as f64 * 1024.0;
    let (bytes, source) = match asked {
        Asked::Share(s) => (
            (available * s) as u64,
            format!(
                "{:.0}% of MemAvailable{}",
                s * 100.0,
                if flag_given { "" } else { " (the default)" }
            ),
        ),
        Asked::Bytes(b) => (b, format!("--memory-budget {} MiB", b >> 20)),
    };
    if bytes as f64 > available * MAX_SHARE {
        return Err(format!(
            "--memory-budget: {} MiB is more than {:.0}% of the {} MiB available now; ask for less \
             (for example --memory-budget 25%)",
            bytes >> 20,
            MAX_SHARE * 100.0,
            mem_available_kib >> 10
        ));
    }
    Ok(Budget {
        bytes,
        mem_available_kib,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_sizes_parse() {
        assert_eq!(parse("25%"), Ok(Asked::Share(0.25)));
        assert_eq!(parse("2GiB"), Ok(Asked::Bytes(2 << 30)));
        assert_eq!(parse("512 MiB"), Ok(Asked::Bytes(512 << 20)));
        assert_eq!(parse("1.5G"), Ok(Asked::Bytes(3 << 29)));
        assert!(parse("0%").is_err());
        assert!(parse("95%").is_err());
        assert!(parse("12 parsecs").is_err());
        assert!(parse("10k").unwrap_err().contains("at least 1 MiB"));
    }

    #[test]
    fn the_default_is_a_quarter_of_what_is_available_and_says_so() {
        let b = choose(Asked::default(), 8 << 20, false).unwrap();
        assert_eq!(b.bytes, 2 << 30);
        assert_eq!(b.source, "25% of MemAvailable (the default)");
    }

    #[test]
    fn a_budget_past_nine_tenths_of_what_is_available_is_refused() {
        let e = choose(Asked::Bytes(8 << 30), 8 << 20, true).unwrap_err();
        assert!(e.contains("--memory-budget"), "{e}");
        assert!(choose(Asked::Bytes(1 << 30), 8 << 20, true).is_ok());
    }
}
