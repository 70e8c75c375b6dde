//! One measuring run per machine: two runs measuring at once disturb each other's figures (a
//! switch read 9.4 µs beside another run against 2.6 µs alone), so a run takes a machine-wide
//! lock before it measures and refuses, naming the other run, when another holds it.
//!
//! The lock is an advisory `flock` on `/tmp/concbench-run.lock` (`$CONCBENCH_LOCK` names another
//! file: containers that share a host but not `/tmp`, or tests). Not `$TMPDIR`: two users with
//! different temporary directories would no longer exclude each other. Every user takes the same
//! lock: the file is opened read-only (`flock` needs no more), so a file root created serves a
//! user and the other way round, and it is opened as [`mod@file`] says, so that no link planted in
//! `/tmp` is followed and no file is truncated or written. Who holds the lock is read from the
//! kernel's list of locks ([`holder`]), never from a record the holder writes: the refusal names
//! the live run even when both started in the same instant. `flock` is released by the kernel
//! when the process dies, so a crashed run never leaves the machine locked; the file itself stays
//! (removing it would race with a run that just opened it).
//! A run forced beside another (`--allow-concurrent`) appends itself to a list beside the lock
//! file ([`beside`]), so the run holding the lock learns of it too: both documents record the
//! overlap.

mod beside;
mod file;
mod holder;

use anyhow::{anyhow, Result};
use concbench_core::UsageError;
use rustix::fs::{flock, FlockOperation};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The lock file when `$CONCBENCH_LOCK` does not name another.
pub const DEFAULT_PATH: &str = "/tmp/concbench-run.lock";

/// Who measures: what a refused run tells its user, and what an overlap records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOwner {
    pub pid: u32,
    /// When the process started: RFC 3339, wall clock.
    pub started_at: String,
    /// The command line, for the message ("concbench run --quick").
    pub command: String,
    /// The user it runs as (empty when unknown).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub user: String,
}

impl RunOwner {
    /// This process, as another run would name it from `/proc`.
    pub fn this_process() -> Result<RunOwner> {
        holder::describe(std::process::id())
            .ok_or_else(|| anyhow!("reading this process's start and command line from /proc"))
    }

    /// "pid 123 (nobody), started 2026-11-28T16:50:01Z, `concbench run --quick`".
    fn describe(&self) -> String {
        let user = match self.user.as_str() {
            "" => String::new(),
            u => format!(" ({u})"),
        };
        format!(
            "pid {}{user}, started {}, `{}`",
            self.pid, self.started_at, self.command
        )
    }
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

/// The lock file: `$CONCBENCH_LOCK`, else [`DEFAULT_PATH`].
pub fn lock_path() -> PathBuf {
    std::env::var_os("CONCBENCH_LOCK")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from(DEFAULT_PATH), PathBuf::from)
}

/// What trying the lock found.
enum Attempt {
    Taken,
    HeldBy(RunOwner),
}

impl RunLock {
    /// Take the machine's run lock for `me`. When another run holds it: refuse (a usage error
    /// naming that run and the flag), or with `allow_concurrent` go on and record the overlap.
    pub fn acquire(path: &Path, me: RunOwner, allow_concurrent: bool) -> Result<RunLock> {
        let (file, attempt) = take(path)?;
        let other = match attempt {
            Attempt::Taken => {
                return Ok(RunLock {
                    file,
                    path: path.to_path_buf(),
                    me,
                    holder: true,
                    beside: None,
                })
            }
            Attempt::HeldBy(other) => other,
        };
        if !allow_concurrent {
            return Err(UsageError::new(format!(
                "another concbench run is measuring on this machine: {}; two runs at once \
                 disturb each other's figures. Wait for it to end, or pass --allow-concurrent to \
                 measure anyway (both runs record the overlap)",
                other.describe()
            ))
            .into());
        }
        if let Err(e) = beside::append(path, &me, &other) {
            // This run's document records the overlap whatever happens here.
            crate::stdout::errln!(
                "concbench: warning: the run holding the lock will not learn of this one: {e:#}"
            );
        }
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
            all.extend(beside::read(&self.path, &self.me));
        }
        all
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if self.holder {
            let _ = flock(&self.file, FlockOperation::Unlock);
        }
    }
}

