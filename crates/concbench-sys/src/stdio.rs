//! A line-buffered C stdio stream over a descriptor: what `printf` writes through in the seed
//! articles' C programs (stdout on a terminal is line-buffered: one `write(2)` per line, each
//! call taking the stream's lock).
//!
//! Hand-written over libc because the point is libc's own stream: its per-`FILE` lock, which
//! every thread of a process shares and a forked child gets a private copy of, and its buffer.
//! A Rust writer would measure something else.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// A `FILE *` opened on a duplicate of a descriptor, line-buffered, closed on drop.
pub struct LineStream {
    file: *mut libc::FILE,
}

// SAFETY: glibc's stdio serialises every operation on a `FILE` with the stream's own lock
// (`flockfile`), so one stream may be used from several threads at once — which is the cost this
// type exists to measure.
unsafe impl Send for LineStream {}
// SAFETY: as above: every call through `&LineStream` takes the stream's lock inside libc.
unsafe impl Sync for LineStream {}

impl LineStream {
    /// Open a line-buffered stream writing to a duplicate of `fd` (the caller keeps `fd`).
    pub fn open(fd: BorrowedFd<'_>) -> io::Result<LineStream> {
        // SAFETY: `fd` is a live descriptor for the duration of the call; dup returns a new one
        // or -1.
        let dup = unsafe { libc::dup(fd.as_raw_fd()) };
        if dup < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `dup` is a descriptor this function owns; the mode is a NUL-terminated string.
        let file = unsafe { libc::fdopen(dup, c"w".as_ptr()) };
        if file.is_null() {
            let err = io::Error::last_os_error();
            // SAFETY: fdopen failed, so `dup` is still ours to close.
            unsafe { libc::close(dup) };
            return Err(err);
        }
        // SAFETY: `file` is a freshly opened stream nothing has written to; a null buffer lets
        // libc allocate its own of BUFSIZ bytes.
        let rc = unsafe {
            libc::setvbuf(
                file,
                std::ptr::null_mut(),
                libc::_IOLBF,
                libc::BUFSIZ as usize,
            )
        };
        let stream = LineStream { file };
        if rc != 0 {
            return Err(io::Error::other("setvbuf refused line buffering"));
        }
        Ok(stream)
    }

    /// `fputs` one line (it ends in a newline, so line buffering writes it out), under the
    /// stream's lock.
    pub fn put(&self, line: &CStr) -> io::Result<()> {
        // SAFETY: `line` is NUL-terminated and outlives the call; `self.file` is open until drop.
        if unsafe { libc::fputs(line.as_ptr(), self.file) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Write out anything buffered (a line without its newline).
    pub fn flush(&self) -> io::Result<()> {
        // SAFETY: `self.file` is open until drop.
        if unsafe { libc::fflush(self.file) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for LineStream {
    fn drop(&mut self) {
        // SAFETY: `self.file` was opened by `open` and is closed exactly once, here.
        unsafe { libc::fclose(self.file) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::AsFd;

    #[test]
    fn lines_reach_the_descriptor_one_at_a_time_and_from_several_threads() {
        let (mut rx, tx) = std::io::pipe().unwrap();
        let stream = LineStream::open(tx.as_fd()).unwrap();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..100 {
                        stream.put(c"hello linux\n").unwrap();
                    }
                });
            }
        });
        stream.flush().unwrap();
        drop(stream);
        drop(tx);
        let mut all = String::new();
        rx.read_to_string(&mut all).unwrap();
        assert_eq!(all.lines().count(), 400);
        assert!(all.lines().all(|l| l == "hello linux"), "lines were torn");
    }
}
