//! Choosing CPUs for a placement.

use concbench_core::Placement;

/// The CPUs to use for `placement` from the allowed set, or why it is impossible.
///
/// Prefers the highest-numbered CPUs: CPU 0 usually takes more interrupts and housekeeping.
pub fn choose(placement: Placement, allowed: &[usize]) -> Result<Vec<usize>, String> {
    let need = placement.cpus_needed();
    if allowed.len() < need {
        return Err(format!(
            "{placement} needs {need} CPUs but this process may use only {} ({allowed:?})",
            allowed.len()
        ));
    }
    Ok(allowed.iter().rev().take(need).copied().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_last_cpus() {
        assert_eq!(choose(Placement::SameCpu, &[0, 1, 2]).unwrap(), vec![2]);
        assert_eq!(choose(Placement::CrossCpu, &[0, 1, 2]).unwrap(), vec![2, 1]);
        assert_eq!(
            choose(Placement::Unpinned, &[0]).unwrap(),
            Vec::<usize>::new()
        );
        assert!(choose(Placement::CrossCpu, &[0]).is_err());
    }
}
