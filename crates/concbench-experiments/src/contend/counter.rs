//! The shared counter of `contend.lock`, behind three kinds of mutual exclusion: a blocking
//! mutex (std, futex-based: spins briefly, then sleeps), a pure spinlock (never sleeps), and a
//! lock-free atomic `fetch_add`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A counter several threads increment up to a target, one at a time.
pub trait Counter: Send + Sync + 'static {
    /// The value of `params.lock`.
    const NAME: &'static str;
    fn new() -> Self;
    /// Add one unless the count has reached `target`: the new count, or `None` when done.
    fn increment_to(&self, target: u64) -> Option<u64>;
    /// Back to zero (only while no thread increments).
    fn reset(&self);
}

/// std's `Mutex` (futex-based; like the C# `lock` of seed S1, it spins a little, then sleeps).
pub struct MutexCounter(Mutex<u64>);

impl Counter for MutexCounter {
    const NAME: &'static str = "mutex";
    fn new() -> Self {
        Self(Mutex::new(0))
    }
    fn increment_to(&self, target: u64) -> Option<u64> {
        let mut count = self.0.lock().unwrap_or_else(|p| p.into_inner());
        (*count < target).then(|| {
            *count += 1;
            *count
        })
    }
    fn reset(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = 0;
    }
}

/// A spinlock (the `spin` crate's `SpinMutex`): waiters burn their CPU until the lock is free,
/// even when its holder has been preempted.
pub struct SpinCounter(spin::mutex::SpinMutex<u64>);

impl Counter for SpinCounter {
    const NAME: &'static str = "spinlock";
    fn new() -> Self {
        Self(spin::mutex::SpinMutex::new(0))
    }
    fn increment_to(&self, target: u64) -> Option<u64> {
        let mut count = self.0.lock();
        (*count < target).then(|| {
            *count += 1;
            *count
        })
    }
    fn reset(&self) {
        *self.0.lock() = 0;
    }
}

/// No lock: one atomic read-modify-write per increment. Increments past the target are
/// discarded (each thread overshoots by at most one), so exactly `target` are counted.
pub struct AtomicCounter(AtomicU64);

impl Counter for AtomicCounter {
    const NAME: &'static str = "atomic";
    fn new() -> Self {
        Self(AtomicU64::new(0))
    }
    fn increment_to(&self, target: u64) -> Option<u64> {
        let before = self.0.fetch_add(1, Ordering::Relaxed);
        (before < target).then_some(before + 1)
    }
    fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Four threads count to 10,000: exactly that many increments succeed, and exactly one
    /// thread sees the target itself.
    fn counts_exactly<C: Counter>() {
        let c = Arc::new(C::new());
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || {
                    let (mut mine, mut hit) = (0u64, 0u64);
                    while let Some(v) = c.increment_to(10_000) {
                        mine += 1;
                        hit += u64::from(v == 10_000);
                    }
                    (mine, hit)
                })
            })
            .collect();
        let (total, hits) = handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .fold((0, 0), |(a, b), (m, h)| (a + m, b + h));
        assert_eq!((total, hits), (10_000, 1), "{}", C::NAME);
        c.reset();
        assert_eq!(c.increment_to(1), Some(1), "{}", C::NAME);
    }

    #[test]
    fn every_counter_counts_exactly_to_the_target() {
        counts_exactly::<MutexCounter>();
        counts_exactly::<SpinCounter>();
        counts_exactly::<AtomicCounter>();
    }
}
