//! What a stored run is made of, computed once from a result document for every backend: the
//! run's row (headline facts for listing and filtering, plus the whole document as JSON) and one
//! row per result (for plain SQL queries). And the listing row read back.

use anyhow::Result;
use concbench_core::ResultDoc;
use std::collections::BTreeMap;

/// The row of table `runs`, ready to insert.
#[derive(Debug, Clone)]
pub struct RunRecord {
    pub started_at: String,
    pub command: String,
    pub hostname: String,
    pub machine_id: Option<String>,
    /// JSON object of the run's labels (`{}` when none).
    pub labels: String,
    pub cpu_model: String,
    pub kernel: String,
    pub quick: bool,
    pub interrupted: bool,
    pub result_count: i64,
    pub failure_count: i64,
    /// The whole result document, JSON.
    pub document: String,
    pub results: Vec<ResultRecord>,
}

/// A row of table `results`.
#[derive(Debug, Clone)]
pub struct ResultRecord {
    pub position: i64,
    pub id: String,
    pub family: String,
    /// JSON object, keys sorted.
    pub params: String,
    pub unit: String,
    pub median: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// JSON array, one value per repetition.
    pub samples: String,
}

impl RunRecord {
    pub fn new(doc: &ResultDoc, command: &str) -> Result<RunRecord> {
        let results = doc
            .results
            .iter()
            .enumerate()
            .map(|(position, r)| {
                Ok(ResultRecord {
                    position: position as i64,
                    id: r.id.clone(),
                    family: r.family.clone(),
                    params: serde_json::to_string(&r.params)?,
                    unit: r.unit.clone(),
                    median: r.summary.median,
                    ci_low: r.interval().map(|c| c.0),
                    ci_high: r.interval().map(|c| c.1),
                    samples: serde_json::to_string(&r.samples)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RunRecord {
            started_at: doc.started_at.clone(),
            command: command.to_string(),
            hostname: doc.host.hostname.clone(),
            machine_id: doc.host.machine_id.clone(),
            labels: serde_json::to_string(&doc.labels())?,
            cpu_model: doc.host.cpu_model.clone(),
            kernel: doc.host.kernel.clone(),
            quick: doc.mode().is_quick(),
            interrupted: doc.interrupted,
            result_count: doc.results.len() as i64,
            failure_count: doc.failures.len() as i64,
            document: serde_json::to_string(doc)?,
            results,
        })
    }
}

/// One stored run, as `concbench history` lists it and `fleet` selects it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub id: i64,
    pub started_at: String,
    /// The command that produced it (`run`, `replicate`, or the command of a pushed document).
    pub command: String,
    pub hostname: String,
    /// The stable machine id (hashed `/etc/machine-id`); `None` for runs stored before it existed.
    pub machine_id: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub cpu_model: String,
    pub kernel: String,
    pub quick: bool,
    pub interrupted: bool,
    pub result_count: i64,
    pub failure_count: i64,
    /// The run's `--only` (empty: everything), read from its document.
    pub only: Vec<String>,
}

/// The columns of [`RUN_COLUMNS`], read from one backend's row type: lets both backends build
/// a [`RunRow`] with the same code.
pub trait Columns {
    fn text(&self, i: usize) -> Result<String>;
    fn optional_text(&self, i: usize) -> Result<Option<String>>;
    fn int(&self, i: usize) -> Result<i64>;
    fn flag(&self, i: usize) -> Result<bool>;
}

/// The `runs` columns a [`RunRow`] is read from, in [`RunRow::read`]'s order; then, from the
/// document, the run's `--only` as a JSON array (each backend's own expression: [`only`]).
pub const RUN_COLUMNS: &str = "id, started_at, command, hostname, machine_id, labels, cpu_model, \
                               kernel, quick, interrupted, result_count, failure_count";

impl RunRow {
    pub fn read(row: &dyn Columns) -> Result<RunRow> {
        Ok(RunRow {
            id: row.int(0)?,
            started_at: row.text(1)?,
            command: row.text(2)?,
            hostname: row.text(3)?,
            machine_id: row.optional_text(4)?,
            labels: serde_json::from_str(&row.text(5)?).unwrap_or_default(),
            cpu_model: row.text(6)?,
            kernel: row.text(7)?,
            quick: row.flag(8)?,
            interrupted: row.flag(9)?,
            result_count: row.int(10)?,
            failure_count: row.int(11)?,
            only: row
                .optional_text(12)?
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or_default(),
        })
    }
}
