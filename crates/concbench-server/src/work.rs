//! A request's own work, as the [`Handler`](crate::Handler) asks for it: CPU burned on the serving
//! thread's own CPU clock, then the blocking call (each design blocks its own way; see
//! [`crate::designs`]).
//!
//! Why the thread's CPU clock and not the wall clock: on a loaded machine a spin timed by the
//! wall clock would count the time the thread spent preempted as the request's work, and bill
//! less CPU per request the busier the server. `CLOCK_THREAD_CPUTIME_ID` counts only the time the
//! thread ran, so "100 µs of CPU per request" is what each request costs whatever else runs.

use std::time::Duration;

/// The calling thread's CPU time so far.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid `ts`; the thread CPU clock exists
    // on every Linux since 2.6.12.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Spin until this thread has run for `cpu` more (nothing when `None`). The loop body reads the
/// clock (a vDSO call of about 50 ns here), so the overshoot is one such call.
pub fn burn(cpu: Option<Duration>) {
    let Some(cpu) = cpu.filter(|d| !d.is_zero()) else {
        return;
    };
    let until = thread_cpu() + cpu;
    while thread_cpu() < until {
        std::hint::spin_loop();
    }
}

/// Blocking calls shorter than this are timed with a 1 ns timer slack (see [`precise_sleeps`]).
pub const SHORT_BLOCK: Duration = Duration::from_millis(1);

/// Make this thread's (and the threads and processes it starts afterwards) sleeps end when they
/// are due: Linux lets a sleep of an ordinary thread overrun by its timer slack, 50 µs by default,
/// which is half of a 0.1 ms blocking call and nothing of a 10 ms one. A real blocking call (a
/// database answering on a socket) is woken by its data, not by a timer, so a sleep that ends on
/// time is the closer stand-in. Called in the server process before its design starts, when the
/// handler blocks for less than [`SHORT_BLOCK`].
pub fn precise_sleeps() {
    // SAFETY: PR_SET_TIMERSLACK takes a value in nanoseconds and affects only this thread (and
    // what it creates later, which inherits it).
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burning_spends_at_least_the_cpu_asked_on_this_thread() {
        let before = thread_cpu();
        burn(Some(Duration::from_micros(300)));
        assert!(thread_cpu() - before >= Duration::from_micros(300));
        let before = thread_cpu();
        burn(None);
        burn(Some(Duration::ZERO));
        // Two clock reads and no spin: far below a millisecond of CPU.
        assert!(thread_cpu() - before < Duration::from_millis(1));
    }
}
