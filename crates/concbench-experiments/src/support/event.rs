//! Auto-reset events (seed S1's `AutoResetEvent`): `set` lets one waiter through, and the event
//! closes again as that waiter passes, so every `wait` consumes exactly one `set`.
//!
//! The system calls go through libc (see `concbench_sys::via_libc` for why).
//!
//! Two implementations, because they are two different costs:
//! * [`EventFd`] is a kernel object, like a Windows event: `set` writes 1 to an eventfd, `wait`
//!   reads it (blocking until it is non-zero; the read resets the counter to 0).
//! * [`CondvarEvent`] is the user-space pattern (std `Mutex<bool>` + `Condvar`, both futex-based
//!   on Linux): the flag is checked in user space and only a waiter that finds it clear sleeps.

use anyhow::{Context, Result};
use concbench_sys::via_libc;
use rustix::event::{eventfd, EventfdFlags};
use rustix::fd::{AsFd, OwnedFd};
use std::sync::{Condvar, Mutex};

pub trait AutoResetEvent: Sized + Send + Sync + 'static {
    /// A closed event.
    fn new() -> Result<Self>;
    /// Open the event for one waiter (a no-op if it is already open).
    fn set(&self) -> Result<()>;
    /// Block until the event is open, then close it again.
    fn wait(&self) -> Result<()>;
}

/// An eventfd used as an auto-reset event.
pub struct EventFd(OwnedFd);

impl AutoResetEvent for EventFd {
    fn new() -> Result<Self> {
        Ok(Self(eventfd(0, EventfdFlags::CLOEXEC).context("eventfd")?))
    }

    fn set(&self) -> Result<()> {
        via_libc::write(self.0.as_fd(), &1u64.to_ne_bytes()).context("eventfd write")?;
        Ok(())
    }

    fn wait(&self) -> Result<()> {
        let mut buf = [0u8; 8];
        via_libc::read(self.0.as_fd(), &mut buf).context("eventfd read")?;
        Ok(())
    }
}

/// `Mutex<bool>` + `Condvar` used as an auto-reset event.
#[derive(Default)]
pub struct CondvarEvent {
    open: Mutex<bool>,
    cond: Condvar,
}

impl AutoResetEvent for CondvarEvent {
    fn new() -> Result<Self> {
        Ok(Self::default())
    }

    fn set(&self) -> Result<()> {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        // Notify after unlocking, so the woken waiter does not block again on the mutex.
        self.cond.notify_one();
        Ok(())
    }

    fn wait(&self) -> Result<()> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        while !*open {
            open = self.cond.wait(open).unwrap_or_else(|p| p.into_inner());
        }
        *open = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Whether the event would let a waiter through right now (tests only).
    trait Peek {
        fn is_open(&self) -> bool;
    }

    impl Peek for EventFd {
        fn is_open(&self) -> bool {
            let mut fds = [rustix::event::PollFd::new(
                &self.0,
                rustix::event::PollFlags::IN,
            )];
            let zero = rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            rustix::event::poll(&mut fds, Some(&zero)).unwrap() == 1
        }
    }

    impl Peek for CondvarEvent {
        fn is_open(&self) -> bool {
            *self.open.lock().unwrap()
        }
    }

    /// Sets do not accumulate (two sets, one wait, closed again), a set before the wait is not
    /// lost, and a blocked waiter is released by a later set.
    fn behaves_as_auto_reset<E: AutoResetEvent + Peek>(event: E) {
        let event = Arc::new(event);
        assert!(!event.is_open());
        event.set().unwrap();
        event.set().unwrap();
        assert!(event.is_open());
        event.wait().unwrap();
        assert!(
            !event.is_open(),
            "a second set must not leave a pass behind"
        );
        let e = event.clone();
        let waiter = std::thread::spawn(move || e.wait().unwrap());
        event.set().unwrap();
        waiter.join().unwrap();
        assert!(!event.is_open());
    }

    #[test]
    fn eventfd_is_auto_reset() {
        behaves_as_auto_reset(EventFd::new().unwrap());
    }

    #[test]
    fn condvar_event_is_auto_reset() {
        behaves_as_auto_reset(CondvarEvent::new().unwrap());
    }
}
