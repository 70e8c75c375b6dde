//! `memory.coroutine`: K stackful coroutines (corosensei), each on its own mapped stack with a
//! guard page, resumed once so each sits suspended at its first yield, as an idle coroutine
//! waiting for IO would.

use super::per_unit::Units;
use anyhow::{bail, Result};
use concbench_core::{Meta, Params};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};

const META: Meta = Meta {
    id: "memory.coroutine",
    family: "memory",
    title: "Memory held by one idle stackful coroutine",
    op: "K coroutines suspended at once; PSS increase of the process per coroutine (KiB)",
    unit: "KiB",
    expected_switches_per_op: None,
};

pub struct Coroutines {
    stack_kib: u64,
}

impl Coroutines {
    pub fn new(stack_kib: u64) -> Self {
        Self { stack_kib }
    }
}

impl Units for Coroutines {
    fn meta(&self) -> &'static Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new().with("stack_kib", self.stack_kib)
    }

    fn is_task(&self) -> bool {
        false
    }

    fn kib_each_estimate(&self) -> u64 {
        self.stack_kib + 8
    }

    fn hold(&self, k: u64, measure: &mut dyn FnMut(&[i32]) -> Result<()>) -> Result<()> {
        let mut held = Vec::with_capacity(k as usize);
        for _ in 0..k {
            let stack = DefaultStack::new((self.stack_kib * 1024) as usize)?;
            let mut co = Coroutine::with_stack(stack, |yielder, ()| yielder.suspend(()));
            if let CoroutineResult::Return(()) = co.resume(()) {
                bail!("a coroutine returned before its first yield");
            }
            held.push(co);
        }
        measure(&[])?;
        // Finish each one, so it unwinds nothing and its stack is unmapped on drop.
        for mut co in held {
            if let CoroutineResult::Yield(()) = co.resume(()) {
                bail!("a coroutine yielded twice");
            }
        }
        Ok(())
    }
}
