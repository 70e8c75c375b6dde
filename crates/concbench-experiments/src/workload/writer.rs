//! How a print worker writes each line: one raw `write(2)` (what a terminal's line buffering
//! amounts to, without libc), or through libc's line-buffered stdio stream, as the seed's
//! `printf` did. The stream's lock is the difference: every thread of a process takes the one
//! stream's lock for each line, while a forked child has its own copy of the stream — a cost only
//! threads pay, and a candidate cause of the article's crossover.

use crate::support::fd;
use concbench_sys::stdio::LineStream;
use rustix::fd::BorrowedFd;
use std::ffi::CStr;
use std::io;

/// `params.writer`.
pub const PARAM: &str = "writer";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// One `write(2)` per line.
    Write,
    /// `fputs` through a line-buffered `FILE` (the lock and buffer of `printf`).
    Stdio,
}

impl Writer {
    pub fn as_str(self) -> &'static str {
        match self {
            Writer::Write => "write",
            Writer::Stdio => "stdio",
        }
    }
}

/// Where a worker's lines go, as its writer writes them.
pub enum Out<'a> {
    Raw(BorrowedFd<'a>),
    /// The line must be NUL-terminated for libc (`line` keeps its newline before the NUL).
    Stream(&'a LineStream, &'a CStr),
}

impl Out<'_> {
    /// Write one line. A plain `io::Error`, never `anyhow`: forked children call this (see
    /// `batch::child_writes_lines`).
    pub fn put(&self, line: &[u8]) -> io::Result<()> {
        match self {
            Out::Raw(fd) => fd::write_all(*fd, line),
            Out::Stream(s, c_line) => s.put(c_line),
        }
    }

    /// Anything still buffered, out (a child's stream before it exits, as `exit` would).
    pub fn finish(&self) -> io::Result<()> {
        match self {
            Out::Raw(_) => Ok(()),
            Out::Stream(s, _) => s.flush(),
        }
    }
}
