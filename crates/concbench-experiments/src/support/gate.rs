//! A gate idle threads wait behind: each unit checks in and blocks until the gate opens; the
//! parent waits until every unit it created has checked in, does its work (reads memory,
//! counts), then opens the gate so they can all be joined.
//!
//! Not `std::sync::Barrier`: a barrier needs its final count up front, and when creating the
//! N-th thread fails the ones already waiting must still be released. Two condition variables,
//! so a unit checking in wakes only the parent, not the thousands already waiting.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

#[derive(Default)]
pub struct Gate {
    /// (units checked in, gate open)
    state: Mutex<(u64, bool)>,
    /// The parent waits on this for check-ins.
    arrived: Condvar,
    /// Units wait on this for the gate to open.
    opened: Condvar,
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, (u64, bool)> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Unit side: check in, then block until the gate opens.
    pub fn check_in_and_wait(&self) {
        let mut s = self.lock();
        s.0 += 1;
        self.arrived.notify_one();
        while !s.1 {
            s = self.opened.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Parent side: block until `n` units have checked in.
    pub fn wait_for(&self, n: u64) {
        let mut s = self.lock();
        while s.0 < n {
            s = self.arrived.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Release every unit, present and future.
    pub fn open(&self) {
        self.lock().1 = true;
        self.opened.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_wait_until_the_gate_opens() {
        let gate = Gate::default();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| gate.check_in_and_wait());
            }
            gate.wait_for(4);
            assert_eq!(gate.lock().0, 4);
            gate.open();
        });
    }
}
