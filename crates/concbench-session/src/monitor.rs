//! How much CPU other processes and the hypervisor took around each round.
//!
//! `/proc/stat` counts in clock ticks (10 ms), too coarse for a 20 ms round, so each round gets
//! the figures of the shortest window of at least [`WINDOW`] that ends with it, read at round
//! boundaries. Other processes' share is the machine's busy time minus this process's and its
//! reaped workers' CPU time, per second of the window: 0 on a quiet machine, 1 when something
//! else kept a whole CPU busy.

use crate::machine::{CpuTimes, Machine};
use std::time::Duration;

/// The shortest window a round's figures are taken over.
pub const WINDOW: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy)]
struct Snapshot {
    at: Duration,
    cpu: CpuTimes,
    own: f64,
}

/// Interference and steal around a stretch of time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Load {
    /// CPUs' worth of time other processes used (0 = none).
    pub others: f64,
    /// Share of all CPU time stolen by the hypervisor.
    pub steal: f64,
}

impl Load {
    fn between(a: &Snapshot, b: &Snapshot) -> Option<Load> {
        let wall = (b.at - a.at).as_secs_f64();
        let total = b.cpu.total - a.cpu.total;
        if wall <= 0.0 || total <= 0.0 {
            return None;
        }
        let others = (b.cpu.busy - a.cpu.busy) - (b.own - a.own);
        Some(Load {
            others: (others / wall).max(0.0),
            steal: ((b.cpu.steal - a.cpu.steal) / total).clamp(0.0, 1.0),
        })
    }
}

/// Snapshots at round boundaries, kept for as long as a window needs them.
#[derive(Debug, Default)]
pub struct Monitor {
    snapshots: Vec<Snapshot>,
    first: Option<Snapshot>,
}

impl Monitor {
    /// Take a snapshot now (call at the start of the run and after every round).
    pub fn mark(&mut self, m: &dyn Machine) {
        self.mark_with(m, 0.0);
    }

    /// Take a snapshot now, counting as this run's own `resident` CPU seconds that live
    /// processes of the run have used beyond `Machine::own_cpu` (workers kept between rounds,
    /// not reaped yet, and what they started).
    pub fn mark_with(&mut self, m: &dyn Machine, resident: f64) {
        let Some(cpu) = m.cpu() else { return };
        let s = Snapshot {
            at: m.now(),
            cpu,
            own: m.own_cpu() + resident,
        };
        self.first.get_or_insert(s);
        self.snapshots.push(s);
        // Keep one snapshot older than a window before the newest, and everything after it.
        let horizon = s.at.saturating_sub(WINDOW);
        let keep_from = self
            .snapshots
            .iter()
            .rposition(|x| x.at <= horizon)
            .unwrap_or(0);
        self.snapshots.drain(..keep_from);
    }

    /// The load over the shortest window of at least [`WINDOW`] ending at the last mark.
    pub fn recent(&self) -> Option<Load> {
        let last = self.snapshots.last()?;
        let horizon = last.at.saturating_sub(WINDOW);
        let start = self
            .snapshots
            .iter()
            .rev()
            .find(|x| x.at <= horizon)
            .or(self.snapshots.first())?;
        Load::between(start, last)
    }

    /// The load since the first mark (the whole run).
    pub fn overall(&self) -> Option<Load> {
        Load::between(self.first.as_ref()?, self.snapshots.last()?)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;

    /// A machine whose time, busy CPU and own CPU advance as the test says.
    #[derive(Default)]
    pub struct Scripted {
        pub t: Cell<f64>,
        pub busy: Cell<f64>,
        pub own: Cell<f64>,
        pub steal: Cell<f64>,
    }

    impl Scripted {
        /// `secs` pass; this process uses `own` CPU seconds, others `others`.
        pub fn advance(&self, secs: f64, own: f64, others: f64) {
            self.t.set(self.t.get() + secs);
            self.own.set(self.own.get() + own);
            self.busy.set(self.busy.get() + own + others);
        }
    }

    impl Machine for Scripted {
        fn now(&self) -> Duration {
            Duration::from_secs_f64(self.t.get())
        }
        fn cpu(&self) -> Option<CpuTimes> {
            Some(CpuTimes {
                busy: self.busy.get(),
                steal: self.steal.get(),
                total: 2.0 * self.t.get(),
            })
        }
        fn own_cpu(&self) -> f64 {
            self.own.get()
        }
        fn sleep(&self, d: Duration) {
            self.advance(d.as_secs_f64(), 0.0, 0.0);
        }
    }

    #[test]
    fn a_round_gets_the_load_of_the_last_second() {
        let m = Scripted::default();
        let mut mon = Monitor::default();
        mon.mark(&m);
        for _ in 0..10 {
            m.advance(0.2, 0.2, 0.0); // our worker keeps one CPU busy
            mon.mark(&m);
        }
        assert!(mon.recent().unwrap().others < 1e-9);
        m.advance(0.2, 0.2, 0.2); // something else takes a whole CPU for one round
        mon.mark(&m);
        let l = mon.recent().unwrap();
        assert!(
            (l.others - 0.2 / 1.2).abs() < 1e-9 || (l.others - 0.2).abs() < 1e-9,
            "{l:?}"
        );
        assert!(mon.overall().unwrap().others > 0.0);
    }
}
