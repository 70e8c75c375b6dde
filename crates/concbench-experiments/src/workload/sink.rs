//! Where the print workers' lines go: `/dev/null` (the cost of the system call alone), a file
//! in the scratch directory (the page cache), or a pipe the parent drains (a consumer that must
//! read every line, as the terminal did in the seed).

use anyhow::{ensure, Context, Result};
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{Mode, OFlags};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    DevNull,
    File,
    Pipe,
}

impl Sink {
    /// The value of `params.sink`.
    pub fn as_str(self) -> &'static str {
        match self {
            Sink::DevNull => "devnull",
            Sink::File => "file",
            Sink::Pipe => "pipe",
        }
    }
}

/// The open destination of a devnull or file sink (a pipe sink is created per batch).
pub struct Target {
    fd: OwnedFd,
    path: Option<PathBuf>,
}

impl Target {
    /// Open `/dev/null`, or create `name` in `dir` for appending (O_APPEND: every worker's line
    /// lands at the end, as in a shared log file, whoever wrote last).
    pub fn open(sink: Sink, dir: &Path, name: &str) -> Result<Option<Target>> {
        let (path, flags) = match sink {
            Sink::Pipe => return Ok(None),
            Sink::DevNull => (PathBuf::from("/dev/null"), OFlags::WRONLY),
            Sink::File => (
                dir.join(name),
                OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::APPEND,
            ),
        };
        let fd = rustix::fs::open(&path, flags | OFlags::CLOEXEC, Mode::from_raw_mode(0o600))
            .with_context(|| format!("opening {}", path.display()))?;
        let path = (sink == Sink::File).then_some(path);
        Ok(Some(Target { fd, path }))
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Empty the file before a batch, so every batch writes into the same state.
    pub fn reset(&self) -> Result<()> {
        if self.path.is_some() {
            rustix::fs::ftruncate(&self.fd, 0).context("truncating the sink file")?;
        }
        Ok(())
    }

    /// After a batch: a file must hold exactly what the workers wrote.
    pub fn verify(&self, expected_bytes: u64) -> Result<()> {
        if let Some(path) = &self.path {
            let size = rustix::fs::fstat(&self.fd)?.st_size as u64;
            ensure!(
                size == expected_bytes,
                "{} holds {size} bytes, the workers wrote {expected_bytes}",
                path.display()
            );
        }
        Ok(())
    }

    /// Remove the file (teardown).
    pub fn remove(self) -> Result<()> {
        if let Some(path) = &self.path {
            std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
        }
        Ok(())
    }
}

/// One line of exactly `bytes` bytes ending in a newline: "hello linux\n" at 12 bytes (the
/// seed's text), repeated to fill longer lines.
pub fn line(bytes: usize) -> Vec<u8> {
    let mut line: Vec<u8> = b"hello linux "
        .iter()
        .copied()
        .cycle()
        .take(bytes.saturating_sub(1))
        .collect();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_have_the_exact_size() {
        assert_eq!(line(12), b"hello linux\n");
        let long = line(256);
        assert_eq!(long.len(), 256);
        assert_eq!(long.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    #[test]
    fn a_file_sink_is_verified_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let t = Target::open(Sink::File, dir.path(), "x.out")
            .unwrap()
            .unwrap();
        crate::support::fd::write_all(t.fd(), b"abc").unwrap();
        t.verify(3).unwrap();
        assert!(t.verify(4).is_err());
        t.reset().unwrap();
        t.verify(0).unwrap();
        t.remove().unwrap();
        assert!(!dir.path().join("x.out").exists());
    }
}
