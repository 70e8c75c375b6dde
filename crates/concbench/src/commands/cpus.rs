//! `--cpus` lists (`serve`, `load`): every CPU named must be one this process may run on, checked
//! before anything starts, with an error that lists the CPUs there are.

use anyhow::{Context, Result};
use concbench_core::UsageError;

/// A usage error naming `flag` when `requested` holds a CPU this process cannot run on (one
/// that does not exist, or one outside its affinity mask, e.g. under `taskset`).
pub fn check_cpus(flag: &str, requested: &[usize]) -> Result<()> {
    if requested.is_empty() {
        return Ok(());
    }
    let allowed = concbench_sys::allowed_cpus().context("reading this process's CPUs")?;
    check_against(flag, requested, &allowed)
}

fn check_against(flag: &str, requested: &[usize], allowed: &[usize]) -> Result<()> {
    let unknown: Vec<String> = requested
        .iter()
        .filter(|c| !allowed.contains(c))
        .map(usize::to_string)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let example = allowed.first().map_or(0, |c| *c);
    Err(UsageError::new(format!(
        "{flag}: no CPU {} on this machine for this process; its CPUs are {} \
         (for example {flag} {example})",
        unknown.join(", "),
        ranges(allowed)
    ))
    .into())
}

/// Ascending CPU numbers as ranges: `0-3, 6, 8-11`.
fn ranges(cpus: &[usize]) -> String {
    concbench_measure::cgroup::files::format_cpu_list(cpus).replace(',', ", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_the_process_has_pass() {
        assert!(check_against("--cpus", &[0, 1], &[0, 1]).is_ok());
        assert!(check_cpus("--cpus", &[]).is_ok());
        let mine = concbench_sys::allowed_cpus().unwrap();
        assert!(check_cpus("--cpus", &mine).is_ok());
    }

    #[test]
    fn an_unknown_cpu_is_a_usage_error_listing_the_cpus() {
        let err = check_against("--cpus", &[1, 7], &[0, 1, 2, 3, 6]).unwrap_err();
        assert!(concbench_core::error::is_usage_error(&err));
        let text = format!("{err:#}");
        assert!(text.contains("--cpus: no CPU 7 "), "{text}");
        assert!(text.contains("its CPUs are 0-3, 6"), "{text}");
    }

    #[test]
    fn ranges_collapse_runs() {
        assert_eq!(ranges(&[0]), "0");
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
    }
}
