//! The shared counter of `contend.lock`, behind three kinds of mutual exclusion: a blocking
//! mutex (std, futex-based: spins briefly, then sleeps), a pure spinlock (never sleeps), and a
//! lock-free atomic `fetch_add`.
//!
//! The two locks also count their hand-overs: how often the thread taking the lock is not the
//! one that held it last. That says what the time per increment is made of — an increment that
//! stays with one thread costs an uncontended lock, a hand-over costs a cache-line transfer or
//! a sleep and a wake-up. An atomic has no holder, so it has no hand-overs to count.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// What a round of increments left behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub count: u64,
    /// Lock hand-overs (`None` for a counter without a lock).
    pub handovers: Option<u64>,
}

/// A counter several threads increment, one increment at a time.
pub trait Counter: Send + Sync + 'static {
    /// The value of `params.lock`.
    const NAME: &'static str;
    fn new() -> Self;
    /// Add one, on behalf of worker `me`.
    fn increment(&self, me: usize);
    /// The round's tally, and back to zero (only while no thread increments).
    fn take(&self) -> Tally;
}

/// The data a lock protects: the count, and who held the lock last.
#[derive(Debug)]
struct Held {
    count: u64,
    holder: usize,
    handovers: u64,
}

/// No thread has held the lock yet this round: the first acquisition counts as a hand-over.
const NOBODY: usize = usize::MAX;

impl Held {
    const fn new() -> Self {
        Self {
            count: 0,
            holder: NOBODY,
            handovers: 0,
        }
    }

    fn add(&mut self, me: usize) {
        if self.holder != me {
            self.holder = me;
            self.handovers += 1;
        }
        self.count += 1;
    }

    fn take(&mut self) -> Tally {
        let tally = Tally {
            count: self.count,
            handovers: Some(self.handovers),
        };
        *self = Self::new();
        tally
    }
}

/// std's `Mutex` (futex-based; like the C# `lock` of seed S1, it spins a little, then sleeps).
pub struct MutexCounter(Mutex<Held>);

impl Counter for MutexCounter {
    const NAME: &'static str = "mutex";
    fn new() -> Self {
        Self(Mutex::new(Held::new()))
    }
    fn increment(&self, me: usize) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).add(me);
    }
    fn take(&self) -> Tally {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A spinlock (the `spin` crate's `SpinMutex`): waiters burn their CPU until the lock is free,
/// even when its holder has been preempted.
pub struct SpinCounter(spin::mutex::SpinMutex<Held>);

impl Counter for SpinCounter {
    const NAME: &'static str = "spinlock";
    fn new() -> Self {
        Self(spin::mutex::SpinMutex::new(Held::new()))
    }
    fn increment(&self, me: usize) {
        self.0.lock().add(me);
    }
    fn take(&self) -> Tally {
        self.0.lock().take()
    }
}

/// No lock: one atomic read-modify-write per increment.
pub struct AtomicCounter(AtomicU64);

impl Counter for AtomicCounter {
    const NAME: &'static str = "atomic";
    fn new() -> Self {
        Self(AtomicU64::new(0))
    }
    fn increment(&self, _me: usize) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    fn take(&self) -> Tally {
        Tally {
            count: self.0.swap(0, Ordering::Relaxed),
            handovers: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Four threads add 2,500 each: the count is exactly 10,000, the lock changed hands at
    /// least once per thread and at most once per increment, and `take` starts a new round.
    fn counts_exactly<C: Counter>() {
        let c = Arc::new(C::new());
        let handles: Vec<_> = (0..4)
            .map(|me| {
                let c = c.clone();
                std::thread::spawn(move || (0..2_500).for_each(|_| c.increment(me)))
            })
            .collect();
        handles.into_iter().for_each(|h| h.join().unwrap());
        let tally = c.take();
        assert_eq!(tally.count, 10_000, "{}", C::NAME);
        if let Some(h) = tally.handovers {
            assert!((4..=10_000).contains(&h), "{}: {h}", C::NAME);
        }
        c.increment(0);
        c.increment(0);
        let again = c.take();
        assert_eq!(again.count, 2, "{}", C::NAME);
        assert!(again.handovers.is_none_or(|h| h == 1), "{}", C::NAME);
    }

    #[test]
    fn every_counter_counts_exactly_and_locks_count_their_handovers() {
        counts_exactly::<MutexCounter>();
        counts_exactly::<SpinCounter>();
        counts_exactly::<AtomicCounter>();
        assert_eq!(AtomicCounter::new().take().handovers, None);
        assert!(MutexCounter::new().take().handovers.is_some());
    }

    #[test]
    fn one_holder_is_one_handover_and_alternating_holders_are_one_each() {
        let mut held = Held::new();
        (0..5).for_each(|_| held.add(7));
        assert_eq!(held.take().handovers, Some(1));
        (0..6).for_each(|i| held.add(i % 2));
        assert_eq!(
            held.take(),
            Tally {
                count: 6,
                handovers: Some(6)
            }
        );
    }
}
