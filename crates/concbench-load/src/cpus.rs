//! `--cpus` for the load threads must name CPUs this process may run on: checked when a session
//! opens, so a wrong CPU is a usage error before the first connect rather than a pinning
//! failure after the connections were made.
//!
//! `concbench serve --cpus` is getting a shared CPU-list validator in the command-line crate;
//! this one should merge into it.

use concbench_core::UsageError;

/// Refuse CPUs outside `allowed`, listing the ones that exist for this process.
pub fn check(asked: &[usize], allowed: &[usize]) -> Result<(), UsageError> {
    let missing: Vec<String> = asked
        .iter()
        .filter(|c| !allowed.contains(c))
        .map(usize::to_string)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(UsageError::new(format!(
        "--cpus {}: no such CPU for this process; it may run on CPUs {}",
        missing.join(","),
        ranges(allowed)
    )))
}

/// CPUs as ranges: "0-3,6,8-9".
pub fn ranges(cpus: &[usize]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        while i + 1 < sorted.len() && sorted[i + 1] == sorted[i] + 1 {
            i += 1;
        }
        parts.push(match sorted[i] {
            end if end == start => start.to_string(),
            end => format!("{start}-{end}"),
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_outside_the_allowed_set_are_refused_with_the_list() {
        assert!(check(&[], &[0, 1]).is_ok());
        assert!(check(&[1, 0], &[0, 1]).is_ok());
        let err = check(&[0, 7, 9], &[0, 1, 2, 3, 6]).unwrap_err().to_string();
        assert!(err.contains("--cpus 7,9"), "{err}");
        assert!(err.contains("CPUs 0-3,6"), "{err}");
    }

    #[test]
    fn cpu_lists_read_as_ranges() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[0]), "0");
        assert_eq!(ranges(&[3, 0, 1, 2, 8, 6, 9, 9]), "0-3,6,8-9");
    }
}
