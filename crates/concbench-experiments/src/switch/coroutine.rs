//! `switch.coroutine`: a user-space switch — a stackful coroutine (corosensei) resumed and
//! suspended again. One operation is one switch (a resume or a suspend), so a round trip is two,
//! like a ping-pong between threads; nothing enters the kernel.

use super::pingpong::round_trips;
use anyhow::{bail, Context, Result};
use concbench_core::{Meta, RunContext, RunOutput, SampleTimer, Staged};
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

/// Registered as `Stages<Coroutine>`: the state is the stack, reused by every sample.
pub struct Coroutine;

impl Staged for Coroutine {
    /// The stack between samples; a sample holds it in its coroutine while it runs.
    type State = Option<DefaultStack>;

    fn meta(&self) -> &Meta {
        &META
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<Self::State> {
        Ok(Some(DefaultStack::new(STACK_KIB * 1024)?))
    }

    fn run(
        &mut self,
        state: &mut Self::State,
        _ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let stack = state.take().context(super::STACK_LOST)?;
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
        *state = Some(co.into_stack());
        Ok(RunOutput::default())
    }
}
