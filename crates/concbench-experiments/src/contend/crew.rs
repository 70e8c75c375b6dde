//! A crew of worker threads that run one round per sample: woken by the main thread, they check
//! in at a start line and wait there until main gives the start, then each reports when it is
//! done, and the last one to finish tells main.
//!
//! The start line is what keeps waking the crew out of the timed run: main restarts the sample
//! timer only once every worker has checked in, then gives the start. Waking 100 sleeping
//! threads on a 2-CPU machine takes hundreds of microseconds, which is the whole sample when
//! the timer runs from the wake-up (measured: "increments" of 120-420 µs). Waiting workers
//! yield their CPU while they wait rather than sleep, so the start wakes nobody: a sleeping
//! waiter would need another round of wake-ups inside the timed run.
//!
//! Hand-written rather than `std::sync::Barrier` because a barrier needs its exact number of
//! participants: if thread 57 of 100 could not be created, a barrier would leave the first 56
//! waiting forever, while this gate counts the threads that actually exist.

use crate::support::event::{AutoResetEvent, EventFd};
use anyhow::Result;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

#[derive(Default)]
struct Round {
    number: u64,
    stop: bool,
}

pub struct Gate {
    round: Mutex<Round>,
    opened: Condvar,
    expected: AtomicUsize,
    arrived: AtomicUsize,
    all_arrived: EventFd,
    /// The latest round main has started (`u64::MAX` once the crew stops, so that no worker
    /// is left waiting at the start line).
    started: AtomicU64,
    finished: AtomicUsize,
    all_finished: EventFd,
}

impl Gate {
    pub fn new() -> Result<Self> {
        Ok(Self {
            round: Mutex::default(),
            opened: Condvar::new(),
            expected: AtomicUsize::new(0),
            arrived: AtomicUsize::new(0),
            all_arrived: EventFd::new()?,
            started: AtomicU64::new(0),
            finished: AtomicUsize::new(0),
            all_finished: EventFd::new()?,
        })
    }

    /// Main: wake the crew of `workers` threads for a new round; they go to the start line.
    pub fn open(&self, workers: usize) {
        self.expected.store(workers, Ordering::Relaxed);
        self.arrived.store(0, Ordering::Relaxed);
        self.finished.store(0, Ordering::Relaxed);
        let mut r = self.round.lock().unwrap_or_else(|p| p.into_inner());
        r.number += 1;
        self.opened.notify_all();
    }

    /// Main: wait until every worker of the round is at the start line.
    pub fn wait_arrived(&self) -> Result<()> {
        self.all_arrived.wait()
    }

    /// Main: let the workers at the start line go.
    pub fn start(&self) {
        let round = self.round.lock().unwrap_or_else(|p| p.into_inner()).number;
        self.started.store(round, Ordering::Release);
    }

    /// Main: end the crew's life; every worker's next [`Gate::next_round`] returns `false`.
    pub fn stop(&self) {
        let mut r = self.round.lock().unwrap_or_else(|p| p.into_inner());
        r.stop = true;
        self.started.store(u64::MAX, Ordering::Release);
        self.opened.notify_all();
    }

    /// Worker: wait for the round after `*seen`; `false` when the crew is stopping.
    pub fn next_round(&self, seen: &mut u64) -> bool {
        let mut r = self.round.lock().unwrap_or_else(|p| p.into_inner());
        while !r.stop && r.number == *seen {
            r = self.opened.wait(r).unwrap_or_else(|p| p.into_inner());
        }
        *seen = r.number;
        !r.stop
    }

    /// Worker: check in at the start line of round `round` and wait for the start.
    pub fn arrive(&self, round: u64) -> Result<()> {
        let here = self.arrived.fetch_add(1, Ordering::AcqRel) + 1;
        if here == self.expected.load(Ordering::Relaxed) {
            self.all_arrived.set()?;
        }
        while self.started.load(Ordering::Acquire) < round {
            std::thread::yield_now();
        }
        Ok(())
    }

    /// Worker: this round's work is done.
    pub fn finish(&self) -> Result<()> {
        let done = self.finished.fetch_add(1, Ordering::AcqRel) + 1;
        if done == self.expected.load(Ordering::Relaxed) {
            self.all_finished.set()?;
        }
        Ok(())
    }

    /// Main: wait until every worker of the round has finished.
    pub fn wait_finished(&self) -> Result<()> {
        self.all_finished.wait()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Nobody works before the start: at the moment main gives it, the work counter is still
    /// zero in every round, and after the round every worker has worked once.
    #[test]
    fn workers_wait_at_the_start_line_then_each_works_once_per_round() {
        let gate = Arc::new(Gate::new().unwrap());
        let work = Arc::new(AtomicU64::new(0));
        let workers: Vec<_> = (0..3)
            .map(|_| {
                let (gate, work) = (gate.clone(), work.clone());
                std::thread::spawn(move || {
                    let mut seen = 0;
                    while gate.next_round(&mut seen) {
                        gate.arrive(seen).unwrap();
                        work.fetch_add(1, Ordering::Relaxed);
                        gate.finish().unwrap();
                    }
                })
            })
            .collect();
        for round in 1..=5 {
            gate.open(3);
            gate.wait_arrived().unwrap();
            assert_eq!(work.load(Ordering::Relaxed), 3 * (round - 1));
            gate.start();
            gate.wait_finished().unwrap();
            assert_eq!(work.load(Ordering::Relaxed), 3 * round);
        }
        gate.stop();
        for w in workers {
            w.join().unwrap();
        }
    }

    /// Stopping while workers wait at the start line lets them run out rather than hang.
    #[test]
    fn stop_releases_workers_waiting_at_the_start_line() {
        let gate = Arc::new(Gate::new().unwrap());
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let gate = gate.clone();
                std::thread::spawn(move || {
                    let mut seen = 0;
                    while gate.next_round(&mut seen) {
                        gate.arrive(seen).unwrap();
                        gate.finish().unwrap();
                    }
                })
            })
            .collect();
        gate.open(2);
        gate.wait_arrived().unwrap();
        gate.stop();
        for w in workers {
            w.join().unwrap();
        }
    }
}
