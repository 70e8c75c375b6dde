//! `memory.thread`: K idle OS threads, at the pthread default stack and at 64 KiB. Each checks
//! in at a gate and blocks on it (a futex wait) until released; what it holds is its stack
//! mapping (committed in full, resident only where touched) and kernel memory PSS cannot see.

use super::per_unit::Units;
use crate::support::gate::Gate;
use crate::support::stack::ThreadStack;
use anyhow::{Context, Result};
use concbench_core::{Meta, Params};

const META: Meta = Meta {
    id: "memory.thread",
    family: "memory",
    title: "Memory held by one idle OS thread",
    op: "K threads idle at once; PSS increase of the process per thread (KiB)",
    unit: "KiB",
    expected_switches_per_op: None,
};

pub struct Threads(pub ThreadStack);

/// Create `k` threads of `stack_bytes` that wait at a gate, call `while_held` with how many
/// were created once they all wait, then release and join them. Stops creating at the first
/// failure; `while_held` still runs, and the error is returned with the count.
pub fn hold_threads<T>(
    k: u64,
    stack_bytes: usize,
    while_held: impl FnOnce(u64, Option<std::io::Error>) -> T,
) -> T {
    let gate = Gate::default();
    std::thread::scope(|s| {
        let mut created = 0;
        let mut failure = None;
        for _ in 0..k {
            let spawned = std::thread::Builder::new()
                .stack_size(stack_bytes)
                .spawn_scoped(s, || gate.check_in_and_wait());
            match spawned {
                Ok(_) => created += 1,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        gate.wait_for(created);
        let out = while_held(created, failure);
        gate.open();
        out
    })
}

impl Units for Threads {
    fn meta(&self) -> &'static Meta {
        &META
    }

    fn params(&self) -> Params {
        self.0.params()
    }

    fn is_task(&self) -> bool {
        true
    }

    fn kib_each_estimate(&self) -> u64 {
        64
    }

    fn hold(&self, k: u64, measure: &mut dyn FnMut(&[i32]) -> Result<()>) -> Result<()> {
        hold_threads(k, self.0.bytes(), |created, failure| {
            if let Some(e) = failure {
                return Err(e).context(format!("creating thread {} of {k}", created + 1));
            }
            measure(&[])
        })
    }
}
