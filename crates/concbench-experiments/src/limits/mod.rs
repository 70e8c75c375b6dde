//! Family `limits`: how many units a process can hold — measured within a safe cap, never by
//! exhausting the system.

mod cap;
mod threads;

use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(threads::Threads::default_stack()),
        Box::new(threads::Threads::one_mib()),
    ]
}
