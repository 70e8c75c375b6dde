//! `create.process_100k` and `create.thread_100k`: seed S0.create's replication — 100,000 units
//! created and destroyed back to back; the result is per unit, and the replication view
//! multiplies by 100,000 to set it beside the published 8.684 s / 0.661 s.
//!
//! Like the seed's `forkcreat.c` (which reaped from a SIGCHLD handler), the parent does not wait
//! for each child before forking the next: it reaps whatever has exited after each fork
//! (`waitpid(-1, WNOHANG)`), and waits for the rest at the end.
//!
//! A full run spreads the seed's 100,000 over its rounds: each round (a fresh worker) creates
//! 20,000, so five rounds make the seed's batch and a verdict's six or more exceed it. Why not
//! 100,000 per round: a batch of 100,000 forks takes ~17 s here, and six independent rounds of
//! it (the least that gives an interval) would take longer than the rest of the full run; the
//! per-unit cost of 20,000 back-to-back creations (3-4 s) is the same steady state. `--quick`
//! uses 1,000 units.

use super::{fork::fork_and_reap, thread::spawn_and_join};
use crate::support::repeat;
use anyhow::{bail, Result};
use concbench_core::{
    Experiment, Host, Meta, Params, Plan, RunContext, RunOutput, SampleTimer, Support,
};

const PROCESSES: Meta = Meta {
    id: "create.process_100k",
    family: "create",
    title: "S0.create replication: 100,000 processes (fork, exit, reaped asynchronously)",
    op: "one fork() + child exit, reaped without blocking, within a batch of units",
    unit: "ns",
    expected_switches_per_op: None,
};

const THREADS: Meta = Meta {
    id: "create.thread_100k",
    family: "create",
    title: "S0.create replication: 100,000 threads (create + join)",
    op: "one pthread_create (default stack) + join, within a batch of units",
    unit: "ns",
    expected_switches_per_op: None,
};

#[derive(Clone, Copy)]
enum Unit {
    Process,
    Thread,
}

pub struct Bulk {
    unit: Unit,
}

impl Bulk {
    pub fn processes() -> Self {
        Self {
            unit: Unit::Process,
        }
    }
    pub fn threads() -> Self {
        Self { unit: Unit::Thread }
    }
}

/// The seed's batch.
const SEED_UNITS: u64 = 100_000;

/// Units one round of a full run creates: a fifth of the seed's batch (see the module's doc).
pub(crate) const SEED_UNITS_PER_ROUND: u64 = SEED_UNITS / 5;

/// Units per batch: a full run's share of the seed's 100,000, or fewer in quick and smoke runs.
fn units(ctx: &RunContext) -> u64 {
    if ctx.smoke {
        200
    } else if ctx.quick {
        1_000
    } else {
        SEED_UNITS_PER_ROUND
    }
}

impl Experiment for Bulk {
    fn meta(&self) -> &Meta {
        match self.unit {
            Unit::Process => &PROCESSES,
            Unit::Thread => &THREADS,
        }
    }

    fn params(&self) -> Params {
        Params::new().with("batch", "100k")
    }

    fn supported(&self, host: &Host) -> Support {
        // Sequential creation never holds more than a handful of units at once, but async
        // reaping lets exited children pile up briefly: keep well inside RLIMIT_NPROC.
        match (self.unit, host.rlimit_nproc) {
            (Unit::Process, Some(limit)) if limit < 256 => Support::No(format!(
                "RLIMIT_NPROC is {limit}: raise it (ulimit -u) to at least 256"
            )),
            _ => Support::Yes,
        }
    }

    fn plan(&self, ctx: &RunContext) -> Plan {
        Plan::Fixed(units(ctx))
    }

    /// A batch of 20,000 forks takes 3-4 s on a 2-CPU VM: one batch per round (a fresh worker);
    /// the rounds are the replicates.
    fn max_repetitions(&self, _ctx: &RunContext) -> Option<usize> {
        Some(1)
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        // Warm the path once (page tables, allocator, kernel caches) so the batch starts steady.
        match self.unit {
            Unit::Process => fork_and_reap(),
            Unit::Thread => {
                spawn_and_join(concbench_measure::host::default_thread_stack() as usize)
            }
        }
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        match self.unit {
            Unit::Process => fork_batch(ctx, iterations)?,
            Unit::Thread => {
                let stack = concbench_measure::host::default_thread_stack() as usize;
                repeat(ctx, iterations, |_| spawn_and_join(stack))?;
            }
        }
        let mut out = RunOutput::default().metric("units", iterations as f64);
        if iterations < SEED_UNITS_PER_ROUND {
            out.warnings.push(format!(
                "measured on batches of {iterations} units (not 100,000) and compared per unit; \
                 run without --quick for the seed's batch, spread over the rounds"
            ));
        }
        Ok(out)
    }
}

/// Fork `n` children that exit at once, reaping without blocking as they finish.
fn fork_batch(ctx: &RunContext, n: u64) -> Result<()> {
    let mut outstanding: u64 = 0;
    let result = repeat(ctx, n, |i| {
        // SAFETY: the child calls only _exit (async-signal-safe).
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: as above.
            unsafe { libc::_exit(0) };
        }
        if pid < 0 {
            bail!("fork #{i}: {}", std::io::Error::last_os_error());
        }
        outstanding += 1;
        outstanding -= reap(libc::WNOHANG);
        Ok(())
    });
    // Always reap what is left, also after an error, so no zombie stays behind.
    while outstanding > 0 {
        let reaped = reap(0);
        if reaped == 0 {
            break;
        }
        outstanding -= reaped;
    }
    result
}

/// Reap exited children (any pid: during this experiment concbench has no other children);
/// with WNOHANG stop at the first still running, without it wait for one. Returns how many.
fn reap(flags: libc::c_int) -> u64 {
    let mut n = 0;
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes one c_int into `status`.
        let pid = unsafe { libc::waitpid(-1, &mut status, flags) };
        if pid <= 0 {
            return n;
        }
        n += 1;
        if flags == 0 {
            return n;
        }
    }
}
