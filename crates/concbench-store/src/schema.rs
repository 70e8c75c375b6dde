//! The database layout and its versioned migrations, for both backends.
//!
//! The layout version lives in a `schema_version` table (one row per migration applied, the
//! highest is the layout in force). Layouts 1 and 2 predate that table and kept their version in
//! SQLite's `PRAGMA user_version`, which is still read for them and still written (so an older
//! build that only knows `user_version` refuses a newer database instead of re-creating tables).
//!
//! Migrations run in one transaction that first takes the database's write lock (SQLite `BEGIN
//! IMMEDIATE`, PostgreSQL an advisory lock) and then re-reads the version: two runs opening a new
//! database at once both see version 0, but only the first migrates; the second waits and finds
//! the layout in place.

use anyhow::{bail, Result};

/// The layout this build reads and writes. To change it: bump it and add a step for each
/// backend below (SQLite steps migrate in place; PostgreSQL steps too, from layout 3 on).
pub const LAYOUT: i64 = 3;

/// One migration: run `sql` to go from `version - 1` to `version`.
pub struct Step {
    pub version: i64,
    pub sql: &'static str,
}

/// The steps of the SQLite history, from an empty file.
pub const SQLITE_STEPS: &[Step] = &[
    Step {
        version: 1,
        sql: SQLITE_V1,
    },
    Step {
        version: 2,
        sql: SQLITE_V2,
    },
    Step {
        version: 3,
        sql: SQLITE_V3,
    },
];

/// The steps of a PostgreSQL history (supported from layout 3: it starts there).
// Read only by the PostgreSQL backend, which a build without `postgres` leaves out.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub const POSTGRES_STEPS: &[Step] = &[Step {
    version: 3,
    sql: POSTGRES_V3,
}];

/// The steps to run on a database at `current`; an error when it is newer than this build.
pub fn pending(steps: &'static [Step], current: i64) -> Result<Vec<&'static Step>> {
    if current > LAYOUT {
        bail!(
            "it was written by a newer concbench (layout {current}; this build reads up to \
             {LAYOUT}): upgrade concbench, or pass another --db"
        );
    }
    Ok(steps.iter().filter(|s| s.version > current).collect())
}

pub const SQLITE_V1: &str = "
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
pub const SQLITE_V2: &str = "
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

/// Layout 3: fleets. A run carries its machine's stable id and its labels (`run --label`), so
/// `fleet` can tell machines apart and filter on labels; the version moves to `schema_version`.
pub const SQLITE_V3: &str = "
CREATE TABLE schema_version (
    version    INTEGER PRIMARY KEY,
    applied_at TEXT    NOT NULL,   -- RFC 3339, UTC
    tool       TEXT    NOT NULL    -- the concbench version that migrated
);
ALTER TABLE runs ADD COLUMN machine_id TEXT;                    -- NULL: stored before layout 3
ALTER TABLE runs ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';  -- JSON object
CREATE INDEX runs_by_machine ON runs (machine_id);
";

/// Layout 3 in PostgreSQL: the same tables and columns as SQLite's, in PostgreSQL's types.
// Read only by the PostgreSQL backend, which a build without `postgres` leaves out.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub const POSTGRES_V3: &str = "
CREATE TABLE schema_version (
    version    BIGINT PRIMARY KEY,
    applied_at TEXT   NOT NULL,
    tool       TEXT   NOT NULL
);
CREATE TABLE runs (
    id            BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    started_at    TEXT    NOT NULL,
    command       TEXT    NOT NULL,
    hostname      TEXT    NOT NULL,
    cpu_model     TEXT    NOT NULL,
    kernel        TEXT    NOT NULL,
    quick         BOOLEAN NOT NULL,
    interrupted   BOOLEAN NOT NULL,
    result_count  BIGINT  NOT NULL,
    failure_count BIGINT  NOT NULL,
    document      TEXT    NOT NULL,
    machine_id    TEXT,
    labels        TEXT    NOT NULL DEFAULT '{}'
);
CREATE TABLE results (
    run_id   BIGINT           NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position BIGINT           NOT NULL,
    id       TEXT             NOT NULL,
    family   TEXT             NOT NULL,
    params   TEXT             NOT NULL,
    unit     TEXT             NOT NULL,
    median   DOUBLE PRECISION NOT NULL,
    ci_low   DOUBLE PRECISION,
    ci_high  DOUBLE PRECISION,
    samples  TEXT             NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE INDEX results_by_variant ON results (id, params);
CREATE INDEX runs_by_machine ON runs (machine_id);
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_climb_one_layout_at_a_time_to_the_current_one() {
        for steps in [SQLITE_STEPS, POSTGRES_STEPS] {
            assert_eq!(steps.last().unwrap().version, LAYOUT);
            assert!(steps.windows(2).all(|w| w[1].version == w[0].version + 1));
        }
    }

    #[test]
    fn a_newer_layout_is_refused_and_an_older_one_gets_the_missing_steps() {
        let err = pending(SQLITE_STEPS, LAYOUT + 1).err().unwrap();
        assert!(err.to_string().contains("newer concbench"), "{err}");
        let versions: Vec<i64> = pending(SQLITE_STEPS, 1)
            .unwrap()
            .iter()
            .map(|s| s.version)
            .collect();
        assert_eq!(versions, vec![2, 3]);
        assert!(pending(POSTGRES_STEPS, LAYOUT).unwrap().is_empty());
    }
}
