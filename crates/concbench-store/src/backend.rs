//! The one interface both history backends (SQLite, PostgreSQL) implement, and the SQL they
//! share: the statements are written once, in the dialect both engines accept (`$n`
//! placeholders, `RETURNING`), and each backend only binds and reads.

use crate::record::{RunRecord, RunRow, RUN_COLUMNS};
use anyhow::Result;

/// A history database.
pub trait Backend: Send {
    /// Store one run and all of its result rows in ONE transaction; returns the run's id. An
    /// error, or the process dying midway, leaves nothing of the run behind.
    fn insert(&mut self, run: &RunRecord) -> Result<i64>;
    /// Every run, most recently stored first.
    fn runs(&mut self) -> Result<Vec<RunRow>>;
    /// The JSON document of run `id`, when stored.
    fn document(&mut self, id: i64) -> Result<Option<String>>;
    /// The id of the most recently stored run.
    fn latest_id(&mut self) -> Result<Option<i64>>;
    /// Problems found by the engine's own integrity check (where it has one) and by
    /// `INVARIANTS`; empty when sound.
    fn check(&mut self) -> Result<Vec<String>>;
    /// The layout version in force (see `schema`).
    fn layout(&mut self) -> Result<i64>;
    /// Whether a run can be stored here, checked before measuring: the database is sound as far
    /// as a quick check sees, and this user may write to it. An error says why not.
    fn writable(&mut self) -> Result<()>;
}

/// Insert a run's row (parameters in [`crate::record::RunRecord`] field order) and return its id.
pub const INSERT_RUN: &str = "INSERT INTO runs (started_at, command, hostname, machine_id, \
     labels, cpu_model, kernel, quick, interrupted, result_count, failure_count, document) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id";

/// Every run, newest first; `only` is the backend's expression for the document's
/// `settings.only` as JSON text ([`SQLITE_ONLY`], [`POSTGRES_ONLY`]).
pub fn select_runs(only: &str) -> String {
    format!("SELECT {RUN_COLUMNS}, {only} FROM runs ORDER BY id DESC")
}

/// A run's `--only`, read from its document by SQLite's JSON functions.
pub const SQLITE_ONLY: &str = "json_extract(document, '$.settings.only')";

/// A run's `--only`, read from its document by PostgreSQL's JSON operators.
// Read only by the PostgreSQL backend, which a build without `postgres` leaves out.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub const POSTGRES_ONLY: &str = "(document::jsonb #> '{settings,only}')::text";

pub const SELECT_DOCUMENT: &str = "SELECT document FROM runs WHERE id = $1";

pub const LATEST_ID: &str = "SELECT id FROM runs ORDER BY id DESC LIMIT 1";

pub const CURRENT_LAYOUT: &str = "SELECT MAX(version) FROM schema_version";

/// The store's own invariant, as queries returning one problem description per row: every run
/// has exactly the result rows it announces, and no result row is without its run.
pub const INVARIANTS: [&str; 2] = [
    "SELECT 'run ' || runs.id || ' announces ' || runs.result_count || ' results but has ' || \
     COUNT(results.run_id) FROM runs LEFT JOIN results ON results.run_id = runs.id \
     GROUP BY runs.id, runs.result_count HAVING runs.result_count != COUNT(results.run_id)",
    "SELECT COUNT(*) || ' result rows belong to no run' FROM results \
     WHERE run_id NOT IN (SELECT id FROM runs) HAVING COUNT(*) > 0",
];
