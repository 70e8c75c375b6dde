//! CPU affinity of the calling thread: which CPUs it may run on.

use anyhow::{Context, Result};
use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};

/// CPUs the calling thread may run on, ascending.
pub fn allowed_cpus() -> Result<Vec<usize>> {
    let set = sched_getaffinity(None).context("sched_getaffinity")?;
    Ok((0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect())
}

/// Pin the calling thread to exactly `cpu`.
pub fn pin_current_thread(cpu: usize) -> Result<()> {
    set_current_thread(&[cpu])
}

/// Allow the calling thread on exactly `cpus`.
pub fn set_current_thread(cpus: &[usize]) -> Result<()> {
    let mut set = CpuSet::new();
    for &c in cpus {
        set.set(c);
    }
    sched_setaffinity(None, &set).with_context(|| format!("sched_setaffinity to CPUs {cpus:?}"))
}

/// Restores the calling thread's previous affinity when dropped.
///
/// Must be dropped on the thread that created it (it is `!Send` for that reason).
pub struct AffinityGuard {
    previous: Vec<usize>,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl AffinityGuard {
    /// Pin the calling thread to `cpus` (nothing when empty) until the guard drops.
    pub fn pin(cpus: &[usize]) -> Result<Self> {
        let previous = allowed_cpus()?;
        if !cpus.is_empty() {
            set_current_thread(cpus)?;
        }
        Ok(Self {
            previous,
            _not_send: std::marker::PhantomData,
        })
    }
}

impl Drop for AffinityGuard {
    fn drop(&mut self) {
        // Best effort: the previous set was valid a moment ago.
        let _ = set_current_thread(&self.previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_restores_the_previous_set() {
        let before = allowed_cpus().unwrap();
        {
            let _g = AffinityGuard::pin(&[before[0]]).unwrap();
            assert_eq!(allowed_cpus().unwrap(), vec![before[0]]);
        }
        assert_eq!(allowed_cpus().unwrap(), before);
    }
}
