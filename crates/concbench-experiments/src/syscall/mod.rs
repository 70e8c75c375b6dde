//! Family `syscall`: the floor every other cost is compared to.

mod getppid;

use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![Box::new(getppid::Getppid)]
}
