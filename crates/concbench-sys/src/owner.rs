//! Directories a concbench process owns, and finding those whose owner is gone.
//!
//! A run's data and scratch directories are removed when the run ends, also after Ctrl-C; a
//! `kill -9` leaves them behind (hundreds of MB of io data). So the run [`claim`]s each one with
//! a small owner file naming its process, and the next run [`sweep`]s: it removes a directory
//! only when the owner file is there and well-formed, the directory belongs to this user, and the
//! owner process has ended. The owner is recorded with its start time, so a new process that
//! happens to get the same pid is not taken for it.

use crate::process::start_ticks as start_time;
use anyhow::{Context, Result};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The owner file inside a claimed directory.
pub const OWNER_FILE: &str = ".concbench-owner";
/// The first word of an owner file: files of any other shape are not ours.
const MAGIC: &str = "concbench-owner-v1";

/// Mark `dir` as owned by this process until it ends.
pub fn claim(dir: &Path) -> Result<()> {
    let pid = std::process::id();
    let started = start_time(pid).context("reading this process's start time")?;
    std::fs::write(dir.join(OWNER_FILE), format!("{MAGIC} {pid} {started}\n"))
        .with_context(|| format!("writing the owner file in {}", dir.display()))
}

/// Make `dir` nobody's (kept data a later run must not remove, even if a killed run claimed it).
pub fn release(dir: &Path) -> Result<()> {
    match std::fs::remove_file(dir.join(OWNER_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing the owner file in {}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// The process that claimed `dir`: `Some((pid, start time))`, or `None` when `dir` holds no
/// well-formed owner file (then it is not ours to judge).
fn owner_of(dir: &Path) -> Option<(u32, u64)> {
    let text = std::fs::read_to_string(dir.join(OWNER_FILE)).ok()?;
    let mut words = text.split_whitespace();
    if words.next()? != MAGIC {
        return None;
    }
    let pid = words.next()?.parse().ok()?;
    let started = words.next()?.parse().ok()?;
    words.next().is_none().then_some((pid, started))
}

/// Whether process `pid`, started at `started`, still runs. When in doubt (its `/proc` entry
/// exists but cannot be read), it is taken to run.
fn alive(pid: u32, started: u64) -> bool {
    if !Path::new(&format!("/proc/{pid}")).exists() {
        return false;
    }
    start_time(pid).is_none_or(|now| now == started)
}

/// A directory [`sweep`] removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub path: PathBuf,
    pub bytes: u64,
    /// The process that had claimed it.
    pub owner_pid: u32,
}

/// Remove the directories directly in `base` whose name starts with `prefix`, that belong to this
/// user, and whose claiming process has ended. Directories that cannot be removed are left.
pub fn sweep(base: &Path, prefix: &str) -> Vec<Removed> {
    let Ok(entries) = std::fs::read_dir(base) else {
        return Vec::new();
    };
    let me = rustix::process::geteuid().as_raw();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let ours = entry.file_name().to_string_lossy().starts_with(prefix)
            // symlink_metadata: a link to a directory is not a directory of ours.
            && entry
                .path()
                .symlink_metadata()
                .is_ok_and(|m| m.is_dir() && m.uid() == me);
        if !ours {
            continue;
        }
        let path = entry.path();
        let Some((pid, started)) = owner_of(&path) else {
            continue;
        };
        if alive(pid, started) {
            continue;
        }
        let bytes = size_of(&path);
        if std::fs::remove_dir_all(&path).is_ok() {
            removed.push(Removed {
                path,
                bytes,
                owner_pid: pid,
            });
        }
    }
    removed
}

/// Bytes in the regular files under `dir` (links not followed).
fn size_of(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| Some((e.path(), e.path().symlink_metadata().ok()?)))
        .map(|(p, m)| if m.is_dir() { size_of(&p) } else { m.len() })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory `name` in `base` claimed by `owner` (as an owner file would record it).
    fn claimed_by(base: &Path, name: &str, owner: &str) -> PathBuf {
        let dir = base.join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(OWNER_FILE), owner).unwrap();
        std::fs::write(dir.join("data.dat"), vec![0u8; 4096]).unwrap();
        dir
    }

    /// A pid that ran and has ended (reaped), so no process has it right now.
    fn ended_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn a_directory_of_an_ended_process_is_removed_and_reported() {
        let base = tempfile::tempdir().unwrap();
        let pid = ended_pid();
        let gone = claimed_by(base.path(), "concbench-io-1", &format!("{MAGIC} {pid} 1\n"));
        let removed = sweep(base.path(), "concbench-");
        assert_eq!(
            removed,
            vec![Removed {
                path: gone.clone(),
                bytes: 4096 + format!("{MAGIC} {pid} 1\n").len() as u64,
                owner_pid: pid,
            }]
        );
        assert!(!gone.exists());
    }

    #[test]
    fn live_owners_foreign_and_unclaimed_directories_are_left() {
        let base = tempfile::tempdir().unwrap();
        let mine = base.path().join("concbench-mine");
        std::fs::create_dir(&mine).unwrap();
        claim(&mine).unwrap();
        let unclaimed = base.path().join("concbench-results");
        std::fs::create_dir(&unclaimed).unwrap();
        let garbled = claimed_by(base.path(), "concbench-x", "someone else's file 1 2\n");
        let other_name = claimed_by(
            base.path(),
            "not-concbench",
            &format!("{MAGIC} {} 1\n", ended_pid()),
        );
        assert!(sweep(base.path(), "concbench-").is_empty());
        for d in [&mine, &unclaimed, &garbled, &other_name] {
            assert!(d.exists(), "{} removed", d.display());
        }
    }

    #[test]
    fn a_released_directory_is_left() {
        let base = tempfile::tempdir().unwrap();
        let kept = claimed_by(
            base.path(),
            "concbench-kept",
            &format!("{MAGIC} {} 1\n", ended_pid()),
        );
        release(&kept).unwrap();
        release(&kept).unwrap();
        assert!(sweep(base.path(), "concbench-").is_empty());
        assert!(kept.exists());
    }

    #[test]
    fn a_reused_pid_is_not_the_owner() {
        // This process's pid with another start time: the owner was an earlier process.
        let base = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let real = start_time(me).unwrap();
        let dir = claimed_by(
            base.path(),
            "concbench-old",
            &format!("{MAGIC} {me} {}\n", real + 1),
        );
        assert_eq!(sweep(base.path(), "concbench-").len(), 1);
        assert!(!dir.exists());
    }
}
