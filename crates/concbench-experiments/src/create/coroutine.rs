//! `create.coroutine`: a stackful coroutine (corosensei) created, resumed until it returns, and
//! dropped. With `stack_alloc = fresh` every coroutine maps and unmaps its own stack, as a naive
//! runtime does; with `reused` one stack is recycled, as runtimes with stack pools do.

use anyhow::Result;
use concbench_core::{Experiment, Meta, Params, RunContext, RunOutput, SampleTimer};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine as Coro, CoroutineResult};

const META: Meta = Meta {
    id: "create.coroutine",
    family: "create",
    title: "Stackful coroutine: create + run to completion + drop",
    op: "corosensei Coroutine::with_stack, resume until it returns, drop",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Coroutine stack size: small, as coroutine runtimes use.
const STACK_KIB: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StackAlloc {
    Fresh,
    Reused,
}

pub struct Coroutine {
    alloc: StackAlloc,
    spare: Option<DefaultStack>,
}

impl Coroutine {
    pub fn new(alloc: StackAlloc) -> Self {
        Self { alloc, spare: None }
    }

    fn stack(&mut self) -> Result<DefaultStack> {
        match self.spare.take() {
            Some(s) => Ok(s),
            None => Ok(DefaultStack::new(STACK_KIB * 1024)?),
        }
    }
}

impl Experiment for Coroutine {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        let alloc = match self.alloc {
            StackAlloc::Fresh => "fresh",
            StackAlloc::Reused => "reused",
        };
        Params::new()
            .with("stack_kib", STACK_KIB as u64)
            .with("stack_alloc", alloc)
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        for _ in 0..iterations {
            let mut co = Coro::with_stack(self.stack()?, |_yielder, ()| {});
            match co.resume(()) {
                CoroutineResult::Return(()) => {}
                CoroutineResult::Yield(()) => anyhow::bail!("an empty coroutine yielded"),
            }
            if self.alloc == StackAlloc::Reused {
                self.spare = Some(co.into_stack());
            }
        }
        Ok(RunOutput::default())
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        self.spare = None;
        Ok(())
    }
}
