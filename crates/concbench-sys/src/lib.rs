//! Thin wrappers over the Unix calls concbench's experiments and harness share.
//!
//! `unsafe` is concentrated here, each block with a `// SAFETY:` line, so experiments can stay
//! safe code. Everything is Linux-first: concbench measures Linux kernels.

pub mod affinity;
pub mod child;
pub mod end_tree;
pub mod owner;
pub mod pagecache;
pub mod process;
pub mod reaper;
pub mod sched;
pub mod stdio;
pub mod tied;
pub mod users;
pub mod via_libc;

pub use affinity::{allowed_cpus, pin_current_thread, AffinityGuard};
pub use child::{fork_child, Child};
pub use end_tree::kill_tree;
pub use tied::{end_group, join_cgroup, spawn_tied, spawn_tied_in};
