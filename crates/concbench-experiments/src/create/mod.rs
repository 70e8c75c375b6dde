//! Family `create`: the cost of one unit's full life — create it, run an empty body, reap it —
//! for processes (fork, vfork, posix_spawn, fork+exec), OS threads, stackful coroutines and
//! async tasks; plus the seed S0.create replication (100,000 units).

mod async_task;
mod bulk;
mod coroutine;
mod fork;
mod shape;
mod spawn;
mod thread;
mod vfork;

use crate::support::runtime::Async;
use concbench_core::Experiment;

pub(crate) use bulk::SEED_UNITS_PER_ROUND;

// One creation each, for the anatomy family's parents of growing size.
pub(crate) use fork::{fork_and_reap, Fork};
pub(crate) use spawn::{bare_args, posix_spawn, reap_ok, true_path};
pub(crate) use vfork::{vfork_and_reap, CHILD_STACK};

pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(fork::Fork::single_threaded()),
        Box::new(fork::Fork::once_threaded()),
        Box::new(vfork::Vfork::default()),
        Box::new(spawn::Spawn::posix_spawn()),
        Box::new(spawn::Spawn::fork_exec()),
        Box::new(thread::Thread::default_stack()),
        Box::new(thread::Thread::small_stack()),
        Box::new(coroutine::Coroutine::new(coroutine::StackAlloc::Fresh)),
        Box::new(coroutine::Coroutine::new(coroutine::StackAlloc::Reused)),
        Box::new(Async::new(async_task::AsyncTask)),
        Box::new(bulk::Bulk::processes()),
        Box::new(bulk::Bulk::threads()),
    ]
}
