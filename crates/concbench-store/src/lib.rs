//! The run history: every result document concbench writes is also stored in an embedded SQLite
//! database, so `history`, `compare` and `advise` can work from past runs.
//!
//! A run is written in ONE transaction (the document and its per-result rows together): a run
//! killed while storing leaves the database as it was before, never a half-written record.
//! The whole document is kept as JSON (so nothing is lost and later versions can re-read it);
//! the `results` table repeats the headline numbers of each result for plain SQL queries.

mod schema;

use anyhow::{bail, Context, Result};
use concbench_core::ResultDoc;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One stored run, as `concbench history` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub id: i64,
    pub started_at: String,
    /// The command that produced it (`run`, `replicate`).
    pub command: String,
    pub hostname: String,
    pub cpu_model: String,
    pub kernel: String,
    pub quick: bool,
    pub interrupted: bool,
    pub result_count: i64,
    pub failure_count: i64,
}

/// An open history database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// `$XDG_DATA_HOME/concbench/history.sqlite` (or the platform's data directory), when the
/// platform has one.
pub fn default_path() -> Option<PathBuf> {
    Some(dirs::data_dir()?.join("concbench").join("history.sqlite"))
}

impl Store {
    /// Open (creating the file, its directory and the tables when needed).
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the directory {}", dir.display()))?;
        }
        let conn = Connection::open(path)
            .with_context(|| format!("opening the history database {}", path.display()))?;
        // Another concbench may be storing at the same moment: wait for it rather than fail.
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "foreign_keys", true)?;
        schema::migrate(&conn)
            .with_context(|| format!("preparing the history database {}", path.display()))?;
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Store one run, atomically; returns its id.
    pub fn save(&mut self, doc: &ResultDoc, command: &str) -> Result<i64> {
        let document = serde_json::to_string(doc)?;
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO runs (started_at, command, hostname, cpu_model, kernel, quick, \
             interrupted, result_count, failure_count, document) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                doc.started_at,
                command,
                doc.host.hostname,
                doc.host.cpu_model,
                doc.host.kernel,
                is_quick(doc),
                doc.interrupted,
                doc.results.len() as i64,
                doc.failures.len() as i64,
                document
            ],
        )?;
        let run_id = tx.last_insert_rowid();
        {
            let mut insert = tx.prepare(
                "INSERT INTO results (run_id, position, id, family, params, unit, median, \
                 ci_low, ci_high, samples) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for (position, r) in doc.results.iter().enumerate() {
                insert.execute(params![
                    run_id,
                    position as i64,
                    r.id,
                    r.family,
                    serde_json::to_string(&r.params)?,
                    r.unit,
                    r.summary.median,
                    r.interval().map(|c| c.0),
                    r.interval().map(|c| c.1),
                    serde_json::to_string(&r.samples)?,
                ])?;
            }
        }
        tx.commit()
            .context("committing the run to the history database")?;
        Ok(run_id)
    }

    /// Every stored run, most recently stored first.
    pub fn runs(&self) -> Result<Vec<RunRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, started_at, command, hostname, cpu_model, kernel, quick, interrupted, \
             result_count, failure_count FROM runs ORDER BY id DESC",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(RunRow {
                id: r.get(0)?,
                started_at: r.get(1)?,
                command: r.get(2)?,
                hostname: r.get(3)?,
                cpu_model: r.get(4)?,
                kernel: r.get(5)?,
                quick: r.get(6)?,
                interrupted: r.get(7)?,
                result_count: r.get(8)?,
                failure_count: r.get(9)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The document of run `id`, or `None` when no such run is stored.
    pub fn load(&self, id: i64) -> Result<Option<ResultDoc>> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT document FROM runs WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        text.map(|t| parse(&t, id)).transpose()
    }

    /// The most recently stored run, with its id.
    pub fn latest(&self) -> Result<Option<(i64, ResultDoc)>> {
        let row: Option<(i64, String)> = self
            .conn
            .query_row(
                "SELECT id, document FROM runs ORDER BY id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        row.map(|(id, t)| Ok((id, parse(&t, id)?))).transpose()
    }

    /// `PRAGMA integrity_check` plus the store's own invariant: every run has exactly the result
    /// rows it announces. Returns the problems found (empty when sound).
    pub fn check(&self) -> Result<Vec<String>> {
        let mut problems: Vec<String> = Vec::new();
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        for line in stmt.query_map([], |r| r.get::<_, String>(0))? {
            let line = line?;
            if line != "ok" {
                problems.push(line);
            }
        }
        let mut stmt = self.conn.prepare(
            "SELECT runs.id, runs.result_count, COUNT(results.run_id) FROM runs \
             LEFT JOIN results ON results.run_id = runs.id GROUP BY runs.id \
             HAVING runs.result_count != COUNT(results.run_id)",
        )?;
        for row in stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })? {
            let (id, announced, found) = row?;
            problems.push(format!(
                "run {id} announces {announced} results but has {found}"
            ));
        }
        let orphans: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM results WHERE run_id NOT IN (SELECT id FROM runs)",
            [],
            |r| r.get(0),
        )?;
        if orphans > 0 {
            problems.push(format!("{orphans} result rows belong to no run"));
        }
        Ok(problems)
    }
}

