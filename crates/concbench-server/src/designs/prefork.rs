//! Stevens #2: the parent forks a pool of children up front; each blocks in `accept` on the
//! shared listening socket and serves the connection it gets (the kernel wakes one of them).
//! The pool and its supervision are shared with the other prefork designs: the parent waits
//! for children and forks a replacement for any that dies (as Apache's prefork does), so a
//! crashed worker costs only its own connection.

use crate::conn::{self, Buffers};
use crate::termination::reset_child_signals;
use crate::{listener, Handler, Ready};
use anyhow::Result;
use std::net::TcpListener;

pub fn serve(listener: TcpListener, handler: Handler, workers: usize, ready: Ready) -> Result<()> {
    supervise(workers, ready, || {
        accept_loop(&listener, &handler, || Ok(()), || Ok(()))
    })
}

/// Fork `workers` children running `child`, signal readiness, then replace any that dies.
pub(super) fn supervise(
    workers: usize,
    ready: Ready,
    child: impl Fn() -> Result<()>,
) -> Result<()> {
    for _ in 0..workers.max(1) {
        spawn(&child)?;
    }
    ready.signal("");
    loop {
        // SAFETY: waitpid with a null status pointer blocks until a child of ours ends.
        let pid = unsafe { libc::waitpid(-1, std::ptr::null_mut(), 0) };
        if pid > 0 {
            spawn(&child)?;
        } else if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            anyhow::bail!("waitpid: {}", std::io::Error::last_os_error());
        }
    }
}

fn spawn(child: &impl Fn() -> Result<()>) -> Result<()> {
    let c = concbench_sys::fork_child(|| {
        reset_child_signals();
        match child() {
            Ok(()) => 0,
            Err(_) => 1,
        }
    })?;
    // The supervisor reaps with waitpid(-1).
    let _ = c.into_pid();
    Ok(())
}

/// A child's life: `lock`, accept, `unlock`, serve; forever. Prefork passes no-op locks.
pub(super) fn accept_loop(
    listener: &TcpListener,
    handler: &Handler,
    lock: impl Fn() -> Result<()>,
    unlock: impl Fn() -> Result<()>,
) -> Result<()> {
    let mut bufs = Buffers::default();
    loop {
        lock()?;
        let accepted = listener::accept(listener);
        unlock()?;
        match accepted {
            Ok(mut stream) => {
                let _ = conn::serve(&mut stream, handler, &mut bufs);
            }
            Err(e) => super::after_accept_error(&e)?,
        }
    }
}
