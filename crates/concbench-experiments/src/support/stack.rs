//! Thread stack sizes the experiments compare, named as they appear in `params.stack`.
//!
//! Always set explicitly when creating a thread, because Rust's own default (2 MiB) is neither
//! what pthread_create gives nor what small-stack servers use.

use concbench_core::Params;

/// The small stack: enough for an idle or empty body, and what thread-per-connection servers use.
pub const SMALL_STACK_KIB: u64 = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadStack {
    /// `params.stack`: "default", "small", "1mib".
    pub kind: &'static str,
    pub kib: u64,
}

impl ThreadStack {
    /// What pthread_create gives (derived from RLIMIT_STACK, usually 8 MiB).
    pub fn pthread_default() -> Self {
        Self {
            kind: "default",
            kib: concbench_measure::host::default_thread_stack() / 1024,
        }
    }

    pub fn small() -> Self {
        Self {
            kind: "small",
            kib: SMALL_STACK_KIB,
        }
    }

    /// The seed's `ulimit -s 1024`.
    pub fn one_mib() -> Self {
        Self {
            kind: "1mib",
            kib: 1024,
        }
    }

    pub fn bytes(&self) -> usize {
        (self.kib * 1024) as usize
    }

    /// `stack` and `stack_kib`.
    pub fn params(&self) -> Params {
        Params::new()
            .with("stack", self.kind)
            .with("stack_kib", self.kib)
    }
}
