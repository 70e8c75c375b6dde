//! Waiting for a quiet machine before measuring.
//!
//! The README's one-liner builds concbench first, so a newcomer's run starts while the load
//! average is still about 2 — from a build that has already finished. The load average is a
//! one-minute mean and lags; what matters is whether other processes use the CPUs *now*. So the
//! run samples the machine over short windows and starts as soon as one is quiet, or after the
//! bound, saying how busy the machine still was.

use crate::machine::Machine;
use crate::monitor::Monitor;
use std::time::Duration;

/// One look at the machine.
const LOOK: Duration = Duration::from_millis(300);
/// Quiet: other processes use less than this many CPUs.
pub const QUIET: f64 = 0.15;

/// How the wait went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settled {
    pub waited: Duration,
    /// CPUs' worth of other processes at the last look (`None`: `/proc/stat` unreadable).
    pub others: Option<f64>,
    /// Known to be quiet: false when busy, and false when it could not be told (`others` is
    /// `None`), so the run says it does not know instead of calling the machine quiet.
    pub quiet: bool,
}

/// Wait until other processes use less than [`QUIET`] CPUs, at most `limit`, or until
/// `cancelled()`. `report(others, waited)` is called after each busy look, for a progress line.
pub fn settle(
    m: &dyn Machine,
    limit: Duration,
    cancelled: &dyn Fn() -> bool,
    report: &mut dyn FnMut(f64, Duration),
) -> Settled {
    let start = m.now();
    let mut others = None;
    loop {
        let mut mon = Monitor::default();
        mon.mark(m);
        m.sleep(LOOK);
        mon.mark(m);
        others = mon.overall().map(|l| l.others).or(others);
        let waited = m.now() - start;
        match others {
            Some(o) if o >= QUIET && waited < limit && !cancelled() => report(o, waited),
            _ => {
                return Settled {
                    waited,
                    others,
                    quiet: others.is_some_and(|o| o < QUIET),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ctrl_c_ends_the_wait() {
        let m = Busy {
            inner: Scripted::default(),
            busy_until: 100.0,
        };
        let s = settle(&m, Duration::from_secs(60), &|| true, &mut |_, _| {});
        assert!(s.waited < Duration::from_secs(1) && !s.quiet);
    }

    use super::*;
    use crate::monitor::tests::Scripted;

    /// A machine where something else uses `busy_for` seconds of one CPU, then nothing.
    struct Busy {
        inner: Scripted,
        busy_until: f64,
    }

    impl Machine for Busy {
        fn now(&self) -> Duration {
            self.inner.now()
        }
        fn cpu(&self) -> Option<crate::machine::CpuTimes> {
            self.inner.cpu()
        }
        fn own_cpu(&self) -> f64 {
            self.inner.own_cpu()
        }
        fn sleep(&self, d: Duration) {
            let others = if self.inner.t.get() < self.busy_until {
                1.0
            } else {
                0.0
            };
            self.inner
                .advance(d.as_secs_f64(), 0.0, others * d.as_secs_f64());
        }
    }

    #[test]
    fn a_quiet_machine_is_measured_at_once() {
        let m = Scripted::default();
        let s = settle(&m, Duration::from_secs(10), &|| false, &mut |_, _| {
            panic!("no wait expected")
        });
        assert!(s.quiet && s.waited <= LOOK);
    }

    #[test]
    fn a_busy_machine_is_waited_for_until_it_settles() {
        let m = Busy {
            inner: Scripted::default(),
            busy_until: 2.0,
        };
        let mut looks = 0;
        let s = settle(&m, Duration::from_secs(10), &|| false, &mut |o, _| {
            assert!(o > 0.9);
            looks += 1;
        });
        assert!(
            s.quiet && looks >= 6 && s.waited < Duration::from_secs(3),
            "{s:?}"
        );
    }

    #[test]
    fn the_wait_is_bounded_and_says_the_machine_was_still_busy() {
        let m = Busy {
            inner: Scripted::default(),
            busy_until: 100.0,
        };
        let s = settle(&m, Duration::from_secs(2), &|| false, &mut |_, _| {});
        assert!(
            !s.quiet && s.waited >= Duration::from_secs(2) && s.waited < Duration::from_secs(3)
        );
        assert!(s.others.unwrap() > 0.9);
    }
}
