//! A start gate for reader threads: the main thread waits until every reader is ready, then
//! opens the gate for all at once — or aborts it, when a later reader could not be started (a
//! `std::sync::Barrier` cannot be released without all its parties, and would hang there).

use std::sync::{Condvar, Mutex};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Closed,
    Open,
    Aborted,
}

#[derive(Debug)]
pub struct StartGate {
    state: Mutex<(usize, State)>,
    changed: Condvar,
}

impl Default for StartGate {
    fn default() -> Self {
        Self {
            state: Mutex::new((0, State::Closed)),
            changed: Condvar::new(),
        }
    }
}

impl StartGate {
    /// A reader arrives and waits; `true` when released, `false` when the start was aborted.
    pub fn arrive_and_wait(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 += 1;
        self.changed.notify_all();
        while s.1 == State::Closed {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.1 == State::Open
    }

    /// Block until `readers` have arrived.
    pub fn wait_ready(&self, readers: usize) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while s.0 < readers {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub fn open(&self) {
        self.set(State::Open);
    }

    pub fn abort(&self) {
        self.set(State::Aborted);
    }

    fn set(&self, state: State) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).1 = state;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn releases_everyone_or_nobody() {
        for open in [true, false] {
            let gate = Arc::new(StartGate::default());
            let readers: Vec<_> = (0..3)
                .map(|_| {
                    let g = gate.clone();
                    std::thread::spawn(move || g.arrive_and_wait())
                })
                .collect();
            gate.wait_ready(3);
            if open {
                gate.open()
            } else {
                gate.abort()
            }
            for r in readers {
                assert_eq!(r.join().unwrap(), open);
            }
        }
    }
}
