//! `switch.coroutine`: a user-space switch — a stackful coroutine (corosensei) resumed and
//! suspended again. One operation is one switch (a resume or a suspend), so a round trip is two,
//! like a ping-pong between threads; nothing enters the kernel.

use super::pingpong::round_trips;
use crate::support::Prepared;
use anyhow::{bail, Result};
use concbench_core::{Experiment, Meta, RunContext, RunOutput, SampleTimer};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine as Coro, CoroutineResult, Yielder};

const META: Meta = Meta {
    id: "switch.coroutine",
    family: "switch",
    title: "Coroutine switch (corosensei resume / suspend)",
    op: "one one-way user-space switch (resume into the coroutine, or suspend out of it)",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Coroutine stack size, as in `create.coroutine`.
const STACK_KIB: usize = 64;

#[derive(Default)]
pub struct Coroutine {
    stack: Prepared<DefaultStack>,
}

impl Experiment for Coroutine {
    fn meta(&self) -> &Meta {
        &META
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        self.stack.set(DefaultStack::new(STACK_KIB * 1024)?);
        Ok(())
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let stack = self.stack.take()?;
        // The coroutine suspends every time it is resumed with `true`, and returns on `false`.
        let mut co = Coro::with_stack(stack, |y: &Yielder<bool, ()>, mut go: bool| {
            while go {
                go = y.suspend(());
            }
        });
        timer.restart();
        for _ in 0..round_trips(iterations) {
            if let CoroutineResult::Return(()) = co.resume(true) {
                bail!("the coroutine returned early");
            }
        }
        timer.stop();
        if let CoroutineResult::Yield(()) = co.resume(false) {
            bail!("the coroutine did not finish");
        }
        self.stack.set(co.into_stack());
        Ok(RunOutput::default())
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        self.stack = Prepared::empty();
        Ok(())
    }
}
