//! Measuring one round: a fresh worker process in production, anything in tests.
//!
//! A variant whose one setup serves several rounds (`Variant::rounds_per_setup`: a server warmed
//! to steady state) keeps its worker between its rounds — other variants' rounds run meanwhile,
//! interleaved as always — and gets a fresh one after that many rounds, so the rounds span
//! several setups (restarts).

use crate::variant::Variant;
use concbench_core::{Host, Outcome};
use concbench_measure::isolate::supervisor::{Resident, Supervisor};
use concbench_measure::isolate::Job;
use concbench_measure::{HarnessConfig, HarnessEvent};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Measures one round of one variant.
pub trait RoundRunner {
    fn run(&mut self, variant: &Variant, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome;

    /// The run's rounds are over: release what is kept between rounds (resident workers).
    fn end(&mut self) {}

    /// CPU seconds the processes kept between rounds (resident workers and what they started)
    /// have used so far: the run's own, not interference, until they are reaped and counted
    /// with its children.
    fn resident_cpu_s(&self) -> f64 {
        0.0
    }
}

/// Resident workers alive at once, at most, on a machine with memory to spare: S2 alone has 13
/// variants whose server serves several rounds (Netty at two readings and two scenarios,
/// Swoole, PHP-FPM and the stand-ins), and a pass measures them all. Why not fewer: with 8, each
/// pass ended a server before its next round (least recently used), so nearly every round paid
/// a 6-22 s warm-up (measured: Netty's keep-alive started 3 times for 6 rounds in `replicate
/// S2`, Swoole's 6 times for 16), and a full run could afford one round of them.
pub const MAX_RESIDENTS: usize = 16;

/// Memory set aside per resident worker: a warm Netty server's tree holds about 100 MiB (PSS,
/// measured), its JVM up to a 256 MiB heap, and the worker 1000 connections' buffers.
pub const RESIDENT_KIB: u64 = 512 * 1024;

/// Residents alive at once on a machine with `available_kib` of memory available: one per
/// [`RESIDENT_KIB`], at least 2 (a verdict's pair) and at most [`MAX_RESIDENTS`]; 8 when the
/// memory is unknown. Beyond this the least recently used ends early (its next round then
/// starts a fresh setup, a restart like any other, its warm-up recorded).
///
/// Invariants: within 2..=MAX_RESIDENTS; non-decreasing in `available_kib`.
pub fn max_residents(available_kib: Option<u64>) -> usize {
    match available_kib {
        Some(kib) => ((kib / RESIDENT_KIB) as usize).clamp(2, MAX_RESIDENTS),
        None => 8,
    }
}

/// `MemAvailable` of `/proc/meminfo`, KiB.
fn memory_available_kib() -> Option<u64> {
    use procfs::Current;
    let meminfo = procfs::Meminfo::current().ok()?;
    meminfo.mem_available.map(|bytes| bytes / 1024)
}

/// A round in a fresh `concbench __worker` process (see `concbench_measure::isolate`), or in
/// the resident worker of its setup.
pub struct WorkerRunner {
    pub supervisor: Supervisor,
    pub config: HarnessConfig,
    pub host: Host,
    pub scratch_dir: PathBuf,
    pub options: BTreeMap<String, String>,
    /// Resident workers by registry index, with the rounds each has measured and when it was
    /// last used (a round count).
    residents: BTreeMap<usize, Life>,
    /// Rounds run so far (orders the residents by use).
    clock: u64,
    /// Residents alive at once, at most ([`max_residents`]).
    most_residents: usize,
}

/// One setup's worker and how far along its rounds it is.
pub struct Life {
    worker: Resident,
    served: usize,
    used: u64,
}

impl WorkerRunner {
    pub fn new(
        supervisor: Supervisor,
        config: HarnessConfig,
        host: Host,
        scratch_dir: PathBuf,
        options: BTreeMap<String, String>,
    ) -> Self {
        WorkerRunner {
            supervisor,
            config,
            host,
            scratch_dir,
            options,
            residents: BTreeMap::new(),
            clock: 0,
            most_residents: max_residents(memory_available_kib()),
        }
    }

