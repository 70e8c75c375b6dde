//! `switch.channel.coroutine`: two stackful coroutines (corosensei) hand a value back and forth
//! through two one-slot channels, run by a minimal scheduler with a ready queue. One operation is
//! one one-way hand-over: the sender stores the value and wakes the receiver (puts it on the
//! ready queue), then waits for the reply and suspends; the scheduler resumes the woken one.
//!
//! Why it exists: `switch.coroutine` is the bare register swap (a few ns), while a pipe
//! ping-pong between threads is a hand-over that wakes the other side. Comparing the two says
//! more about the methods than the models; this is the coroutine's hand-over, built the way a
//! coroutine runtime's channel and scheduler do it (as `switch.async_task` is tokio's).

use super::pingpong::round_trips;
use anyhow::{bail, Context, Result};
use concbench_core::{Meta, RunContext, RunOutput, SampleTimer, Staged};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine as Coro, CoroutineResult, Yielder};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

const META: Meta = Meta {
    id: "switch.channel.coroutine",
    family: "switch",
    title: "Coroutine hand-over through a channel (corosensei, ready-queue scheduler)",
    op: "one one-way hand-over: a coroutine sends on a channel, wakes the receiver and suspends; \
         the scheduler resumes the receiver",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Coroutine stack size, as in `create.coroutine`.
const STACK_KIB: usize = 64;

/// Sent to the echo coroutine to end it.
const STOP: u64 = u64::MAX;

/// A one-slot channel: the value in flight and the coroutine parked on it, if any.
#[derive(Default)]
struct Channel {
    value: Option<u64>,
    waiter: Option<usize>,
}

/// What the coroutines and the scheduler share: two channels (to the echo, back to the ping)
/// and the ready queue of coroutine indices.
#[derive(Default)]
struct State {
    channels: [Channel; 2],
    ready: VecDeque<usize>,
}

type Shared = Rc<RefCell<State>>;

const TO_ECHO: usize = 0;
const TO_PING: usize = 1;
const PING: usize = 0;
const ECHO: usize = 1;

/// Store `value` and wake the coroutine waiting on the channel.
fn send(state: &Shared, channel: usize, value: u64) {
    let mut s = state.borrow_mut();
    s.channels[channel].value = Some(value);
    if let Some(w) = s.channels[channel].waiter.take() {
        s.ready.push_back(w);
    }
}

/// Take the channel's value, parking coroutine `me` on it (suspending) until there is one.
fn recv(state: &Shared, channel: usize, me: usize, y: &Yielder<(), ()>) -> u64 {
    loop {
        if let Some(v) = state.borrow_mut().channels[channel].value.take() {
            return v;
        }
        state.borrow_mut().channels[channel].waiter = Some(me);
        y.suspend(());
    }
}

type Co = Coro<(), (), (), DefaultStack>;

fn ping(state: Shared, rounds: u64, stack: DefaultStack) -> Co {
    Coro::with_stack(stack, move |y: &Yielder<(), ()>, ()| {
        for i in 0..rounds {
            send(&state, TO_ECHO, i);
            recv(&state, TO_PING, PING, y);
        }
        send(&state, TO_ECHO, STOP);
    })
}

fn echo(state: Shared, stack: DefaultStack) -> Co {
    Coro::with_stack(stack, move |y: &Yielder<(), ()>, ()| loop {
        let v = recv(&state, TO_ECHO, ECHO, y);
        if v == STOP {
            return;
        }
        send(&state, TO_PING, v);
    })
}

/// Resume whichever coroutine is ready until none is; both must have returned by then.
fn schedule(state: &Shared, cos: &mut [Co; 2]) -> Result<()> {
    let mut done = [false; 2];
    loop {
        let next = state.borrow_mut().ready.pop_front();
        let Some(i) = next else { break };
        if let CoroutineResult::Return(()) = cos[i].resume(()) {
            done[i] = true;
        }
    }
    if done != [true; 2] {
        bail!("the scheduler ran out of ready coroutines before both finished");
    }
    Ok(())
}

/// Registered as `Stages<ChannelCoroutine>`: the state is the two stacks, reused by every sample.
pub struct ChannelCoroutine;

impl Staged for ChannelCoroutine {
    /// The stacks between samples; a sample holds them in its coroutines while it runs.
    type State = Option<[DefaultStack; 2]>;

    fn meta(&self) -> &Meta {
        &META
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<Self::State> {
        Ok(Some([
            DefaultStack::new(STACK_KIB * 1024)?,
            DefaultStack::new(STACK_KIB * 1024)?,
        ]))
    }

    fn run(
        &mut self,
        state: &mut Self::State,
        _ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let [a, b] = state.take().context(super::STACK_LOST)?;
        let shared = Shared::default();
        let mut cos = [
            ping(shared.clone(), round_trips(iterations), a),
            echo(shared.clone(), b),
        ];
        // The echo first, so that it is parked on its channel when the ping sends.
        shared.borrow_mut().ready.extend([ECHO, PING]);
        timer.restart();
        let ran = schedule(&shared, &mut cos);
        timer.stop();
        ran?;
        let [p, e] = cos;
        *state = Some([p.into_stack(), e.into_stack()]);
        Ok(RunOutput::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_comes_back_and_both_coroutines_finish() {
        let state = Shared::default();
        let stack = || DefaultStack::new(STACK_KIB * 1024).unwrap();
        let mut cos = [
            ping(state.clone(), 1000, stack()),
            echo(state.clone(), stack()),
        ];
        state.borrow_mut().ready.extend([ECHO, PING]);
        schedule(&state, &mut cos).unwrap();
        let s = state.borrow();
        assert_eq!(s.channels[TO_PING].value, None, "the last reply was taken");
        assert_eq!(s.channels[TO_ECHO].value, None, "the stop was taken");
    }
}
