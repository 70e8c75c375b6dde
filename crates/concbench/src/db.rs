//! Opening the history database for the commands that read or write it: `--db` (a file or a
//! `postgresql://` URL), else `$CONCBENCH_DB`, else the default file — with errors that name the
//! flag and say what to do.

use crate::args::StoreArgs;
use anyhow::Result;
use concbench_core::UsageError;
use concbench_store::{Location, Store};

/// The environment variable naming the history database when `--db` is not given (a fleet's
/// machines set it once, e.g. to a PostgreSQL URL).
pub const DB_ENV: &str = "CONCBENCH_DB";

/// The store `--db` names, else `$CONCBENCH_DB`, else the default file.
pub fn location(db: Option<&str>) -> Result<Location> {
    if let Some(text) = db {
        return parse(text, "--db");
    }
    if let Some(text) = std::env::var(DB_ENV).ok().filter(|t| !t.is_empty()) {
        return parse(&text, DB_ENV);
    }
    match concbench_store::default_path() {
        Some(p) => Ok(Location::File(p)),
        None => Err(UsageError::new(format!(
            "--db: this system has no data directory for the history database (set \
             XDG_DATA_HOME or HOME), so pass --db PATH (or set {DB_ENV})"
        ))
        .into()),
    }
}

/// A file path or a PostgreSQL URL; another URL is a mistake, not a file name to create.
fn parse(text: &str, source: &str) -> Result<Location> {
    let location = Location::parse(text);
    if matches!(location, Location::File(_)) && text.contains("://") {
        // Only the scheme is repeated: the rest may hold a password.
        let scheme = text.split("://").next().unwrap_or_default();
        return Err(UsageError::new(format!(
            "{source}: concbench does not speak {scheme}:// databases; pass a file path (SQLite) \
             or a postgresql:// URL"
        ))
        .into());
    }
    Ok(location)
}

/// Open the database for reading or writing; any failure is a usage error naming `--db`.
pub fn open(db: Option<&str>) -> Result<Store> {
    open_at(&location(db)?)
}

fn open_at(location: &Location) -> Result<Store> {
    Store::open(location).map_err(|e| {
        if concbench_core::error::is_usage_error(&e) {
            // Already says which database and what to do (a damaged file).
            return UsageError::new(format!("--db: {e:#}")).into();
        }
        let fix = match location {
            Location::File(_) => "pass --db with another path",
            Location::Postgres(_) => {
                "check the URL (postgresql://user@host:port/db), that the server runs and \
                 accepts this user, or pass another --db"
            }
        };
        UsageError::new(format!(
            "--db: cannot use {location} as the history database: {e:#}; {fix}"
        ))
        .into()
    })
}

/// Open the database for reading: `None` when a file does not exist yet (reading commands do not
/// create it). Returns the location either way, for messages.
pub fn open_existing(db: Option<&str>) -> Result<(Location, Option<Store>)> {
    let location = location(db)?;
    if location.as_file().is_some_and(|p| !p.exists()) {
        return Ok((location, None));
    }
    let store = open_at(&location)?;
    Ok((location, Some(store)))
}

/// The store a measuring command writes to: `None` under `--no-store`. Opened and checked for
/// writing before measuring ([`Store::writable`]), so a bad, damaged or read-only history fails
/// at once rather than after minutes of measurement.
pub fn for_writing(args: &StoreArgs) -> Result<Option<Store>> {
    if args.no_store {
        return Ok(None);
    }
    let mut store = open(args.db.as_deref())?;
    store.writable().map_err(|e| -> anyhow::Error {
        let text = format!("{e:#}");
        // A damaged file's error already says which file and what to do.
        let fix = if concbench_core::error::is_usage_error(&e) {
            String::new()
        } else {
            "; pass --db with a history you can write, or --no-store (checked before measuring, \
             so nothing was measured)"
                .to_string()
        };
        UsageError::new(format!(
            "{}: cannot store runs in {}: {text}{fix}",
            source(args.db.as_deref()),
            store.path()
        ))
        .into()
    })?;
    Ok(Some(store))
}

/// What named the history: the flag, the environment variable, or neither (the default file).
fn source(db: Option<&str>) -> &'static str {
    if db.is_some() {
        "--db"
    } else if std::env::var(DB_ENV).is_ok_and(|t| !t.is_empty()) {
        DB_ENV
    } else {
        "the default history"
    }
}