    /// Residents alive at once, at most, on this machine.
    pub fn most_residents(&self) -> usize {
        self.most_residents
    }

    fn job(&self, variant: &Variant) -> Job {
        Job {
            index: variant.index,
            id: variant.meta.id.to_string(),
            config: self.config.clone(),
            host: self.host.clone(),
            scratch_dir: self.scratch_dir.clone(),
            options: self.options.clone(),
        }
    }

    /// A round on the variant's resident worker, started (or restarted) as its life requires.
    fn resident_round(
        &mut self,
        variant: &Variant,
        job: &Job,
        on_event: &mut dyn FnMut(HarnessEvent),
    ) -> Outcome {
        self.clock += 1;
        let life_over = self
            .residents
            .get(&variant.index)
            .is_some_and(|l| l.served >= variant.rounds_per_setup || !l.worker.alive());
        if life_over {
            self.residents.remove(&variant.index);
        }
        if let Some(life) = self.residents.get_mut(&variant.index) {
            let outcome = life.worker.round(job, on_event);
            life.served += 1;
            life.used = self.clock;
            self.end_if_over(variant);
            return outcome;
        }
        self.make_room();
        let (outcome, worker) = self.supervisor.start(job, on_event);
        if let Some(worker) = worker {
            self.residents.insert(
                variant.index,
                Life {
                    worker,
                    served: 1,
                    used: self.clock,
                },
            );
            self.end_if_over(variant);
        }
        outcome
    }

    /// End the life of `variant`'s worker once it has served its rounds: what it holds (a
    /// server, its connections) is released now, not at the run's end.
    fn end_if_over(&mut self, variant: &Variant) {
        if self
            .residents
            .get(&variant.index)
            .is_some_and(|l| l.served >= variant.rounds_per_setup || !l.worker.alive())
        {
            self.residents.remove(&variant.index);
        }
    }

    /// Below [`WorkerRunner::most_residents`]: end the least recently used.
    fn make_room(&mut self) {
        while self.residents.len() >= self.most_residents {
            let oldest = self
                .residents
                .iter()
                .min_by_key(|(_, l)| l.used)
                .map(|(i, _)| *i);
            match oldest {
                Some(i) => drop(self.residents.remove(&i)),
                None => return,
            }
        }
    }
}

impl RoundRunner for WorkerRunner {
    fn run(&mut self, variant: &Variant, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome {
        let job = self.job(variant);
        let outcome = if variant.rounds_per_setup > 1 {
            self.resident_round(variant, &job, on_event)
        } else {
            self.supervisor.round(&job, on_event)
        };
        match outcome {
            Outcome::Measured(mut raw) => {
                // The static description does not cross the process boundary.
                raw.meta = variant.meta.clone();
                Outcome::Measured(raw)
            }
            Outcome::Failed(mut f) => {
                f.params = variant.params.clone();
                Outcome::Failed(f)
            }
            other => other,
        }
    }

    /// End every resident worker (each tears down what it set up); dropping the runner does it
    /// too.
    fn end(&mut self) {
        self.residents.clear();
    }

    fn resident_cpu_s(&self) -> f64 {
        (self.residents.values())
            .filter_map(|l| l.worker.pid())
            .map(|pid| {
                let u = concbench_measure::tree::tree_usage(pid as i32);
                (u.user_ns + u.sys_ns) / 1e9
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residents_fit_the_memory_within_a_pair_and_the_cap() {
        const GIB: u64 = 1024 * 1024;
        // 24 GiB: all of S2's 13 resident servers fit, so none is restarted early.
        assert_eq!(max_residents(Some(24 * GIB)), MAX_RESIDENTS);
        assert!(max_residents(Some(24 * GIB)) >= 13);
        assert_eq!(max_residents(Some(4 * GIB)), 8);
        assert_eq!(max_residents(Some(GIB / 2)), 2, "a verdict's pair at least");
        assert_eq!(max_residents(Some(0)), 2);
        assert_eq!(max_residents(None), 8);
        let mut last = 0;
        for gib in 0..64 {
            let n = max_residents(Some(gib * GIB));
            assert!((2..=MAX_RESIDENTS).contains(&n) && n >= last);
            last = n;
        }
    }
}
