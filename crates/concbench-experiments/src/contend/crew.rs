//! A crew of worker threads that run one round per sample: released together by the main
//! thread, each reports when it is done, and the last one to finish tells main.
//!
//! Hand-written rather than `std::sync::Barrier` because a barrier needs its exact number of
//! participants: if thread 57 of 100 could not be created, a barrier would leave the first 56
//! waiting forever, while this gate counts the threads that actually exist.

use crate::support::event::{AutoResetEvent, EventFd};
use anyhow::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    finished: AtomicUsize,
    all_finished: EventFd,
}

impl Gate {
    pub fn new() -> Result<Self> {
        Ok(Self {
            round: Mutex::default(),
            opened: Condvar::new(),
            expected: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            all_finished: EventFd::new()?,
        })
    }

    /// Main: start a round for `workers` threads.
    pub fn open(&self, workers: usize) {
        self.expected.store(workers, Ordering::Relaxed);
        self.finished.store(0, Ordering::Relaxed);
        let mut r = self.round.lock().unwrap_or_else(|p| p.into_inner());
        r.number += 1;
        self.opened.notify_all();
    }

    /// Main: end the crew's life; every worker's next [`Gate::next_round`] returns `false`.
    pub fn stop(&self) {
        let mut r = self.round.lock().unwrap_or_else(|p| p.into_inner());
        r.stop = true;
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
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    #[test]
    fn rounds_release_every_worker_once_and_stop_ends_them() {
        let gate = Arc::new(Gate::new().unwrap());
        let work = Arc::new(AtomicU64::new(0));
        let workers: Vec<_> = (0..3)
            .map(|_| {
                let (gate, work) = (gate.clone(), work.clone());
                std::thread::spawn(move || {
                    let mut seen = 0;
                    while gate.next_round(&mut seen) {
                        work.fetch_add(1, Ordering::Relaxed);
                        gate.finish().unwrap();
                    }
                })
            })
            .collect();
        for round in 1..=5 {
            gate.open(3);
            gate.wait_finished().unwrap();
            assert_eq!(work.load(Ordering::Relaxed), 3 * round);
        }
        gate.stop();
        for w in workers {
            w.join().unwrap();
        }
    }
}
