//! The scheduling policy a switch experiment runs under: `other` (the default, CFS/EEVDF) or
//! `fifo` (SCHED_FIFO, as seed S3 intended). SCHED_FIFO needs root or CAP_SYS_NICE; without it
//! the variant is skipped with a reason.
//!
//! Only blocking hand-overs run under SCHED_FIFO: a real-time thread that spins or yields can
//! starve everything else on its CPU.

use anyhow::Result;
use concbench_core::{Host, Support};

/// The real-time priority used: the lowest, enough to run ahead of every SCHED_OTHER task.
pub const FIFO_PRIORITY: i32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sched {
    Other,
    Fifo,
}

impl Sched {
    /// The value of `params.sched`.
    pub fn as_str(self) -> &'static str {
        match self {
            Sched::Other => "other",
            Sched::Fifo => "fifo",
        }
    }

    pub fn supported(self, host: &Host) -> Support {
        match self {
            Sched::Fifo if !host.can_sched_fifo => Support::No(fifo_refusal()),
            _ => Support::Yes,
        }
    }

    /// Put the calling thread under this policy.
    pub fn enter(self) -> Result<()> {
        match self {
            Sched::Other => Ok(()),
            Sched::Fifo => concbench_sys::sched::set_fifo(FIFO_PRIORITY),
        }
    }

    /// Return the calling thread to SCHED_OTHER if [`Sched::enter`] changed it.
    pub fn leave(self) -> Result<()> {
        match self {
            Sched::Other => Ok(()),
            Sched::Fifo => concbench_sys::sched::set_other(),
        }
    }
}

/// Why SCHED_FIFO is refused, with the fix for the binary actually running: an installed
/// concbench is not in `target/release/`.
fn fifo_refusal() -> String {
    let binary = std::env::current_exe()
        .map(|p| shell_word(&p.display().to_string()))
        .unwrap_or_else(|_| "\"$(command -v concbench)\"".to_string());
    concbench_sys::users::fit_root_commands(&format!(
        "needs root or CAP_SYS_NICE with an RLIMIT_RTPRIO above 0 to use SCHED_FIFO: run as \
         root, or `sudo setcap cap_sys_nice+ep {binary}`"
    ))
}

/// `word` as one shell word: quoted when it holds anything beyond a plain path's characters.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._+-".contains(c);
    if word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setcap_hint_names_the_binary_running() {
        let host = Host {
            can_sched_fifo: false,
            ..Host::default()
        };
        let Support::No(reason) = Sched::Fifo.supported(&host) else {
            panic!("SCHED_FIFO refused without the permission");
        };
        let running = std::env::current_exe().unwrap();
        assert!(
            reason.contains(&format!("setcap cap_sys_nice+ep {}", running.display())),
            "{reason}"
        );
        // Not a hard-coded path to a release build (unless that is what runs: `cargo test
        // --release` runs from target/release/deps).
        if !running.to_string_lossy().contains("target/release") {
            assert!(!reason.contains("target/release"), "{reason}");
        }
    }

    #[test]
    fn odd_paths_are_quoted_for_the_shell() {
        assert_eq!(shell_word("/usr/bin/concbench"), "/usr/bin/concbench");
        assert_eq!(shell_word("/opt/my tools/it's"), r"'/opt/my tools/it'\''s'");
    }
}
