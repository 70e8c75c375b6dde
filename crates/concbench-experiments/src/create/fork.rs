//! `create.fork`: fork, the child `_exit(0)`s at once, the parent `waitpid`s it (seed S0.create).
//!
//! Two variants by the parent's history: `parent = single-threaded` (a process that never had a
//! second thread, like the seed's C program) and `parent = once-threaded` (one thread was
//! created and joined before measuring). The second is what forking from any program that ever
//! used a thread pool costs: on a 2-CPU KVM guest with kernel 6.18 it is ~30% slower, and it
//! stays slower for the life of the process.
//!
//! `Fork::c_loop()` is the same experiment with the loop around the fork in C
//! (`reference.fork_c`, opt-in: see [`crate::reference`]).
//!
//! A fork's cost also grows with what the parent holds (its anonymous pages' entries are
//! copied), so setup gives the heap's free pages back first, and every sample records the shape
//! it forked from (`parent_anon_kib`, `parent_pte_kib`, `parent_vmas`: see [`super::shape`]).

use super::shape::{trim_heap, Shape};
use crate::support::repeat;
use anyhow::{bail, Result};
use concbench_core::{Experiment, Meta, Params, RunContext, RunOutput, SampleTimer};

const META: Meta = Meta {
    id: "create.fork",
    family: "create",
    title: "Process: fork + exit + waitpid",
    op: "fork(), child _exit(0), parent waitpid()",
    unit: "ns",
    expected_switches_per_op: None,
};

pub struct Fork {
    once_threaded: bool,
    /// Fork in `c/fork_loop.c`'s loop (`reference.fork_c`) instead of concbench's own.
    c_loop: bool,
    /// The process's shape read before the sample being taken (untimed).
    shape: Option<Shape>,
}

impl Fork {
    pub fn single_threaded() -> Self {
        Self {
            once_threaded: false,
            c_loop: false,
            shape: None,
        }
    }
    pub fn once_threaded() -> Self {
        Self {
            once_threaded: true,
            c_loop: false,
            shape: None,
        }
    }
    /// The C loop create.fork is paired with, from a single-threaded parent.
    pub fn c_loop() -> Self {
        Self {
            c_loop: true,
            ..Self::single_threaded()
        }
    }
}

impl Experiment for Fork {
    fn meta(&self) -> &Meta {
        if self.c_loop {
            &crate::reference::fork_c::META
        } else {
            &META
        }
    }

    fn params(&self) -> Params {
        Params::new().with(
            "parent",
            if self.once_threaded {
                "once-threaded"
            } else {
                "single-threaded"
            },
        )
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        if self.once_threaded {
            std::thread::spawn(|| {})
                .join()
                .map_err(|_| anyhow::anyhow!("helper thread panicked"))?;
        }
        // What starting the worker allocated and freed (its job, the registry) is no part of a
        // process that forks; a C parent never had it.
        trim_heap();
        Ok(())
    }

    fn before_sample(&mut self, _ctx: &RunContext) -> Result<()> {
        self.shape = Shape::of_self();
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        if self.c_loop {
            crate::reference::fork_c::forks_in_c(iterations)?;
        } else {
            repeat(ctx, iterations, |_| fork_and_reap())?;
        }
        // The counters' bookkeeping is no part of a fork.
        t.stop();
        Ok(Shape::output(self.shape))
    }
}

/// One fork whose child exits immediately, reaped synchronously.
pub(crate) fn fork_and_reap() -> Result<()> {
    // SAFETY: the child calls only _exit, which is async-signal-safe, so forking from a
    // multi-threaded process is sound.
    let pid = unsafe { libc::fork() };
    match pid {
        0 => {
            // SAFETY: _exit ends the child without touching the parent's state.
            unsafe { libc::_exit(0) }
        }
        p if p < 0 => bail!("fork: {}", std::io::Error::last_os_error()),
        p => {
            concbench_sys::child::wait_pid(p)?;
            Ok(())
        }
    }
}
