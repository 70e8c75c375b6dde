//! The embedded backend: one SQLite file. A killed writer leaves a rollback journal that the
//! next open undoes, so a half-stored run never becomes visible.

use crate::backend::{self, Backend};
use crate::record::{Columns, RunRecord, RunRow};
use crate::schema::{self, LAYOUT, SQLITE_STEPS};
use anyhow::{Context, Result};
use concbench_core::UsageError;
use rusqlite::{params, Connection, ErrorCode, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long to wait for another concbench holding the write lock (storing, or migrating a new
/// database) before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Sqlite {
    conn: Connection,
    path: PathBuf,
}

impl Sqlite {
    /// Open (creating the file, its directory and the tables when needed) and migrate.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the directory {}", dir.display()))?;
        }
        let conn = Connection::open(path)
            .with_context(|| format!("opening the history database {}", path.display()))?;
        let mut store = Sqlite {
            conn,
            path: path.to_path_buf(),
        };
        store.prepare().map_err(|e| store.explain(e))?;
        Ok(store)
    }

    fn prepare(&mut self) -> Result<()> {
        // Another concbench may be storing at the same moment: wait for it rather than fail.
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        self.conn.pragma_update(None, "foreign_keys", true)?;
        self.migrate()
            .with_context(|| format!("preparing the history database {}", self.path.display()))
    }

    fn migrate(&mut self) -> Result<()> {
        if layout(&self.conn)? == LAYOUT {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again under the write lock: a concurrent open may have migrated meanwhile.
        let current = layout(&tx)?;
        let steps = schema::pending(SQLITE_STEPS, current)?;
        for step in &steps {
            tx.execute_batch(step.sql)
                .with_context(|| format!("migrating to layout {}", step.version))?;
        }
        if !steps.is_empty() {
            tx.execute(
                "INSERT INTO schema_version (version, applied_at, tool) \
                 VALUES ($1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), $2)",
                params![LAYOUT, env!("CARGO_PKG_VERSION")],
            )?;
            tx.pragma_update(None, "user_version", LAYOUT)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// A damaged file is the user's to fix, not a measurement failure: say which file and how.
    fn explain(&self, err: anyhow::Error) -> anyhow::Error {
        let damaged = err.chain().any(|cause| {
            matches!(
                cause
                    .downcast_ref::<rusqlite::Error>()
                    .and_then(|e| e.sqlite_error_code()),
                Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
            )
        });
        if damaged {
            self.damaged(&format!("{err:#}"))
        } else {
            err
        }
    }

    /// The usage error for a damaged file, with what was found wrong.
    fn damaged(&self, found: &str) -> anyhow::Error {
        let path = self.path.display();
        UsageError::new(format!(
            "the history database {path} is damaged or not an SQLite database ({found}); move \
             it aside (`mv {path} {path}.damaged`) and concbench starts a new one, or pass \
             another --db; `sqlite3 {path}.damaged .recover` may salvage its runs"
        ))
        .into()
    }

    /// SQLite's quick check (every page read, structure and indexes without the costliest
    /// cross-checks), then a write rolled back: the file and its directory (for the journal)
    /// take writes. Regression: `run --db` on a file damaged past its first page opened
    /// fine, measured for 41 s, failed to store and exited 0.
    fn check_writable(&mut self) -> Result<()> {
        let problems: Vec<String> = {
            let mut stmt = self.conn.prepare("PRAGMA quick_check")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        if problems.iter().any(|p| p != "ok") {
            let shown: Vec<&str> = problems.iter().take(3).map(String::as_str).collect();
            return Err(self.damaged(&shown.join("; ")));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch("CREATE TABLE concbench_write_check (x INTEGER)")
            .with_context(|| format!("writing to {}", self.path.display()))?;
        tx.rollback()?;
        Ok(())
    }
}

/// The layout in force: `schema_version` from layout 3 on, `PRAGMA user_version` before.
fn layout(conn: &Connection) -> Result<i64> {
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' \
         AND name = 'schema_version')",
        [],
        |r| r.get(0),
    )?;
    if has_table {
        let v: Option<i64> = conn.query_row(backend::CURRENT_LAYOUT, [], |r| r.get(0))?;
        return Ok(v.unwrap_or(0));
    }
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}

impl Columns for rusqlite::Row<'_> {
    fn text(&self, i: usize) -> Result<String> {
        Ok(self.get(i)?)
    }
    fn optional_text(&self, i: usize) -> Result<Option<String>> {
        Ok(self.get(i)?)
    }
    fn int(&self, i: usize) -> Result<i64> {
        Ok(self.get(i)?)
    }
    fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.get(i)?)
    }
}

impl Sqlite {
    fn insert_run(&mut self, run: &RunRecord) -> Result<i64> {
        // IMMEDIATE: take the write lock first, so a concurrent writer waits (busy timeout)
        // instead of failing when a deferred read lock cannot be upgraded.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let run_id: i64 = tx.query_row(
            backend::INSERT_RUN,
            params![
                run.started_at,
                run.command,
                run.hostname,
                run.machine_id,
                run.labels,
                run.cpu_model,
                run.kernel,
                run.quick,
                run.interrupted,
                run.result_count,
                run.failure_count,
                run.document
            ],
            |r| r.get(0),
        )?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO results (run_id, position, id, family, params, unit, median, \
                 ci_low, ci_high, samples) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )?;
            for r in &run.results {
                insert.execute(params![
                    run_id, r.position, r.id, r.family, r.params, r.unit, r.median, r.ci_low,
                    r.ci_high, r.samples
                ])?;
            }
        }
        tx.commit()
            .context("committing the run to the history database")?;
        Ok(run_id)
    }

    fn list_runs(&mut self) -> Result<Vec<RunRow>> {
        let mut stmt = self
            .conn
            .prepare(&backend::select_runs(backend::SQLITE_ONLY))?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(RunRow::read(row)?);
        }
        Ok(out)
    }

    fn integrity_problems(&mut self) -> Result<Vec<String>> {
        let mut problems = Vec::new();
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        for line in stmt.query_map([], |r| r.get::<_, String>(0))? {
            let line = line?;
            if line != "ok" {
                problems.push(line);
            }
        }
        for query in backend::INVARIANTS {
            let mut stmt = self.conn.prepare(query)?;
            for line in stmt.query_map([], |r| r.get::<_, String>(0))? {
                problems.push(line?);
            }
        }
        Ok(problems)
    }
}