/// Open the lock file and take the lock, or find who holds it. A holder found to have let go
/// (it ended between the two steps) is not named: the lock is tried again, so a refusal always
/// names a run that held the lock when it was read.
fn take(path: &Path) -> Result<(File, Attempt)> {
    const ATTEMPTS: usize = 200;
    for _ in 0..ATTEMPTS {
        let file = file::open_shared(path, file::Access::Read, 0o644, "the run lock")?;
        match flock(&file, FlockOperation::NonBlockingLockExclusive) {
            // The file may have been replaced (removed and created anew) after it was opened:
            // a lock on the old one would exclude nobody.
            Ok(()) if same_file(&file, path) => return Ok((file, Attempt::Taken)),
            Ok(()) => continue,
            Err(Errno::WOULDBLOCK) => {}
            Err(e) => {
                return Err(anyhow!(
                    "locking the run lock {} (flock): {e}; set CONCBENCH_LOCK to a file on a \
                     local file system",
                    path.display()
                ))
            }
        }
        if let Some(other) = holder::pid_holding(&file).and_then(holder::describe) {
            return Ok((file, Attempt::HeldBy(other)));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Held all along, by a process /proc/locks does not show (no /proc, or an unusual file
    // system): refuse all the same, saying what is known.
    let file = file::open_shared(path, file::Access::Read, 0o644, "the run lock")?;
    Ok((
        file,
        Attempt::HeldBy(RunOwner {
            pid: 0,
            started_at: "at an unknown time".into(),
            command: format!(
                "a process this one cannot identify (see `fuser {}`)",
                path.display()
            ),
            user: String::new(),
        }),
    ))
}

/// Whether `path` still names the open `file`.
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), path.symlink_metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The warning a document and the first screen carry for each run that measured beside this
/// one.
pub fn overlap_warning(other: &RunOwner) -> concbench_core::RunWarning {
    concbench_core::RunWarning::OverlappingRun {
        run: other.describe(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> RunOwner {
        RunOwner::this_process().unwrap()
    }

    #[test]
    fn a_second_run_is_refused_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let _first = RunLock::acquire(&path, me(), false).unwrap();
        let err = RunLock::acquire(&path, me(), false).err().expect("refused");
        let text = format!("{err:#}");
        let pid = format!("pid {} ", std::process::id());
        assert!(
            text.contains(&pid) && text.contains(&me().started_at),
            "{text}"
        );
        assert!(text.contains("--allow-concurrent"), "{text}");
        assert!(concbench_core::error::is_usage_error(&err));
    }

    #[test]
    fn a_forced_run_and_the_holder_both_see_the_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = RunLock::acquire(&path, me(), false).unwrap();
        let second = RunLock::acquire(&path, me(), true).unwrap();
        assert_eq!(second.overlaps(), vec![me()]);
        assert_eq!(first.overlaps(), vec![me()]);
    }

    #[test]
    fn the_lock_is_free_again_when_its_holder_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        drop(RunLock::acquire(&path, me(), false).unwrap());
        let again = RunLock::acquire(&path, me(), false).unwrap();
        assert!(
            again.overlaps().is_empty(),
            "a run after another did not overlap it"
        );
    }

    /// Regression: root's run left the lock file 0644 with its record in it; a user's run
    /// opened it read-only, its `ftruncate` failed and the run ended with a bare "Invalid
    /// argument (os error 22)". The lock file is never written now: a read-only one serves.
    #[test]
    fn regression_a_read_only_lock_file_of_another_run_still_locks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        std::fs::write(&path, r#"{"pid":1,"started_at":"old","command":"old"}"#).unwrap();
        let before = std::fs::read(&path).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        drop(RunLock::acquire(&path, me(), false).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), before, "left as it was");
    }

    #[test]
    fn a_stale_line_of_an_earlier_holder_is_not_an_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let earlier = RunOwner {
            pid: 1,
            started_at: "2026-11-26T23:04:57Z".into(),
            command: "concbench run".into(),
            user: "root".into(),
        };
        beside::append(&path, &me(), &earlier).unwrap();
        let holder = RunLock::acquire(&path, me(), false).unwrap();
        assert!(holder.overlaps().is_empty(), "{:?}", holder.overlaps());
    }
}
