//! The runs forced beside the lock's holder (`--allow-concurrent`): each appends one line to a
//! list next to the lock file, naming itself and the holder it measured beside, so that the
//! holder learns of it too and both documents record the overlap.
//!
//! The list is shared by every user and never truncated or removed (a user cannot remove
//! another's file in a sticky directory, and a holder that emptied it could lose a line being
//! appended): a holder reads the lines that name it, so lines of earlier holders are ignored.
//! It is opened as the lock is ([`super::file`]): no link followed, one name only, and made
//! writable by every user when created (a forged line only adds a warning to someone's run).

use super::file::{open_shared, Access};
use super::RunOwner;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// One line of the list.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    /// The run forced beside the holder.
    run: RunOwner,
    /// The holder it measured beside.
    beside: RunOwner,
}

/// What is read of the list at most: a list grown past this (by a flood of forged lines) is
/// read only so far.
const READ_AT_MOST: u64 = 1 << 20;

/// `<lock>.beside`.
pub fn path_of(lock: &Path) -> PathBuf {
    let mut name = lock.as_os_str().to_owned();
    name.push(".beside");
    PathBuf::from(name)
}

/// Record that `run` measures beside `holder`.
pub fn append(lock: &Path, run: &RunOwner, holder: &RunOwner) -> Result<()> {
    let path = path_of(lock);
    let mut file = open_shared(&path, Access::Append, 0o666, "the list of overlapping runs")?;
    let line = serde_json::to_string(&Line {
        run: run.clone(),
        beside: holder.clone(),
    })?;
    // One line per run, written in one call: appends of a line are atomic on a local file.
    file.write_all(format!("{line}\n").as_bytes())
        .with_context(|| format!("appending this run to {}", path.display()))
}

/// The runs the list says measured beside `holder`.
pub fn read(lock: &Path, holder: &RunOwner) -> Vec<RunOwner> {
    let path = path_of(lock);
    let Ok(file) = open_shared_existing(&path) else {
        return Vec::new();
    };
    let mut text = String::new();
    let _ = file.take(READ_AT_MOST).read_to_string(&mut text);
    text.lines()
        .filter_map(|l| serde_json::from_str::<Line>(l).ok())
        .filter(|l| same_run(&l.beside, holder))
        .map(|l| l.run)
        .collect()
}

/// The list when it exists (reading never creates it).
fn open_shared_existing(path: &Path) -> Result<std::fs::File> {
    if path.symlink_metadata().is_err() {
        anyhow::bail!("no list");
    }
    open_shared(path, Access::Read, 0o666, "the list of overlapping runs")
}

/// One process: the same pid started at the same time (a pid is reused, a start is not).
fn same_run(a: &RunOwner, b: &RunOwner) -> bool {
    a.pid == b.pid && a.started_at == b.started_at
}
