//! System calls made through libc's functions (`read`, `write`, `syscall`, `sched_yield`), the
//! way C programs, `perf bench` and the seed articles' programs make them.
//!
//! Why not rustix, which the rest of concbench uses: rustix issues the `syscall` instruction
//! inline in our own code, while a C program calls into libc's code pages. Between two context
//! switches that difference is measurable: on the 2-CPU KVM development VM (AMD EPYC, kernel
//! 6.18) the same C pipe ping-pong costs 3.04 us per one-way switch through glibc's `write` and
//! `read` and 2.52 us with inline `syscall` instructions (most likely the price of reaching
//! libc's code again after every switch to another address space). Switch experiments use these
//! wrappers so their numbers are the ones programs (and the reference tools) pay.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::atomic::AtomicU32;

/// Run a libc call again when a signal interrupted it (Ctrl-C sets a flag and returns).
fn retry_eintr(mut f: impl FnMut() -> isize) -> io::Result<usize> {
    loop {
        let rc = f();
        if rc >= 0 {
            return Ok(rc as usize);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// `read(2)` through libc; returns the bytes read (0 at end of file).
pub fn read(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the duration of the call, and
    // `fd` is a live descriptor borrowed for it.
    retry_eintr(|| unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) })
}

/// `write(2)` through libc; returns the bytes written.
pub fn write(fd: BorrowedFd<'_>, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for reads of `buf.len()` bytes for the duration of the call, and
    // `fd` is a live descriptor borrowed for it.
    retry_eintr(|| unsafe { libc::write(fd.as_raw_fd(), buf.as_ptr().cast(), buf.len()) })
}

/// `FUTEX_WAIT_PRIVATE`: sleep while `word` holds `expected`. Returns `Ok` when woken, and also
/// when the word had already changed (EAGAIN) or a signal arrived (EINTR): the caller looks at
/// the word again either way.
pub fn futex_wait(word: &AtomicU32, expected: u32) -> io::Result<()> {
    // SAFETY: FUTEX_WAIT reads the 4-byte word at a valid, aligned address that lives across
    // the call; the timeout pointer is null (no timeout).
    let rc = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            std::ptr::null::<libc::timespec>(),
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(()),
        _ => Err(err),
    }
}

/// `FUTEX_WAKE_PRIVATE`: wake up to `n` threads sleeping on `word`; returns how many woke.
pub fn futex_wake(word: &AtomicU32, n: u32) -> io::Result<usize> {
    // SAFETY: FUTEX_WAKE only uses the word's address as a key; it lives across the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            n.min(i32::MAX as u32),
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(rc as usize)
}

/// `sched_yield(2)` through libc.
pub fn sched_yield() {
    // SAFETY: sched_yield has no preconditions and cannot fail on Linux.
    unsafe { libc::sched_yield() };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    #[test]
    fn bytes_written_to_a_pipe_are_read_back() {
        let (r, w) = rustix::pipe::pipe().unwrap();
        assert_eq!(write(w.as_fd(), b"token").unwrap(), 5);
        let mut buf = [0u8; 8];
        assert_eq!(read(r.as_fd(), &mut buf).unwrap(), 5);
        assert_eq!(&buf[..5], b"token");
        drop(w);
        assert_eq!(read(r.as_fd(), &mut buf).unwrap(), 0, "end of file");
    }

    #[test]
    fn futex_wait_returns_when_the_word_already_changed_or_is_woken() {
        let word = Arc::new(AtomicU32::new(1));
        futex_wait(&word, 0).unwrap(); // EAGAIN: not 0, no sleep
        let w = word.clone();
        let sleeper = std::thread::spawn(move || {
            while w.load(Ordering::Acquire) == 1 {
                futex_wait(&w, 1).unwrap();
            }
        });
        word.store(2, Ordering::Release);
        futex_wake(&word, 1).unwrap();
        sleeper.join().unwrap();
    }
}
