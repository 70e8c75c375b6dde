//! Family `limits`: how many units a process can hold — measured within a safe cap, never by
//! exhausting the system.

mod cap;
mod threads;

use crate::support::stack::ThreadStack;
use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(threads::Threads(ThreadStack::pthread_default())),
        Box::new(threads::Threads(ThreadStack::one_mib())),
    ]
}
