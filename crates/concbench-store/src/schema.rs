//! The database layout and its versioned migrations (`PRAGMA user_version`).

use anyhow::{bail, Result};
use rusqlite::Connection;

/// The layout this build writes. Bump it and add a step to [`migrate`] to change the layout.
pub const VERSION: i64 = 1;

const V1: &str = "
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at    TEXT    NOT NULL,
    command       TEXT    NOT NULL,
    hostname      TEXT    NOT NULL,
    cpu_model     TEXT    NOT NULL,
    kernel        TEXT    NOT NULL,
    quick         INTEGER NOT NULL,
    interrupted   INTEGER NOT NULL,
    result_count  INTEGER NOT NULL,
    failure_count INTEGER NOT NULL,
    document      TEXT    NOT NULL   -- the whole result document, JSON
);
CREATE TABLE results (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    id       TEXT    NOT NULL,
    family   TEXT    NOT NULL,
    params   TEXT    NOT NULL,      -- JSON object, keys sorted
    unit     TEXT    NOT NULL,
    median   REAL    NOT NULL,
    ci_low   REAL    NOT NULL,
    ci_high  REAL    NOT NULL,
    samples  TEXT    NOT NULL,      -- JSON array, one value per repetition
    PRIMARY KEY (run_id, position)
);
CREATE INDEX results_by_variant ON results (id, params);
";

/// Bring the database to [`VERSION`], in one transaction.
pub fn migrate(conn: &Connection) -> Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > VERSION {
        bail!(
            "it was written by a newer concbench (layout {version}, this build reads up to \
             {VERSION}); upgrade concbench or pass another --db"
        );
    }
    if version < 1 {
        conn.execute_batch(&format!(
            "BEGIN; {V1} PRAGMA user_version = {VERSION}; COMMIT;"
        ))?;
    }
    Ok(())
}
