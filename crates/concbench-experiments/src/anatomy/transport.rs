//! `anatomy.transport`: a hand-over's system calls in one thread, with nobody to wake — the
//! layer between the bare system-call floor and a real switch.
//!
//! A one-way hand-over through pipes is one `write` (which wakes the peer) plus one `read`
//! (which blocks until the turn comes back); through a futex, one `FUTEX_WAKE` plus one
//! `FUTEX_WAIT`. Here one thread makes the same two calls with nothing to switch to: it writes a
//! byte into a pipe and reads it back, or wakes a futex nobody waits on and waits on it with a
//! value it does not hold (so the wait returns at once, EAGAIN). What a ping-pong costs beyond
//! this is the switch itself.

use crate::support::handover::{pipe_pair, Endpoint, PipeEnd};
use crate::support::repeat;
use anyhow::{bail, Context, Result};
use concbench_core::{
    Experiment, Meta, Params, RunContext, RunOutput, SampleTimer, Staged, Stages,
};
use concbench_sys::via_libc;
use std::sync::atomic::AtomicU32;

pub const ID: &str = "anatomy.transport";
/// `params` key: the mechanism (`pipe` or `futex`).
pub const MECHANISM: &str = "mechanism";

const META: Meta = Meta {
    id: ID,
    family: super::FAMILY,
    title: "A hand-over's two system calls in one thread (pipe write+read, or futex wake+wait)",
    op: "pipe: write 1 byte and read it back; futex: FUTEX_WAKE with no waiter and a FUTEX_WAIT \
         that returns at once (the word differs)",
    unit: "ns",
    expected_switches_per_op: None,
};

/// The hand-over mechanisms whose transport is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    Pipe,
    Futex,
}

impl Mechanism {
    pub fn as_str(self) -> &'static str {
        match self {
            Mechanism::Pipe => "pipe",
            Mechanism::Futex => "futex",
        }
    }
}

pub struct Transport {
    mechanism: Mechanism,
    word: AtomicU32,
}

impl Transport {
    pub fn new(mechanism: Mechanism) -> Stages<Self> {
        Stages::new(Self {
            mechanism,
            word: AtomicU32::new(0),
        })
    }
}

impl Staged for Transport {
    /// The crossed pipe pair, for the pipe mechanism (the futex needs only `word`).
    type State = Option<(PipeEnd, PipeEnd)>;

    /// The anatomy's layers are differences with its other variants, pass by pass.
    fn paired(&self) -> bool {
        true
    }

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new().with(MECHANISM, self.mechanism.as_str())
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<Self::State> {
        match self.mechanism {
            Mechanism::Pipe => Ok(Some(pipe_pair()?)),
            Mechanism::Futex => Ok(None),
        }
    }

    fn run(
        &mut self,
        pipes: &mut Self::State,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        match self.mechanism {
            Mechanism::Pipe => {
                // The pair is crossed: what one end passes, the other end reads.
                let (a, b) = pipes.as_mut().context("the pipe variant has its pipes")?;
                repeat(ctx, iterations, |_| {
                    a.pass()?;
                    if !b.wait_turn()? {
                        bail!("the pipe closed");
                    }
                    Ok(())
                })?
            }
            Mechanism::Futex => repeat(ctx, iterations, |_| {
                via_libc::futex_wake(&self.word, 1).context("FUTEX_WAKE")?;
                // The word holds 0: waiting for it to hold 1 returns at once (EAGAIN).
                via_libc::futex_wait(&self.word, 1).context("FUTEX_WAIT")?;
                Ok(())
            })?,
        }
        Ok(RunOutput::default())
    }
}

pub fn variants() -> Vec<Box<dyn Experiment>> {
    [Mechanism::Pipe, Mechanism::Futex]
        .into_iter()
        .map(|m| Box::new(Transport::new(m)) as Box<dyn Experiment>)
        .collect()
}
