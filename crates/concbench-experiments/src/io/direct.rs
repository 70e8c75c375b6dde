//! Reader `direct`: `read(2)` with `O_DIRECT`, past the page cache, into a page-aligned buffer.
//!
//! On a virtual machine a "cold" buffered read may still be served from the guest's page cache
//! by read-ahead racing the drop, and the drop itself is the guest's only: `O_DIRECT` sends every
//! read to the device as a request of the reader's size, so the guest's cache is out of the
//! question (the device's own, or the hypervisor's, remains; the device facts say what they can).
//! `O_DIRECT` wants the buffer, the size and the file offset aligned to the device's logical
//! block: the buffer is aligned to a page (4 KiB, a multiple of every common logical block), read
//! sizes are whole KiB multiples of it, and the data files are whole MiB.

use concbench_core::CancelToken;
use rustix::fs::OFlags;
use std::fs::File;
use std::io::{self, ErrorKind, Read};

/// Alignment of the buffer, offsets and sizes.
pub const ALIGN: usize = 4096;

/// Switch `file` to direct IO (`fcntl(F_SETFL)` on Linux can set `O_DIRECT` on an open file).
pub fn enable(file: &File) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(file)?;
    rustix::fs::fcntl_setfl(file, flags | OFlags::DIRECT).map_err(|e| {
        io::Error::new(
            io::Error::from(e).kind(),
            format!(
                "this file system refuses O_DIRECT ({e}): pass --io-dir with a directory on a \
                 local disk (ext4, xfs, btrfs)"
            ),
        )
    })
}

/// Whether the file system under `file` accepts direct IO; the refusal, with the fix, when not.
pub fn probe(file: &File) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(file)?;
    enable(file)?;
    rustix::fs::fcntl_setfl(file, flags)?;
    Ok(())
}

/// A buffer of `size` bytes starting at an `ALIGN`-aligned address, inside a larger vector.
struct Aligned {
    raw: Vec<u8>,
    start: usize,
    size: usize,
}

impl Aligned {
    fn new(size: usize) -> Aligned {
        let raw = vec![0u8; size + ALIGN];
        let start = raw.as_ptr().align_offset(ALIGN);
        Aligned { raw, start, size }
    }

    fn buf(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.size]
    }
}

/// Read `file` to its end with `O_DIRECT` reads of `size` bytes (rounded up to `ALIGN`).
pub fn read_to_end(
    file: &mut File,
    size: usize,
    cancel: &CancelToken,
    poll_bytes: u64,
) -> io::Result<u64> {
    enable(file)?;
    let size = size.div_ceil(ALIGN).max(1) * ALIGN;
    let mut buf = Aligned::new(size);
    let mut total = 0u64;
    let mut next_check = 0u64;
    loop {
        if total >= next_check {
            if cancel.is_cancelled() {
                return Err(io::Error::new(ErrorKind::Interrupted, "interrupted"));
            }
            next_check = total + poll_bytes;
        }
        match file.read(buf.buf()) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_is_aligned_and_of_the_asked_size() {
        for size in [4096, 8192, 128 << 10] {
            let mut a = Aligned::new(size);
            assert_eq!(a.buf().as_ptr() as usize % ALIGN, 0);
            assert_eq!(a.buf().len(), size);
        }
    }

    #[test]
    fn a_direct_read_delivers_every_byte_or_says_the_file_system_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 3 * ALIGN * 16]).unwrap();
        let mut f = File::open(&path).unwrap();
        match read_to_end(&mut f, 128 << 10, &CancelToken::new(), 8 << 20) {
            Ok(n) => assert_eq!(n, 3 * ALIGN as u64 * 16),
            // tmpfs (a CI's /tmp) has no direct IO: the error names the fix.
            Err(e) => assert!(e.to_string().contains("--io-dir"), "{e}"),
        }
    }
}
