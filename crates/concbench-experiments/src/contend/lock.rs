//! `contend.lock`: seed S1's MultiThreadTester — T threads increment one shared counter under
//! one lock until it reaches N; `params.threads` in {2, 100}, `params.lock` in {mutex, spinlock,
//! atomic}. One operation is one increment.
//!
//! The threads live for the whole variant (created in setup, never timed). Each sample opens a
//! round: the timer restarts as the threads are released and stops when the thread that makes
//! the last increment says so (as the seed's stopwatch stopped at the first thread to see the
//! target), before the others have drained. Each thread counts its own increments, so the
//! result also says how fairly the lock shared the work.

use super::counter::Counter;
use super::crew::Gate;
use crate::support::event::{AutoResetEvent, EventFd};
use crate::support::partner::Partner;
use anyhow::{Context, Result};
use concbench_core::{
    Experiment, Host, Meta, Params, Placement, RunContext, RunOutput, SampleTimer, Support,
};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const META: Meta = Meta {
    id: "contend.lock",
    family: "contend",
    title: "S1: T threads increment one counter under one lock",
    op: "one increment of the shared counter (lock, check, add, unlock)",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Threads and processes this variant may need beyond its own workers, left for the rest of
/// the user's session.
const NPROC_HEADROOM: u64 = 64;

struct Shared<C> {
    counter: C,
    target: AtomicU64,
    gate: Gate,
    target_reached: EventFd,
    per_thread: Vec<AtomicU64>,
}

/// One worker's life: a round per sample, counting its own increments.
fn worker<C: Counter>(shared: &Shared<C>, me: usize) -> Result<()> {
    let mut seen = 0;
    while shared.gate.next_round(&mut seen) {
        let target = shared.target.load(Ordering::Acquire);
        let mut mine = 0;
        while let Some(count) = shared.counter.increment_to(target) {
            mine += 1;
            if count == target {
                shared.target_reached.set()?;
            }
        }
        shared.per_thread[me].store(mine, Ordering::Relaxed);
        shared.gate.finish()?;
    }
    Ok(())
}

/// How evenly the work was shared: the most and the fewest increments one thread made,
/// relative to an equal share (1.0 and 1.0 is perfectly fair; a min share of 0 means a thread
/// never got the lock).
pub fn fairness(per_thread: &[u64]) -> (f64, f64) {
    let total: u64 = per_thread.iter().sum();
    if per_thread.is_empty() || total == 0 {
        return (0.0, 0.0);
    }
    let fair = total as f64 / per_thread.len() as f64;
    let max = *per_thread.iter().max().expect("not empty") as f64;
    let min = *per_thread.iter().min().expect("not empty") as f64;
    (max / fair, min / fair)
}

pub struct Lock<C: Counter> {
    threads: usize,
    shared: Option<Arc<Shared<C>>>,
    workers: Vec<Partner>,
    _counter: PhantomData<C>,
}

impl<C: Counter> Lock<C> {
    pub fn new(threads: usize) -> Self {
        Self {
            threads,
            shared: None,
            workers: Vec::new(),
            _counter: PhantomData,
        }
    }
}

impl<C: Counter> Experiment for Lock<C> {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new()
            .with("threads", self.threads as u64)
            .with("lock", C::NAME)
    }

    /// Unpinned, like the seed: the question is what T threads cost on the machine's CPUs.
    fn placement(&self) -> Placement {
        Placement::Unpinned
    }

    /// A spinlock with 100 threads on a few CPUs spins away whole time slices whenever the
    /// holder is preempted: worth seeing in a full run, too slow and erratic for `--quick`.
    fn in_quick(&self) -> bool {
        !(C::NAME == "spinlock" && self.threads > 2)
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

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        let shared = Arc::new(Shared {
            counter: C::new(),
            target: AtomicU64::new(0),
            gate: Gate::new()?,
            target_reached: EventFd::new()?,
            per_thread: (0..self.threads).map(|_| AtomicU64::new(0)).collect(),
        });
        self.shared = Some(shared.clone());
        for me in 0..self.threads {
            let s = shared.clone();
            self.workers.push(Partner::spawn(
                &format!("contend-{me}"),
                || Ok(()),
                move || worker(&s, me),
            )?);
        }
        Ok(())
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let shared = self.shared.as_ref().context("setup did not run")?;
        shared.counter.reset();
        shared.target.store(iterations, Ordering::Release);
        // The clock starts before the workers are released: a released worker can preempt
        // this thread and count to the target before a later restart would run (measured:
        // samples of ~0 ns). Waking them is part of the count, as the seed's stopwatch even
        // included creating its threads.
        timer.restart();
        shared.gate.open(self.workers.len());
        shared.target_reached.wait()?;
        timer.stop();
        shared.gate.wait_finished()?;
        let counts: Vec<u64> = shared
            .per_thread
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        let (max_share, min_share) = fairness(&counts);
        let mut out = RunOutput::default()
            .metric("increments_max_share", max_share)
            .metric("increments_min_share", min_share);
        out.warnings.push(super::scaled_warning(iterations));
        Ok(out)
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        if let Some(shared) = self.shared.take() {
            shared.gate.stop();
        }
        self.workers.drain(..).try_for_each(Partner::join)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fairness_is_relative_to_an_equal_share() {
        assert_eq!(fairness(&[50, 50]), (1.0, 1.0));
        assert_eq!(fairness(&[100, 0]), (2.0, 0.0));
        assert_eq!(fairness(&[30, 10, 20]), (1.5, 0.5));
        assert_eq!(fairness(&[]), (0.0, 0.0));
    }
}