impl Backend for Sqlite {
    fn insert(&mut self, run: &RunRecord) -> Result<i64> {
        self.insert_run(run).map_err(|e| self.explain(e))
    }

    fn runs(&mut self) -> Result<Vec<RunRow>> {
        self.list_runs().map_err(|e| self.explain(e))
    }

    fn document(&mut self, id: i64) -> Result<Option<String>> {
        self.conn
            .query_row(backend::SELECT_DOCUMENT, [id], |r| r.get(0))
            .optional()
            .map_err(|e| self.explain(e.into()))
    }

    fn latest_id(&mut self) -> Result<Option<i64>> {
        self.conn
            .query_row(backend::LATEST_ID, [], |r| r.get(0))
            .optional()
            .map_err(|e| self.explain(e.into()))
    }

    fn check(&mut self) -> Result<Vec<String>> {
        self.integrity_problems()
    }

    fn layout(&mut self) -> Result<i64> {
        layout(&self.conn)
    }

    fn writable(&mut self) -> Result<()> {
        self.check_writable().map_err(|e| self.explain(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{SQLITE_V1, SQLITE_V2};

    /// A database as an older build left it: layout `version` (1 or 2) with one run.
    fn legacy(path: &Path, version: i64) {
        let conn = Connection::open(path).unwrap();
        let steps = [SQLITE_V1, SQLITE_V2];
        for sql in &steps[..version as usize] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", version).unwrap();
        conn.execute_batch(
            "INSERT INTO runs VALUES (1, 't', 'run', 'h', 'cpu', 'k', 1, 0, 1, 0, '{}');
             INSERT INTO results VALUES (1, 0, 'x.y', 'x', '{}', 'ns', 5.0, 4.0, 6.0, '[5]');",
        )
        .unwrap();
    }

    #[test]
    fn older_layouts_are_upgraded_keeping_their_runs() {
        for version in [1, 2] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("old.sqlite");
            legacy(&path, version);
            let mut store = Sqlite::open(&path).unwrap();
            assert_eq!(store.layout().unwrap(), LAYOUT, "from layout {version}");
            let runs = store.runs().unwrap();
            assert_eq!(runs.len(), 1);
            assert_eq!(runs[0].machine_id, None);
            assert!(runs[0].labels.is_empty());
            let low: f64 = store
                .conn
                .query_row("SELECT ci_low FROM results", [], |r| r.get(0))
                .unwrap();
            assert_eq!(low, 4.0);
            // Older builds read user_version: it follows, so they refuse the new layout.
            let user_version: i64 = store
                .conn
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap();
            assert_eq!(user_version, LAYOUT);
            assert!(store.check().unwrap().is_empty());
        }
    }

    /// Regression: a history damaged past its first page opened (the layout is on page 1), so
    /// `run --db` measured for 41 s and then could not store. The check before measuring finds
    /// it.
    #[test]
    fn regression_a_file_damaged_past_its_first_page_is_not_writable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        legacy(&path, 2);
        {
            let mut store = Sqlite::open(&path).unwrap();
            store.writable().expect("a sound file is writable");
            let conn = &store.conn;
            conn.execute_batch("CREATE TABLE filler (x TEXT)").unwrap();
            for _ in 0..64 {
                conn.execute("INSERT INTO filler VALUES (zeroblob(4000))", [])
                    .unwrap();
            }
        }
        let mut bytes = std::fs::read(&path).unwrap();
        let (page, len) = (4096, bytes.len());
        assert!(len > 16 * page, "{len}");
        // The filler's pages, at the end: the tables the layout is read from stay intact.
        bytes[len - 8 * page..len - 2 * page].fill(0xff);
        std::fs::write(&path, &bytes).unwrap();
        let mut store = Sqlite::open(&path).expect("the first page is intact");
        let err = store.writable().unwrap_err();
        assert!(concbench_core::error::is_usage_error(&err), "{err:#}");
        let text = format!("{err:#}");
        assert!(text.contains("damaged") && text.contains("mv "), "{text}");
    }

    #[test]
    fn a_read_only_file_is_not_writable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        drop(Sqlite::open(&path).unwrap());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        if std::fs::OpenOptions::new().write(true).open(&path).is_ok() {
            eprintln!("SKIPPED: this user (root) writes a read-only file; nothing to refuse");
            return;
        }
        let mut store = Sqlite::open(&path).unwrap();
        let text = format!("{:#}", store.writable().unwrap_err());
        assert!(text.contains(&path.display().to_string()), "{text}");
    }

    #[test]
    fn a_file_that_is_not_a_database_is_a_usage_error_naming_it_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        std::fs::write(&path, "this is not sqlite, just text that is long enough").unwrap();
        let err = Sqlite::open(&path).err().expect("refused");
        assert!(concbench_core::error::is_usage_error(&err), "{err:#}");
        let text = format!("{err:#}");
        assert!(
            text.contains(&path.display().to_string()) && text.contains("move it aside"),
            "{text}"
        );
    }
}
