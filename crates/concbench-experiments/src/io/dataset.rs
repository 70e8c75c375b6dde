//! The data files: `count` files of `bytes` random bytes each, created once and reused.
//!
//! Every variant runs in a fresh worker process, so files are named by size and index in the
//! run's data directory (`8192KiB-007.dat`) and each variant creates only those that are missing
//! or have the wrong size (an interrupted creation). Random bytes keep compressing file systems
//! (btrfs, zfs) from storing less than is read; they are written to a temporary name, synced and
//! renamed, so a file with the final name is always complete.

use anyhow::{bail, Context, Result};
use concbench_core::CancelToken;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bytes generated and written per `write(2)` while creating a file.
const CHUNK: usize = 1 << 20;

#[derive(Debug, Clone)]
pub struct DataSet {
    dir: PathBuf,
    bytes: u64,
}

impl DataSet {
    pub fn new(dir: &Path, bytes: u64) -> Self {
        Self {
            dir: dir.to_path_buf(),
            bytes,
        }
    }

    pub fn file_bytes(&self) -> u64 {
        self.bytes
    }

    pub fn path(&self, index: usize) -> PathBuf {
        self.dir
            .join(format!("{}KiB-{index:03}.dat", self.bytes.div_ceil(1024)))
    }

    /// Create the first `count` files that are missing or of the wrong size; whether it created
    /// any (they stay for the run's later rounds: see
    /// `concbench_core::Experiment::prepared_for_later`).
    pub fn ensure(&self, count: usize, cancel: &CancelToken) -> Result<bool> {
        let missing: Vec<usize> = (0..count).filter(|&i| !self.complete(i)).collect();
        if missing.is_empty() {
            return Ok(false);
        }
        self.check_space(missing.len() as u64 * self.bytes)?;
        for i in missing {
            cancel.check()?;
            self.create(i, cancel)
                .with_context(|| format!("creating {}", self.path(i).display()))?;
        }
        Ok(true)
    }

    /// Open the first `count` files for reading, positioned at their start.
    pub fn open(&self, count: usize) -> Result<Vec<File>> {
        (0..count)
            .map(|i| {
                let p = self.path(i);
                File::open(&p).with_context(|| format!("opening {}", p.display()))
            })
            .collect()
    }

    fn complete(&self, index: usize) -> bool {
        std::fs::metadata(self.path(index)).is_ok_and(|m| m.len() == self.bytes)
    }

    fn check_space(&self, needed: u64) -> Result<()> {
        if needed == 0 {
            return Ok(());
        }
        let st = rustix::fs::statvfs(&self.dir)
            .with_context(|| format!("statvfs {}", self.dir.display()))?;
        let free = st.f_bavail.saturating_mul(st.f_frsize);
        // Keep a margin so the measurement never fills the user's disk.
        let margin = 256 << 20;
        if free < needed + margin {
            bail!(
                "the io data files need {} MiB more in {} but only {} MiB are free; pass \
                 --io-dir with a larger file system, or run with --quick (smaller files)",
                (needed + margin) >> 20,
                self.dir.display(),
                free >> 20
            );
        }
        Ok(())
    }

    fn create(&self, index: usize, cancel: &CancelToken) -> Result<()> {
        let path = self.path(index);
        let tmp = path.with_extension("tmp");
        let mut f = File::create(&tmp)?;
        // Seeded per file: reproducible content, different in every file.
        let mut rng = fastrand::Rng::with_seed(self.bytes ^ ((index as u64) << 40));
        let mut buf = vec![0u8; CHUNK];
        let mut left = self.bytes;
        while left > 0 {
            cancel.check()?;
            let n = left.min(CHUNK as u64) as usize;
            rng.fill(&mut buf[..n]);
            f.write_all(&buf[..n])?;
            left -= n as u64;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_missing_and_replaces_truncated_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let set = DataSet::new(dir.path(), 10_000);
        assert!(set.ensure(2, &CancelToken::new()).unwrap());
        let first = std::fs::read(set.path(0)).unwrap();
        assert_eq!(first.len(), 10_000);
        assert_ne!(first, std::fs::read(set.path(1)).unwrap());
        std::fs::write(set.path(1), b"short").unwrap();
        set.ensure(3, &CancelToken::new()).unwrap();
        for i in 0..3 {
            assert_eq!(std::fs::metadata(set.path(i)).unwrap().len(), 10_000);
        }
        assert_eq!(std::fs::read(set.path(0)).unwrap(), first);
        // Nothing left to create: nothing spent for later rounds.
        assert!(!set.ensure(3, &CancelToken::new()).unwrap());
        assert_eq!(set.open(3).unwrap().len(), 3);
    }
}
