//! Whether a batch of units fits under this machine's limits, checked in `supported()` before
//! experiments that hold hundreds or thousands of processes or threads at once: better a skipped
//! variant with a reason than a failed fork — or another program of the user's failing because
//! we took the last slots.

use concbench_core::{Host, Support};
use concbench_measure::headroom::{memory_available_kib, task_headroom, tightest, Headroom};

/// Share of each task limit's free room that is never used (and at least 64 tasks).
pub const TASK_MARGIN: f64 = 0.1;

/// Share of available memory a batch may take.
pub const MEMORY_SHARE: f64 = 0.5;

/// The tightest task limit after the margin, if any limit is known.
pub fn task_room(host: &Host) -> Option<Headroom> {
    tightest(&task_headroom(host), TASK_MARGIN)
}

/// `Support::No` with the limit's name when `units` more tasks would not fit.
pub fn tasks_fit(host: &Host, units: u64) -> Support {
    match task_room(host) {
        Some(room) if room.free < units => Support::No(format!(
            "needs {units} more processes/threads, but {} leaves room for only {} (keeping \
             {:.0}% free for other programs): raise the limit to run it",
            room.limit,
            room.free,
            TASK_MARGIN * 100.0
        )),
        _ => Support::Yes,
    }
}

/// `Support::No` when `units` units of about `kib_each` would take more than half of the
/// memory available now.
pub fn memory_fits(units: u64, kib_each: u64) -> Support {
    let need = units.saturating_mul(kib_each);
    match memory_available_kib() {
        Some(avail) if need as f64 > avail as f64 * MEMORY_SHARE => Support::No(format!(
            "needs about {} MiB for {units} units but only {} MiB is available (using at most \
             half): free memory to run it",
            need / 1024,
            avail / 1024
        )),
        _ => Support::Yes,
    }
}

/// The first refusal among `checks`, or `Support::Yes`.
pub fn all(checks: impl IntoIterator<Item = Support>) -> Support {
    checks
        .into_iter()
        .find(|s| matches!(s, Support::No(_)))
        .unwrap_or(Support::Yes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_batches_are_refused_with_the_limit_named() {
        let host = concbench_measure::host::collect();
        assert_eq!(tasks_fit(&host, 10), Support::Yes);
        match tasks_fit(&host, u64::MAX / 2) {
            Support::No(reason) => assert!(reason.contains("raise"), "{reason}"),
            Support::Yes => panic!("an absurd batch fits"),
        }
        assert!(matches!(memory_fits(1 << 40, 1 << 20), Support::No(_)));
        assert_eq!(memory_fits(1, 1), Support::Yes);
        assert_eq!(all([Support::Yes, memory_fits(1, 1)]), Support::Yes);
    }
}
