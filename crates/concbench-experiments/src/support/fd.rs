//! Raw descriptors for experiments whose units are forked children or threads sharing one
//! descriptor: pipes, whole-buffer writes and reads that survive EINTR, and waiting for input
//! while watching for Ctrl-C.
//!
//! Raw `write(2)`/`read(2)` rather than `std::fs::File` because forked children and many threads
//! borrow the same descriptor, and because one call per line is the point of some experiments.

use anyhow::{Context, Result};
use concbench_core::RunContext;
use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fd::{BorrowedFd, OwnedFd};
use rustix::io::Errno;

/// How long a wait blocks before it looks at the Ctrl-C flag again.
const CANCEL_POLL: Timespec = Timespec {
    tv_sec: 0,
    tv_nsec: 100_000_000,
};

/// A pipe, close-on-exec at both ends: `(read, write)`.
pub fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).context("pipe")
}

/// Write all of `buf`, retrying after signals and short writes.
pub fn write_all(fd: BorrowedFd<'_>, mut buf: &[u8]) -> std::io::Result<()> {
    while !buf.is_empty() {
        match rustix::io::write(fd, buf) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Read until `buf` is full or the writers are gone; returns how many bytes arrived.
pub fn read_full(fd: BorrowedFd<'_>, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match rustix::io::read(fd, &mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(got)
}

/// Read one chunk (at most `buf.len()` bytes; 0 = every writer is gone), retrying after signals.
pub fn read_some(fd: BorrowedFd<'_>, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match rustix::io::read(fd, &mut *buf) {
            Err(Errno::INTR) => {}
            other => return other.map_err(Into::into),
        }
    }
}

/// Block until one of `fds` has input or hung up, stopping with an error on Ctrl-C.
pub fn wait_readable(ctx: &RunContext, fds: &mut [PollFd<'_>]) -> Result<()> {
    loop {
        ctx.cancel.check()?;
        match rustix::event::poll(fds, Some(&CANCEL_POLL)) {
            Ok(0) | Err(Errno::INTR) => {}
            Ok(_) => return Ok(()),
            Err(e) => return Err(e).context("poll"),
        }
    }
}

/// Interest in input (hang-ups and errors are always reported).
pub fn readable(fd: BorrowedFd<'_>) -> PollFd<'_> {
    PollFd::from_borrowed_fd(fd, PollFlags::IN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fd::AsFd;

    #[test]
    fn bytes_cross_a_pipe_and_eof_is_seen() {
        let (r, w) = pipe().unwrap();
        write_all(w.as_fd(), b"hello").unwrap();
        drop(w);
        let mut buf = [0u8; 16];
        assert_eq!(read_full(r.as_fd(), &mut buf).unwrap(), 5);
        assert_eq!(&buf[..5], b"hello");
        assert_eq!(read_some(r.as_fd(), &mut buf).unwrap(), 0);
    }

    #[test]
    fn waiting_stops_on_cancel() {
        let (r, _w) = pipe().unwrap();
        let ctx = crate::support::test_context();
        ctx.cancel.cancel();
        let err = wait_readable(&ctx, &mut [readable(r.as_fd())]).unwrap_err();
        assert!(err.to_string().contains("interrupted"));
    }
}
