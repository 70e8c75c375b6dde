//! Family `limits`: how many units a process can hold — measured within a safe cap, never by
//! exhausting the system — and how many connections one local address can (seed S2).

mod cap;
mod connections;
mod connections_plan;
mod threads;

use crate::support::stack::ThreadStack;
use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(threads::Threads(ThreadStack::pthread_default())),
        Box::new(threads::Threads(ThreadStack::one_mib())),
        Box::new(connections::Connections),
    ]
}
