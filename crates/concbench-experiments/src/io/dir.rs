//! Where the data files live, and who removes them.
//!
//! The coordinator (`concbench run`) chooses the directory once per run with [`RunData::prepare`]
//! and hands it to every worker as the `io-dir` option, so all variants of a run share (and create
//! only once) the same files; dropping the [`RunData`] at the end of the run — also after Ctrl-C
//! or an error — removes them unless `--keep-io-files`. Experiments measured in-process (tests)
//! get no option and use the run's scratch directory instead.
//!
//! A memory-backed file system (tmpfs, ramfs) is refused: its pages cannot be dropped, so there
//! is no cold read to measure.

use anyhow::{Context, Result};
use concbench_core::{RunContext, UsageError};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The option carrying the data directory from the coordinator to the workers.
pub const IO_DIR_OPTION: &str = "io-dir";
/// The subdirectory of `--io-dir` concbench owns (fixed, so `--keep-io-files` data is reused).
pub const DATA_SUBDIR: &str = "concbench-io-data";

/// `statfs` magic numbers of file systems whose pages live only in memory.
const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;

/// The name of the memory-backed file system `path` is on, if it is on one.
pub fn memory_backed(path: &Path) -> Result<Option<&'static str>> {
    let st = rustix::fs::statfs(path).with_context(|| format!("statfs {}", path.display()))?;
    Ok(match st.f_type as i64 {
        TMPFS_MAGIC => Some("tmpfs"),
        RAMFS_MAGIC => Some("ramfs"),
        _ => None,
    })
}

fn refusal(dir: &Path, fs: &str) -> String {
    format!(
        "--io-dir: {} is on {fs}, which keeps every page in memory, so a cold read cannot be \
         measured there; pass --io-dir with a directory on a disk (for example --io-dir /var/tmp)",
        dir.display()
    )
}

/// The directory a worker reads and writes its data files in.
///
/// In-process runs (tests) without the coordinator's option use the scratch directory; smoke
/// runs accept a memory-backed one there (they prove the code runs, they do not measure).
pub fn data_dir(ctx: &RunContext) -> Result<PathBuf> {
    let dir = match ctx.option(IO_DIR_OPTION) {
        Some(d) => PathBuf::from(d),
        None => ctx.scratch_dir.join("io-data"),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    if let Some(fs) = memory_backed(&dir)? {
        if !ctx.smoke {
            anyhow::bail!(refusal(&dir, fs));
        }
    }
    Ok(dir)
}

/// Where the data directory goes without `--io-dir`: the first disk-backed, writable one of
/// these (the next run also looks here for directories a killed run left behind).
pub fn default_bases() -> Vec<PathBuf> {
    vec![
        std::env::temp_dir(),
        PathBuf::from("/var/tmp"),
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    ]
}

/// Record this process as the directory's owner, so that a later run removes it if this one is
/// killed before it can (`concbench_sys::owner`). Kept data is the user's: never claimed, and
/// released if a killed run had claimed it.
fn claim_unless_kept(dir: &Path, keep: bool) -> Result<()> {
    if keep {
        concbench_sys::owner::release(dir)
    } else {
        concbench_sys::owner::claim(dir)
    }
}

/// The run's data directory, owned by the coordinator: removed on drop unless kept.
#[derive(Debug)]
pub struct RunData {
    dir: PathBuf,
    keep: bool,
    /// Held for the run: a second run on the same `--io-dir` would rewrite files under this one.
    _lock: Option<File>,
}

impl RunData {
    /// Choose and create the data directory: `DIR/concbench-io-data` under `--io-dir DIR`, else a
    /// per-run directory in the first disk-backed of `$TMPDIR`, `/var/tmp` and the current
    /// directory. Usage errors name `--io-dir`.
    pub fn prepare(requested: Option<&Path>, keep: bool) -> Result<Self> {
        match requested {
            Some(base) => Self::in_requested(base, keep),
            None => Self::in_default(keep),
        }
    }

    fn in_requested(base: &Path, keep: bool) -> Result<Self> {
        if !base.is_dir() {
            return Err(UsageError::new(format!(
                "--io-dir: {} is not a directory; create it or pass an existing one",
                base.display()
            ))
            .into());
        }
        if let Some(fs) = memory_backed(base)? {
            return Err(UsageError::new(refusal(base, fs)).into());
        }
        let dir = base.join(DATA_SUBDIR);
        std::fs::create_dir_all(&dir).map_err(|e| {
            UsageError::new(format!(
                "--io-dir: cannot create {}: {e}; pass a directory you can write to",
                dir.display()
            ))
        })?;
        let lock = File::create(dir.join(".lock"))
            .with_context(|| format!("creating the lock file in {}", dir.display()))?;
        if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
            return Err(UsageError::new(format!(
                "--io-dir: another concbench run is using {}; wait for it or pass another --io-dir",
                dir.display()
            ))
            .into());
        }
        claim_unless_kept(&dir, keep)?;
        Ok(Self {
            dir,
            keep,
            _lock: Some(lock),
        })
    }

    fn in_default(keep: bool) -> Result<Self> {
        let candidates = default_bases();
        for base in &candidates {
            if !base.is_dir() || !matches!(memory_backed(base), Ok(None)) {
                continue;
            }
            let dir = base.join(format!("concbench-io-{}", std::process::id()));
            if std::fs::create_dir_all(&dir).is_ok() {
                claim_unless_kept(&dir, keep)?;
                return Ok(Self {
                    dir,
                    keep,
                    _lock: None,
                });
            }
        }
        Err(UsageError::new(format!(
            "--io-dir: no disk-backed directory for the io family's data files ({} are \
             memory-backed or not writable); pass --io-dir DIR on a disk, or leave io out with --only",
            candidates
                .iter()
                .map(|c| c.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into())
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The worker options that point experiments at this directory.
    pub fn options(&self) -> BTreeMap<String, String> {
        [(IO_DIR_OPTION.to_string(), self.dir.display().to_string())]
            .into_iter()
            .collect()
    }

    /// What happened to the files, for the user (printed by the coordinator).
    pub fn describe_end(&self) -> String {
        if self.keep {
            format!(
                "kept the io data files in {} (--keep-io-files)",
                self.dir.display()
            )
        } else {
            format!("removed the io data files ({})", self.dir.display())
        }
    }
}

impl Drop for RunData {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
