//! The database layout and its versioned migrations (`PRAGMA user_version`).

use anyhow::{bail, Result};
use rusqlite::Connection;

/// The layout this build writes. Bump it and add a step to [`migrate`] to change the layout.
pub const VERSION: i64 = 2;

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

/// Layout 2: a result may have no interval (too few rounds for a finite 95% interval), so the
/// interval columns become nullable. SQLite cannot drop a NOT NULL in place: the table is
/// rebuilt with the same rows.
const V2: &str = "
CREATE TABLE results_v2 (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    id       TEXT    NOT NULL,
    family   TEXT    NOT NULL,
    params   TEXT    NOT NULL,      -- JSON object, keys sorted
    unit     TEXT    NOT NULL,
    median   REAL    NOT NULL,
    ci_low   REAL,                  -- NULL: too few values for a 95% interval
    ci_high  REAL,
    samples  TEXT    NOT NULL,      -- JSON array, one value per repetition
    PRIMARY KEY (run_id, position)
);
INSERT INTO results_v2 SELECT * FROM results;
DROP TABLE results;
ALTER TABLE results_v2 RENAME TO results;
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
        conn.execute_batch(&format!("BEGIN; {V1} PRAGMA user_version = 1; COMMIT;"))?;
    }
    if version < 2 {
        conn.execute_batch(&format!("BEGIN; {V2} PRAGMA user_version = 2; COMMIT;"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_1_database_keeps_its_rows_and_accepts_results_without_an_interval() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(&format!("{V1} PRAGMA user_version = 1;"))
            .unwrap();
        conn.execute_batch(
            "INSERT INTO runs VALUES (1, 't', 'run', 'h', 'cpu', 'k', 1, 0, 1, 0, '{}');
             INSERT INTO results VALUES (1, 0, 'x.y', 'x', '{}', 'ns', 5.0, 4.0, 6.0, '[5]');",
        )
        .unwrap();
        migrate(&conn).unwrap();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, VERSION);
        let low: f64 = conn
            .query_row("SELECT ci_low FROM results", [], |r| r.get(0))
            .unwrap();
        assert_eq!(low, 4.0);
        conn.execute(
            "INSERT INTO results VALUES (1, 1, 'x.z', 'x', '{}', 'ns', 5.0, NULL, NULL, '[5]')",
            [],
        )
        .unwrap();
    }
}
