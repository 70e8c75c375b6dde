//! `reference.fork_c`: `create.fork`'s operation — fork, the child `_exit(0)`s, the parent
//! `waitpid()`s it — in a plain C loop (`c/fork_loop.c`, -O2) called from the worker, timed by
//! the same harness, from a process prepared the same way (heap trimmed, shape recorded).

use crate::create::shape::{trim_heap, Shape};
use anyhow::{bail, Result};
use concbench_core::{Experiment, Meta, Params, RunContext, RunOutput, SampleTimer};

const META: Meta = Meta {
    id: "reference.fork_c",
    family: super::FAMILY,
    title: "C fork loop in the worker (the reference create.fork is paired with)",
    op: "fork(), child _exit(0), parent waitpid(), in a C loop",
    unit: "ns",
    expected_switches_per_op: None,
};

extern "C" {
    /// `c/fork_loop.c`: `n` forks, each reaped before the next; 0, or -1 with errno set.
    fn concbench_fork_loop(n: std::ffi::c_ulong) -> std::ffi::c_int;
}

#[derive(Default)]
pub struct ForkC {
    /// The process's shape read before the sample being taken (untimed).
    shape: Option<Shape>,
}

impl Experiment for ForkC {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        // The parent create.fork is paired with: one that never had a second thread.
        Params::new().with("parent", "single-threaded")
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        // As create.fork's setup: the worker's start-up allocations are no part of the parent.
        trim_heap();
        Ok(())
    }

    fn before_sample(&mut self, _ctx: &RunContext) -> Result<()> {
        self.shape = Shape::of_self();
        Ok(())
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let n = std::ffi::c_ulong::try_from(iterations)?;
        // SAFETY: the C loop's children call only _exit, which is async-signal-safe, so forking
        // from the worker (which may hold other threads) is sound; it touches no Rust state.
        if unsafe { concbench_fork_loop(n) } != 0 {
            bail!("fork/waitpid: {}", std::io::Error::last_os_error());
        }
        // The counters' bookkeeping is no part of a fork.
        t.stop();
        Ok(Shape::output(self.shape))
    }
}
