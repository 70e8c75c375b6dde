//! Why a perf event could not be opened, in words a user can act on.

use std::fmt;

/// The machine's `kernel.perf_event_paranoid` setting.
pub const PARANOID_PATH: &str = "/proc/sys/kernel/perf_event_paranoid";

/// A kind of evidence that is not available here, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable(pub String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unavailable {}

/// The current `perf_event_paranoid` level, when readable.
pub fn paranoid_level() -> Option<i32> {
    std::fs::read_to_string(PARANOID_PATH)
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Why opening a CPU-wide event of `what` failed with `errno`, given the paranoid level.
pub fn open_failure(what: &str, errno: Option<i32>, paranoid: Option<i32>) -> Unavailable {
    let level = paranoid.map_or_else(|| "unknown".to_string(), |p| p.to_string());
    Unavailable(match errno {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) => {
            format!("{what}: unavailable (no PMU)")
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            concbench_sys::users::fit_root_commands(&format!(
            "{what}: not permitted (kernel.perf_event_paranoid = {level}; CPU-wide events need \
             root or CAP_PERFMON, or `sudo sysctl kernel.perf_event_paranoid=0`)"
        ))
        }
        Some(e) => format!(
            "{what}: unavailable (perf_event_open: {})",
            std::io::Error::from_raw_os_error(e)
        ),
        None => format!("{what}: unavailable (perf_event_open failed)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_errno_says_what_to_do() {
        assert_eq!(
            open_failure("hardware counters", Some(libc::ENOENT), Some(2)).0,
            "hardware counters: unavailable (no PMU)"
        );
        let denied = open_failure("scheduler tracepoints", Some(libc::EACCES), Some(2)).0;
        assert!(
            denied.contains("paranoid = 2") && denied.contains("CAP_PERFMON"),
            "{denied}"
        );
        let other = open_failure("x", Some(libc::EMFILE), None).0;
        assert!(other.contains("perf_event_open"), "{other}");
    }
}
