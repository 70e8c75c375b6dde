//! Reading one open file to its end, the ways the sweep compares (direct IO in `direct.rs`).

use super::config::Reader;
use concbench_core::CancelToken;
use std::fs::File;
use std::io::{self, BufReader, ErrorKind, Read};

/// Poll for Ctrl-C before the first byte and then once per this many bytes (a power of two).
const CANCEL_POLL_BYTES: u64 = 8 << 20;

/// Read `file` from its current position to the end; returns the bytes delivered.
pub fn read_to_end(
    file: &mut File,
    reader: Reader,
    read_kib: u64,
    cancel: &CancelToken,
) -> io::Result<u64> {
    let size = (read_kib as usize * 1024).max(1);
    match reader {
        Reader::Block => block(file, size, cancel),
        Reader::Byte => byte(file, size, cancel),
        Reader::Direct => super::direct::read_to_end(file, size, cancel, CANCEL_POLL_BYTES),
    }
}

/// One `read(2)` of `size` bytes per call.
fn block(file: &mut File, size: usize, cancel: &CancelToken) -> io::Result<u64> {
    let mut buf = vec![0u8; size];
    let mut total = 0u64;
    let mut next_check = 0u64;
    loop {
        if total >= next_check {
            check(cancel)?;
            next_check = total + CANCEL_POLL_BYTES;
        }
        match file.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// One byte per `read` call through a `BufReader` of `size` bytes: Java's
/// `BufferedInputStream.read()` loop in the seed. The bytes are summed so the compiler cannot
/// drop the calls.
fn byte(file: &mut File, size: usize, cancel: &CancelToken) -> io::Result<u64> {
    let mut buffered = BufReader::with_capacity(size, file);
    let mut one = [0u8; 1];
    let mut total = 0u64;
    let mut sum = 0u8;
    loop {
        if total.is_multiple_of(CANCEL_POLL_BYTES) {
            check(cancel)?;
        }
        match buffered.read(&mut one) {
            Ok(0) => break,
            Ok(_) => {
                total += 1;
                sum = sum.wrapping_add(one[0]);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    std::hint::black_box(sum);
    Ok(total)
}

fn check(cancel: &CancelToken) -> io::Result<()> {
    if cancel.is_cancelled() {
        return Err(io::Error::new(ErrorKind::Interrupted, "interrupted"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: usize) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        File::create(&path)
            .unwrap()
            .write_all(&vec![1u8; bytes])
            .unwrap();
        (dir, path)
    }

    #[test]
    fn both_readers_deliver_every_byte() {
        let (_dir, path) = file_of(100_000);
        for reader in [Reader::Block, Reader::Byte] {
            let mut f = File::open(&path).unwrap();
            let n = read_to_end(&mut f, reader, 4, &CancelToken::new()).unwrap();
            assert_eq!(n, 100_000, "{reader:?}");
        }
    }

    #[test]
    fn a_cancelled_read_stops() {
        let (_dir, path) = file_of(1 << 20);
        let cancel = CancelToken::new();
        cancel.cancel();
        let mut f = File::open(&path).unwrap();
        let err = read_to_end(&mut f, Reader::Block, 4, &cancel).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Interrupted);
    }
}
