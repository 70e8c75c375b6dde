//! Family `isolation`: what a crash costs a pool of processes vs a pool of threads (seed
//! S0.table, row "reliability").

mod crash;
mod outcome;
mod process_pool;
mod task;
mod thread_pool;

use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(crash::Crash::new(crash::Model::Process)),
        Box::new(crash::Crash::new(crash::Model::Thread)),
    ]
}
