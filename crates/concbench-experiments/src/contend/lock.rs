//! `contend.lock`: seed S1's MultiThreadTester — T threads add one at a time to one shared
//! counter under one lock, N increments in all; `params.threads` in {2, 100}, `params.lock` in
//! {mutex, spinlock, atomic}. One operation is one increment (`atomic`: one `fetch_add`, no
//! lock).
//!
//! As in the seed, the work is fixed and large: each sample is N increments (the seed's 1e8 in a
//! full run, fewer in `--quick`), each thread adding its share of N, one increment per lock
//! acquisition. The threads live for the whole variant (created in setup, never timed); each
//! sample wakes them to a start line, restarts the timer once all are there, lets them go, and
//! stops it when the last one has added its share — so the time per increment is the run's time
//! divided by N, and waking 100 threads, which costs hundreds of microseconds on two CPUs, is
//! neither in it nor amortised into it.
//!
//! Beside the time: how often the lock changed hands per increment (`lock_handovers_per_op`),
//! and, from the harness, the context switches per increment. Together they say what an
//! increment cost: an uncontended lock taken again by the same thread, a cache-line transfer,
//! or a sleep and a wake-up.

use super::counter::Counter;
use super::crew::Gate;
use crate::support::partner::{spawn_each, Partner};
use crate::support::repeat;
use anyhow::{ensure, Result};
use concbench_core::{
    Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Staged, Stages,
    Support,
};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub const ID: &str = "contend.lock";
/// `params.threads`: how many threads share the counter.
pub const PARAM_THREADS: &str = "threads";
/// `params.lock`: mutex, spinlock or atomic.
pub const PARAM_LOCK: &str = "lock";
/// The counter: lock hand-overs per increment (absent for `atomic`, which has no lock).
pub const METRIC_HANDOVERS: &str = "lock_handovers_per_op";

