//! Family `memory`: what one unit costs to hold — a process, an OS thread (default and small
//! stack), a stackful coroutine, an async task — as the increase of the process tree's PSS per
//! unit, with the RSS increase (misleading for forked processes), the commit charge and, for
//! processes and threads, the kernel's own memory beside it.

mod async_task;
mod coroutine;
mod per_unit;
mod process;
pub(crate) mod thread;

use crate::support::stack::ThreadStack;
use concbench_core::Experiment;
use per_unit::{PerUnit, Units};

/// How many units are held at once: per-unit costs at three scales; `--quick` uses 1000.
const UNITS: [u64; 3] = [100, 1000, 10_000];
const QUICK_UNITS: u64 = 1000;
/// Coroutine stacks: the small size coroutine runtimes use.
const COROUTINE_STACK_KIB: u64 = 64;

fn sweep<U: Units + 'static>(make: impl Fn() -> U) -> Vec<Box<dyn Experiment>> {
    UNITS
        .iter()
        .map(|&k| Box::new(PerUnit::new(make(), k, k == QUICK_UNITS)) as Box<dyn Experiment>)
        .collect()
}

pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v = sweep(|| process::Processes);
    v.extend(sweep(|| thread::Threads(ThreadStack::pthread_default())));
    v.extend(sweep(|| thread::Threads(ThreadStack::small())));
    v.extend(sweep(|| coroutine::Coroutines::new(COROUTINE_STACK_KIB)));
    v.extend(sweep(|| async_task::AsyncTasks));
    v
}
