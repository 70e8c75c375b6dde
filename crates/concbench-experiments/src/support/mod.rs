//! Helpers several families share: the cancellable inner loop, auto-reset events, turn
//! hand-overs between two units, partner threads that start pinned and report whether they got
//! ready, and the async runtime; raw descriptors and line channels, sandbox processes, memory
//! shared with forked children, a gate for idle threads, thread stack sizes, and limit checks
//! before big batches. (The state `setup` prepares is held by `concbench_core::Stages`.)

pub mod capacity;
pub mod event;
pub mod fd;
pub mod gate;
pub mod handover;
pub mod lines;
pub mod partner;
mod repeat;
pub mod runtime;
pub mod sandbox;
pub mod shared;
pub mod stack;

pub use repeat::repeat;

/// A run context for unit tests: quick, unpinned, on a fresh cancel token.
#[cfg(test)]
pub(crate) fn test_context() -> concbench_core::RunContext {
    concbench_core::RunContext {
        quick: true,
        smoke: false,
        placement: concbench_core::Placement::Unpinned,
        cpus: vec![],
        cancel: concbench_core::CancelToken::new(),
        host: std::sync::Arc::new(concbench_measure::host::collect()),
        scratch_dir: std::env::temp_dir(),
        options: Default::default(),
    }
}

/// The children forked by the calling thread and not yet reaped (zombies included), as the
/// kernel lists them; empty when none (or when the kernel lacks CONFIG_PROC_CHILDREN).
#[cfg(test)]
pub(crate) fn children_of_this_thread() -> String {
    std::fs::read_to_string("/proc/thread-self/children")
        .unwrap_or_default()
        .trim()
        .to_string()
}
