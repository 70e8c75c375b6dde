//! Turn hand-overs between two units (a ping-pong): each side waits for its turn, does its part,
//! and passes the turn back. One pass that wakes a blocked peer is one one-way switch.
//!
//! Three mechanisms, each a pair of [`Endpoint`]s (one per side):
//! * [`pipe_pair`]: a 1-byte token through two pipes (seed S3, `perf bench sched pipe`);
//! * [`futex_pair`]: one shared word and raw `FUTEX_WAIT`/`FUTEX_WAKE`, no spinning;
//! * [`event_pair`]: two auto-reset events, one per direction (seed S1's hand-over, strict).
//!
//! Every system call goes through libc, as in C programs and `perf bench` (see
//! `concbench_sys::via_libc` for the measured reason).
//!
//! Dropping an endpoint tells its peer: the peer's next [`Endpoint::wait_turn`] returns `false`
//! (for pipes, the kernel's end-of-file does it). That is how partners learn to stop, and how a
//! main side notices a partner that died instead of waiting forever.

use super::event::AutoResetEvent;
use anyhow::{Context, Result};
use concbench_sys::via_libc;
use rustix::fd::{AsFd, OwnedFd};
use rustix::pipe::{pipe_with, PipeFlags};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// One side of a hand-over.
pub trait Endpoint: Send + 'static {
    /// Give the turn to the peer (waking it if it sleeps).
    fn pass(&mut self) -> Result<()>;
    /// Block until the turn comes back; `false` when the peer has gone.
    fn wait_turn(&mut self) -> Result<bool>;
}

/// A 1-byte token through a pair of pipes: this side reads `rx` and writes `tx`.
pub struct PipeEnd {
    rx: OwnedFd,
    tx: OwnedFd,
}

/// Two pipes, crossed: what one side writes the other reads.
pub fn pipe_pair() -> Result<(PipeEnd, PipeEnd)> {
    let (a_rx, b_tx) = pipe_with(PipeFlags::CLOEXEC).context("pipe")?;
    let (b_rx, a_tx) = pipe_with(PipeFlags::CLOEXEC).context("pipe")?;
    Ok((
        PipeEnd { rx: a_rx, tx: a_tx },
        PipeEnd { rx: b_rx, tx: b_tx },
    ))
}

impl Endpoint for PipeEnd {
    fn pass(&mut self) -> Result<()> {
        via_libc::write(self.tx.as_fd(), b"t").context("writing the token")?;
        Ok(())
    }

    fn wait_turn(&mut self) -> Result<bool> {
        let mut token = [0u8; 1];
        let n = via_libc::read(self.rx.as_fd(), &mut token).context("reading the token")?;
        Ok(n == 1)
    }
}

/// Whose turn the shared futex word says it is.
const TURN_A: u32 = 0;
const TURN_B: u32 = 1;
const CLOSED: u32 = 2;

/// One side of a futex hand-over: the shared word holds whose turn it is.
pub struct FutexEnd {
    word: Arc<AtomicU32>,
    mine: u32,
    theirs: u32,
}

/// A futex hand-over; the first endpoint has the turn.
pub fn futex_pair() -> Result<(FutexEnd, FutexEnd)> {
    let word = Arc::new(AtomicU32::new(TURN_A));
    let end = |mine, theirs| FutexEnd {
        word: word.clone(),
        mine,
        theirs,
    };
    Ok((end(TURN_A, TURN_B), end(TURN_B, TURN_A)))
}

impl Endpoint for FutexEnd {
    fn pass(&mut self) -> Result<()> {
        // Only from "my turn": a peer that has gone (CLOSED) must stay visible as gone.
        let _ = self.word.compare_exchange(
            self.mine,
            self.theirs,
            Ordering::Release,
            Ordering::Relaxed,
        );
        via_libc::futex_wake(&self.word, 1).context("FUTEX_WAKE")?;
        Ok(())
    }

    fn wait_turn(&mut self) -> Result<bool> {
        loop {
            match self.word.load(Ordering::Acquire) {
                v if v == self.mine => return Ok(true),
                CLOSED => return Ok(false),
                v => via_libc::futex_wait(&self.word, v).context("FUTEX_WAIT")?,
            }
        }
    }
}

impl Drop for FutexEnd {
    fn drop(&mut self) {
        self.word.store(CLOSED, Ordering::Release);
        let _ = via_libc::futex_wake(&self.word, u32::MAX);
    }
}

/// One side of an event hand-over: wait on `mine`, set `theirs`.
pub struct EventEnd<E: AutoResetEvent> {
    mine: Arc<E>,
    theirs: Arc<E>,
    closed: Arc<AtomicBool>,
}

/// Two auto-reset events, one per direction.
pub fn event_pair<E: AutoResetEvent>() -> Result<(EventEnd<E>, EventEnd<E>)> {
    let (a, b) = (Arc::new(E::new()?), Arc::new(E::new()?));
    let closed = Arc::new(AtomicBool::new(false));
    Ok((
        EventEnd {
            mine: a.clone(),
            theirs: b.clone(),
            closed: closed.clone(),
        },
        EventEnd {
            mine: b,
            theirs: a,
            closed,
        },
    ))
}

impl<E: AutoResetEvent> Endpoint for EventEnd<E> {
    fn pass(&mut self) -> Result<()> {
        self.theirs.set()
    }

    fn wait_turn(&mut self) -> Result<bool> {
        self.mine.wait()?;
        Ok(!self.closed.load(Ordering::Acquire))
    }
}

impl<E: AutoResetEvent> Drop for EventEnd<E> {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        let _ = self.theirs.set();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::event::{CondvarEvent, EventFd};

    /// The partner echoes turns until the main side drops its endpoint; returns the echo count.
    fn ping_pong<E: Endpoint>((mut main, mut partner): (E, E), rounds: usize) -> usize {
        let echo = std::thread::spawn(move || {
            let mut turns = 0;
            while partner.wait_turn().unwrap() {
                turns += 1;
                partner.pass().unwrap();
            }
            turns
        });
        for _ in 0..rounds {
            main.pass().unwrap();
            assert!(main.wait_turn().unwrap(), "partner went away");
        }
        drop(main);
        echo.join().unwrap()
    }

    #[test]
    fn every_mechanism_hands_over_and_shuts_down() {
        assert_eq!(ping_pong(pipe_pair().unwrap(), 100), 100);
        assert_eq!(ping_pong(futex_pair().unwrap(), 100), 100);
        assert_eq!(ping_pong(event_pair::<EventFd>().unwrap(), 100), 100);
        assert_eq!(ping_pong(event_pair::<CondvarEvent>().unwrap(), 100), 100);
    }

    #[test]
    fn a_dropped_partner_is_noticed() {
        fn noticed<E: Endpoint>((mut main, partner): (E, E)) -> bool {
            drop(partner);
            main.pass().ok();
            !main.wait_turn().unwrap()
        }
        assert!(noticed(futex_pair().unwrap()));
        assert!(noticed(event_pair::<EventFd>().unwrap()));
        assert!(noticed(event_pair::<CondvarEvent>().unwrap()));
        // A pipe's peer gone: writing fails (EPIPE) or reading sees end-of-file.
        let (mut main, partner) = pipe_pair().unwrap();
        drop(partner);
        assert!(main.pass().is_err() || !main.wait_turn().unwrap());
    }
}
