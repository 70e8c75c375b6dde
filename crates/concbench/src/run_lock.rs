//! One measuring run per machine: two runs measuring at once disturb each other's figures (a
//! switch read 9.4 µs beside another run against 2.6 µs alone), so a run takes a machine-wide
//! lock before it measures and refuses, naming the other run, when another holds it.
//!
//! The lock is an advisory `flock` on a file in the temporary directory (`$CONCBENCH_LOCK`
//! names another file: containers that share a host but not `/tmp`, or tests). `flock` is
//! released by the kernel when the process dies, so a crashed run never leaves the machine
//! locked; the file itself stays (removing it would race with a run that just opened it).
//! A run forced beside another (`--allow-concurrent`) appends itself to a list beside the lock
//! file, so the run holding the lock learns of it too: both documents record the overlap.

use anyhow::{Context, Result};
use concbench_core::UsageError;
use rustix::fs::{flock, FlockOperation};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Who measures: what a refused run tells its user, and what an overlap records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOwner {
    pub pid: u32,
    /// RFC 3339, wall clock.
    pub started_at: String,
    /// The command line, for the message ("concbench run --quick").
    pub command: String,
}

/// The held lock (or, when forced beside another run, the record of that run). Dropping it
/// releases the lock.
pub struct RunLock {
    file: File,
    path: PathBuf,
    me: RunOwner,
    holder: bool,
    /// The run holding the lock when this one was forced beside it.
    beside: Option<RunOwner>,
}

/// The lock file: `$CONCBENCH_LOCK`, else `concbench-run.lock` in the temporary directory.
pub fn lock_path() -> PathBuf {
    std::env::var_os("CONCBENCH_LOCK")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("concbench-run.lock"))
}

impl RunLock {
    /// Take the machine's run lock for `me`. When another run holds it: refuse (a usage error
    /// naming that run and the flag), or with `allow_concurrent` go on and record the overlap.
    pub fn acquire(path: &Path, me: RunOwner, allow_concurrent: bool) -> Result<RunLock> {
        let file = open_shared(path)?;
        if flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok() {
            let mut lock = RunLock {
                file,
                path: path.to_path_buf(),
                me,
                holder: true,
                beside: None,
            };
            lock.write_owner()?;
            // A new holder starts a new list of runs forced beside it.
            let _ = std::fs::remove_file(beside_path(path));
            return Ok(lock);
        }
        let other = read_owner(path).unwrap_or(RunOwner {
            pid: 0,
            started_at: "an unknown time".into(),
            command: "concbench".into(),
        });
        if !allow_concurrent {
            return Err(UsageError::new(format!(
                "another concbench run is measuring on this machine: pid {}, started {} \
                 (`{}`); two runs at once disturb each other's figures. Wait for it to end, or \
                 pass --allow-concurrent to measure anyway (both runs record the overlap)",
                other.pid, other.started_at, other.command
            ))
            .into());
        }
        append_beside(path, &me)?;
        Ok(RunLock {
            file,
            path: path.to_path_buf(),
            me,
            holder: false,
            beside: Some(other),
        })
    }

    /// The runs that measured on this machine while this one did: the holder this run was
    /// forced beside, and every run forced beside this one while it held the lock.
    pub fn overlaps(&self) -> Vec<RunOwner> {
        let mut all: Vec<RunOwner> = self.beside.iter().cloned().collect();
        if self.holder {
            all.extend(
                read_beside(&self.path)
                    .into_iter()
                    .filter(|o| *o != self.me),
            );
        }
        all
    }

    fn write_owner(&mut self) -> Result<()> {
        let text = serde_json::to_string(&self.me)?;
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file
            .write_all(text.as_bytes())
            .with_context(|| format!("writing the run lock {}", self.path.display()))
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if self.holder {
            let _ = flock(&self.file, FlockOperation::Unlock);
        }
    }
}

/// Open (or create) the lock file so that any user can lock it: `flock` needs only a read
/// descriptor, so a file another user created (0644 under a usual umask) still serves.
fn open_shared(path: &Path) -> Result<File> {
    let rw = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .open(path);
    rw.or_else(|_| File::open(path)).with_context(|| {
        format!(
            "opening the run lock {} (set CONCBENCH_LOCK to a writable path)",
            path.display()
        )
    })
}

fn read_owner(path: &Path) -> Option<RunOwner> {
    let mut text = String::new();
    File::open(path).ok()?.read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

fn beside_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".beside");
    PathBuf::from(name)
}

fn append_beside(path: &Path, me: &RunOwner) -> Result<()> {
    let beside = beside_path(path);
    let mut f = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o666)
        .open(&beside)
        .with_context(|| {
            format!(
                "recording this run beside the other in {}",
                beside.display()
            )
        })?;
    // One line per run, written in one call: appends of a line are atomic on a local file.
    f.write_all(format!("{}\n", serde_json::to_string(me)?).as_bytes())?;
    Ok(())
}

fn read_beside(path: &Path) -> Vec<RunOwner> {
    std::fs::read_to_string(beside_path(path))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The warning a document and the first screen carry for each run that measured beside this
/// one.
pub fn overlap_warning(other: &RunOwner) -> String {
    format!(
        "another concbench run (pid {}, started {}, `{}`) measured on this machine during this \
         run: both runs' figures are disturbed by it; rerun alone before trusting them",
        other.pid, other.started_at, other.command
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(pid: u32) -> RunOwner {
        RunOwner {
            pid,
            started_at: "2026-11-26T23:04:57Z".into(),
            command: "concbench run --quick".into(),
        }
    }

    #[test]
    fn a_second_run_is_refused_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let _first = RunLock::acquire(&path, owner(1), false).unwrap();
        let err = RunLock::acquire(&path, owner(2), false)
            .err()
            .expect("refused");
        let text = format!("{err:#}");
        assert!(
            text.contains("pid 1") && text.contains("--allow-concurrent"),
            "{text}"
        );
        assert!(concbench_core::error::is_usage_error(&err));
    }

    #[test]
    fn a_forced_run_and_the_holder_both_see_the_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = RunLock::acquire(&path, owner(1), false).unwrap();
        let second = RunLock::acquire(&path, owner(2), true).unwrap();
        assert_eq!(second.overlaps(), vec![owner(1)]);
        assert_eq!(first.overlaps(), vec![owner(2)]);
    }

    #[test]
    fn the_lock_is_free_again_when_its_holder_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        drop(RunLock::acquire(&path, owner(1), false).unwrap());
        let again = RunLock::acquire(&path, owner(2), false).unwrap();
        assert!(
            again.overlaps().is_empty(),
            "a run after another did not overlap it"
        );
    }
}