fn is_quick(doc: &ResultDoc) -> bool {
    doc.settings
        .get("quick")
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

fn parse(text: &str, id: i64) -> Result<ResultDoc> {
    match serde_json::from_str(text) {
        Ok(doc) => Ok(doc),
        Err(e) => bail!("stored run {id} is not a readable result document: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Host, Params, ResultEntry, Summary};

    pub(crate) fn doc(started_at: &str, results: usize) -> ResultDoc {
        let host = Host {
            hostname: "test-host".into(),
            ..Host::default()
        };
        let entry = |i: usize| ResultEntry {
            id: "syscall.getppid".into(),
            family: "syscall".into(),
            title: "t".into(),
            op: "o".into(),
            unit: "ns".into(),
            params: Params::new().with("i", i as u64),
            cpus: vec![],
            iterations: 1,
            summary: Summary {
                median: 1.0,
                ci95: Some([0.5, 1.5]),
                min: 0.5,
                max: 1.5,
                mad: 0.1,
                mean: 1.0,
            },
            samples: vec![1.0; 5],
            counters: Default::default(),
            rounds: vec![],
            spread: None,
            modes: vec![],
            overhead: None,
            warnings: vec![],
            info: Default::default(),
        };
        ResultDoc {
            results: (0..results).map(entry).collect(),
            ..ResultDoc::new(host, started_at.into())
        }
    }

    #[test]
    fn saves_lists_newest_first_and_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("sub/history.sqlite")).unwrap();
        let a = store.save(&doc("2026-01-01T00:00:00Z", 2), "run").unwrap();
        let b = store
            .save(&doc("2026-01-02T00:00:00Z", 3), "replicate")
            .unwrap();
        let runs = store.runs().unwrap();
        assert_eq!(
            runs.iter().map(|r| r.id).collect::<Vec<_>>(),
            vec![b, a],
            "newest first"
        );
        assert_eq!(runs[0].command, "replicate");
        assert_eq!(runs[0].result_count, 3);
        assert_eq!(
            store.load(a).unwrap().unwrap(),
            doc("2026-01-01T00:00:00Z", 2)
        );
        assert_eq!(store.latest().unwrap().unwrap().0, b);
        assert!(store.load(999).unwrap().is_none());
        assert!(store.check().unwrap().is_empty());
    }

    #[test]
    fn reopening_keeps_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        Store::open(&path)
            .unwrap()
            .save(&doc("2026-01-01T00:00:00Z", 1), "run")
            .unwrap();
        assert_eq!(Store::open(&path).unwrap().runs().unwrap().len(), 1);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        std::fs::write(&path, "this is not sqlite, just text that is long enough").unwrap();
        let err = Store::open(&path).err().expect("refused");
        assert!(format!("{err:#}").contains("history database"), "{err:#}");
    }
}
