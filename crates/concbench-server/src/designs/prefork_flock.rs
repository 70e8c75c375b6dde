//! Stevens #3: prefork, with an fcntl record lock around `accept` (Stevens's `my_lock_wait`),
//! so only one child at a time sleeps in accept. The lock file is an unlinked temporary file;
//! record locks belong to processes, so every child contends on the same inode, and the kernel
//! releases a dead child's lock.

use super::prefork::{accept_loop, supervise};
use crate::{Handler, Ready};
use anyhow::{Context, Result};
use std::fs::File;
use std::net::TcpListener;
use std::os::fd::AsRawFd;

pub fn serve(listener: TcpListener, handler: Handler, workers: usize, ready: Ready) -> Result<()> {
    let file = tempfile::tempfile().context("creating the accept lock file")?;
    supervise(workers, ready, || {
        accept_loop(
            &listener,
            &handler,
            || set_lock(&file, libc::F_WRLCK),
            || set_lock(&file, libc::F_UNLCK),
        )
    })
}

/// F_SETLKW on the whole file: take (`F_WRLCK`, waiting) or release (`F_UNLCK`) the lock.
fn set_lock(file: &File, kind: libc::c_int) -> Result<()> {
    // SAFETY: an all-zero flock is valid; the fields that matter are set below.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    loop {
        // SAFETY: fcntl(F_SETLKW) reads one flock struct that lives across the call.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLKW, &lock) };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("fcntl(F_SETLKW)");
        }
    }
}
