//! Opening the history database for the commands that read or write it, with errors that name
//! the flag (`--db`) and say what to do.

use crate::args::StoreArgs;
use anyhow::Result;
use concbench_core::UsageError;
use concbench_store::Store;
use std::path::{Path, PathBuf};

/// The database `--db` names, or the default one.
pub fn path(db: Option<&Path>) -> Result<PathBuf> {
    match db {
        Some(p) => Ok(p.to_path_buf()),
        None => concbench_store::default_path().ok_or_else(|| {
            UsageError::new(
                "--db: this system has no data directory for the history database (set \
                 XDG_DATA_HOME or HOME), so pass --db PATH",
            )
            .into()
        }),
    }
}

/// Open the database for reading or writing; any failure is a usage error naming `--db`.
pub fn open(db: Option<&Path>) -> Result<Store> {
    let path = path(db)?;
    Store::open(&path).map_err(|e| {
        UsageError::new(format!(
            "--db: cannot use {} as the history database: {e:#}; pass --db with another path",
            path.display()
        ))
        .into()
    })
}

/// Open the database for reading: `None` when it does not exist yet (reading commands do not
/// create it). Returns the path either way, for messages.
pub fn open_existing(db: Option<&Path>) -> Result<(PathBuf, Option<Store>)> {
    let path = path(db)?;
    if !path.exists() {
        return Ok((path, None));
    }
    Ok((path.clone(), Some(open(Some(&path))?)))
}

/// The store a measuring command writes to: `None` under `--no-store`. Opened before measuring,
/// so a bad `--db` fails at once rather than after minutes of measurement.
pub fn for_writing(args: &StoreArgs) -> Result<Option<Store>> {
    if args.no_store {
        return Ok(None);
    }
    open(args.db.as_deref()).map(Some)
}
