//! Lines read from a pipe that several writers share (children or threads each sending whole
//! lines in one `write(2)`), without blocking past a Ctrl-C.

use super::fd::{read_some, readable, wait_readable};
use anyhow::Result;
use concbench_core::RunContext;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};

pub struct Lines {
    fd: OwnedFd,
    pending: Vec<u8>,
}

impl Lines {
    pub fn new(fd: OwnedFd) -> Self {
        Self {
            fd,
            pending: Vec::new(),
        }
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// A complete line already received, without its newline.
    pub fn pop(&mut self) -> Option<String> {
        let end = self.pending.iter().position(|&b| b == b'\n')?;
        let line: Vec<u8> = self.pending.drain(..=end).collect();
        Some(String::from_utf8_lossy(&line[..end]).into_owned())
    }

    /// One `read(2)` into the buffer; `Ok(false)` at end of file (every writer gone). On a
    /// non-blocking descriptor with nothing to read, returns the `WouldBlock` error.
    pub fn fill(&mut self) -> std::io::Result<bool> {
        let mut chunk = [0u8; 4096];
        let n = read_some(self.fd.as_fd(), &mut chunk)?;
        self.pending.extend_from_slice(&chunk[..n]);
        Ok(n > 0)
    }

    /// The next line, waiting for it; `None` at end of file. Stops with an error on Ctrl-C.
    pub fn next(&mut self, ctx: &RunContext) -> Result<Option<String>> {
        loop {
            if let Some(line) = self.pop() {
                return Ok(Some(line));
            }
            wait_readable(ctx, &mut [readable(self.fd.as_fd())])?;
            if !self.fill()? {
                return Ok(None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_across_reads_are_joined() {
        let (r, w) = super::super::fd::pipe().unwrap();
        let mut lines = Lines::new(r);
        let ctx = crate::support::test_context();
        super::super::fd::write_all(w.as_fd(), b"one\ntw").unwrap();
        assert_eq!(lines.next(&ctx).unwrap().as_deref(), Some("one"));
        super::super::fd::write_all(w.as_fd(), b"o\n").unwrap();
        drop(w);
        assert_eq!(lines.next(&ctx).unwrap().as_deref(), Some("two"));
        assert_eq!(lines.next(&ctx).unwrap(), None);
    }
}