const META: Meta = Meta {
    id: ID,
    family: "contend",
    title: "S1: T threads increment one counter under one lock",
    op: "one increment of the shared counter: lock, add, unlock (lock=atomic: one fetch_add)",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Threads and processes this variant may need beyond its own workers, left for the rest of
/// the user's session.
const NPROC_HEADROOM: u64 = 64;

/// Increments per sample, all threads together: a fifth of the seed's 1e8 in a full run (0.2-2 s
/// a round here; see [`super::SEED_ROUNDS`]);
/// 2e6 in `--quick`, still over ten milliseconds, so every thread gets several time slices of
/// work (the quick suite measures each variant in several rounds); in smoke mode, enough that
/// each of 100 threads adds a thousand.
pub fn increments(ctx: &RunContext) -> u64 {
    if ctx.smoke {
        100_000
    } else if ctx.quick {
        2_000_000
    } else {
        super::SEED_COUNT / super::SEED_ROUNDS
    }
}

/// Worker `me`'s share of `total` increments among `threads`: equal shares, the remainder
/// spread one each over the first threads.
pub fn share(total: u64, threads: usize, me: usize) -> u64 {
    let threads = threads.max(1) as u64;
    total / threads + u64::from((me as u64) < total % threads)
}

struct Shared<C> {
    counter: C,
    /// This round's N.
    total: AtomicU64,
    threads: usize,
    gate: Gate,
    /// For Ctrl-C: a full run's sample is seconds long (a spinlock at 100 threads, several).
    ctx: RunContext,
}

/// One worker's life: a round per sample, adding its share of the round's increments.
fn worker<C: Counter>(shared: &Shared<C>, me: usize) -> Result<()> {
    let mut seen = 0;
    while shared.gate.next_round(&mut seen) {
        let mine = share(shared.total.load(Ordering::Acquire), shared.threads, me);
        shared.gate.arrive(seen)?;
        // Only Ctrl-C ends this early (an increment cannot fail); the worker still reports
        // that it finished, and main sees the cancellation itself.
        let _interrupted = repeat(&shared.ctx, mine, |_| {
            shared.counter.increment(me);
            Ok(())
        });
        shared.gate.finish()?;
    }
    Ok(())
}

pub struct Lock<C: Counter> {
    threads: usize,
    _counter: PhantomData<C>,
}

/// What `setup` started: the shared counter and gate, and the worker threads.
pub struct Crew<C: Counter> {
    shared: Arc<Shared<C>>,
    workers: Vec<Partner>,
}

impl<C: Counter> Crew<C> {
    /// Start `threads` workers, parked at the gate.
    fn start(threads: usize, ctx: &RunContext) -> Result<Self> {
        let shared = Arc::new(Shared {
            counter: C::new(),
            total: AtomicU64::new(0),
            threads,
            gate: Gate::new()?,
            ctx: ctx.clone(),
        });
        let workers = spawn_each(
            threads,
            |me| {
                let s = shared.clone();
                Partner::spawn(&format!("contend-{me}"), || Ok(()), move || worker(&s, me))
            },
            |started| {
                let _ = Crew {
                    shared: shared.clone(),
                    workers: started,
                }
                .stop();
            },
        )?;
        Ok(Crew { shared, workers })
    }

    /// Stop and join every worker started.
    fn stop(self) -> Result<()> {
        self.shared.gate.stop();
        self.workers.into_iter().try_for_each(Partner::join)
    }
}

impl<C: Counter> Lock<C> {
    pub fn new(threads: usize) -> Stages<Self> {
        Stages::new(Self {
            threads,
            _counter: PhantomData,
        })
    }

    /// A spinlock with more threads than the two of the seed's small case.
    fn spins_oversubscribed(&self) -> bool {
        C::NAME == "spinlock" && self.threads > 2
    }

    /// This variant's N: [`increments`], a tenth of it for a spinlock with more threads than
    /// CPUs — each increment there costs a preempted holder's time slice shared among spinners
    /// (~250 ns here), so the full run's 2e7 would take 5 s a round and say nothing more than
    /// 2e6.
    fn count(&self, ctx: &RunContext) -> u64 {
        if self.spins_oversubscribed() && !ctx.smoke {
            increments(ctx) / 10
        } else {
            increments(ctx)
        }
    }
}

impl<C: Counter> Staged for Lock<C> {
    type State = Crew<C>;

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new()
            .with(PARAM_THREADS, self.threads as u64)
            .with(PARAM_LOCK, C::NAME)
    }

    /// Unpinned, like the seed: the question is what T threads cost on the machine's CPUs.
    fn placement(&self) -> Placement {
        Placement::Unpinned
    }

    /// A spinlock with 100 threads on a few CPUs spins away whole time slices whenever the
    /// holder is preempted: worth seeing in a full run, too slow and erratic for `--quick`.
    fn in_quick(&self) -> bool {
        !self.spins_oversubscribed()
    }

    fn supported(&self, host: &Host) -> Support {
        match host.rlimit_nproc {
            Some(limit) if limit < self.threads as u64 + NPROC_HEADROOM => Support::No(format!(
                "RLIMIT_NPROC is {limit}: {} threads need it at least {}; raise it with ulimit -u",
                self.threads,
                self.threads as u64 + NPROC_HEADROOM
            )),
            _ => Support::Yes,
        }
    }

    /// A fixed, large count rather than a calibrated one: calibration starts from one increment,
    /// and one round of 100 threads already outlasts the target sample time, so it settled on
    /// 1-2 increments per sample and timed the wake-ups instead.
    fn plan(&self, ctx: &RunContext) -> Plan {
        Plan::Fixed(self.count(ctx))
    }

    /// One count per round: a full run's fifth of the seed's 1e8 (0.2-2 s, a spinlock at 100
    /// threads far longer: holders preempted while the others spin), a quick run's 2e6. The
    /// rounds, fresh workers, are the replicates — more samples in one worker cost as much again
    /// each and say little about a rerun. Measured in quick runs on 2026-11-26: three samples
    /// made a round 0.63-0.70 s, the two mutex variants of S1.lock took 8 s of the 55-s budget
    /// for their six rounds, and the check stayed at six to eight rounds.
    fn max_repetitions(&self, _ctx: &RunContext) -> Option<usize> {
        Some(1)
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<Crew<C>> {
        Crew::start(self.threads, ctx)
    }

    fn run(
        &mut self,
        crew: &mut Crew<C>,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let shared = &crew.shared;
        shared.total.store(iterations, Ordering::Release);
        shared.gate.open(crew.workers.len());
        shared.gate.wait_arrived()?;
        timer.restart();
        shared.gate.start();
        shared.gate.wait_finished()?;
        timer.stop();
        let tally = shared.counter.take();
        ctx.cancel.check()?;
        ensure!(
            tally.count == iterations,
            "the threads counted {} increments, not {iterations}: the counter lost updates",
            tally.count
        );
        let mut out = RunOutput::default();
        if let Some(handovers) = tally.handovers {
            out = out.metric(METRIC_HANDOVERS, handovers as f64 / iterations as f64);
        }
        out.warnings.extend(super::short_of_seed(iterations));
        Ok(out)
    }

    fn teardown(&mut self, crew: Crew<C>, _ctx: &RunContext) -> Result<()> {
        crew.stop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_total_and_differ_by_at_most_one() {
        for (total, threads) in [(100_000, 100), (10, 3), (1, 2), (0, 4), (7, 1)] {
            let shares: Vec<u64> = (0..threads).map(|me| share(total, threads, me)).collect();
            assert_eq!(shares.iter().sum::<u64>(), total, "{total} over {threads}");
            let (lo, hi) = (shares.iter().min().unwrap(), shares.iter().max().unwrap());
            assert!(hi - lo <= 1, "{shares:?}");
        }
    }
}
