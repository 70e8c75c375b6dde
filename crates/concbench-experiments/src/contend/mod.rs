//! Family `contend`: seed S1, counting to N — one thread alone, two threads forced to alternate,
//! and T threads contending for one lock (each adding its share of N). Every result is
//! nanoseconds per increment; the replication multiplies it by the seed's N = 100,000,000.

mod alternate;
mod counter;
mod crew;
pub mod lock;
mod single;

use concbench_core::{Experiment, Placement};
use counter::{AtomicCounter, MutexCounter, SpinCounter};

/// The seed's count.
pub const SEED_COUNT: u64 = 100_000_000;

/// The thread counts of `contend.lock`, as in the seed.
pub const LOCK_THREADS: [usize; 2] = [2, 100];

pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = vec![Box::new(single::Single::default())];
    for p in [Placement::SameCpu, Placement::CrossCpu, Placement::Unpinned] {
        v.push(Box::new(alternate::Alternate::new(p)));
    }
    for t in LOCK_THREADS {
        v.push(Box::new(lock::Lock::<MutexCounter>::new(t)));
        v.push(Box::new(lock::Lock::<SpinCounter>::new(t)));
        v.push(Box::new(lock::Lock::<AtomicCounter>::new(t)));
    }
    v
}

/// The note every contend result carries: this run counted to `n`, not to the seed's 1e8.
pub(crate) fn scaled_warning(n: u64) -> String {
    format!(
        "counted to {n} per sample, not to {SEED_COUNT} as seed S1 did: the time per increment \
         is what was measured, and the published comparison multiplies it by 1e8"
    )
}
