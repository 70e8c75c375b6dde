//! The run history: every result document concbench writes is also stored in a database, so
//! `history`, `compare`, `advise` and `fleet` can work from past runs — an embedded SQLite file by
//! default, or a PostgreSQL database many machines share (`--db postgresql://…`).
//!
//! Both backends implement one [`Backend`] trait over the same layout (see `schema`), with the
//! same guarantee: a run is written in ONE transaction (the document and its per-result rows
//! together), so a run killed while storing leaves the database as it was before. The whole
//! document is kept as JSON (nothing is lost and later versions can re-read it); the `results`
//! table repeats the headline numbers of each result for plain SQL queries.

mod backend;
mod location;
#[cfg(feature = "postgres")]
mod postgres;
mod record;
mod schema;
mod sqlite;

pub use backend::Backend;
pub use location::Location;
pub use record::RunRow;
pub use schema::LAYOUT;

use anyhow::{bail, Result};
use concbench_core::ResultDoc;
use record::RunRecord;
use std::path::PathBuf;

/// An open history database.
pub struct Store {
    backend: Box<dyn Backend>,
    location: Location,
}

/// `$XDG_DATA_HOME/concbench/history.sqlite` (or the platform's data directory), when the
/// platform has one.
pub fn default_path() -> Option<PathBuf> {
    Some(dirs::data_dir()?.join("concbench").join("history.sqlite"))
}

impl Store {
    /// Open the history at `location`, creating and migrating its tables when needed.
    pub fn open(location: &Location) -> Result<Self> {
        let backend: Box<dyn Backend> = match location {
            Location::File(path) => Box::new(sqlite::Sqlite::open(path)?),
            Location::Postgres(url) => connect_postgres(url)?,
        };
        Ok(Self {
            backend,
            location: location.clone(),
        })
    }

    /// Where the runs live: the SQLite file or the PostgreSQL URL (printable without its
    /// password through `display()`).
    pub fn path(&self) -> &Location {
        &self.location
    }

    /// Store one run, atomically; returns its id.
    pub fn save(&mut self, doc: &ResultDoc, command: &str) -> Result<i64> {
        self.backend.insert(&RunRecord::new(doc, command)?)
    }

    /// Every stored run, most recently stored first.
    pub fn runs(&mut self) -> Result<Vec<RunRow>> {
        self.backend.runs()
    }

    /// The document of run `id`, or `None` when no such run is stored.
    pub fn load(&mut self, id: i64) -> Result<Option<ResultDoc>> {
        let text = self.backend.document(id)?;
        text.map(|t| parse(&t, id)).transpose()
    }

    /// The most recently stored run, with its id.
    pub fn latest(&mut self) -> Result<Option<(i64, ResultDoc)>> {
        match self.backend.latest_id()? {
            Some(id) => Ok(self.load(id)?.map(|doc| (id, doc))),
            None => Ok(None),
        }
    }

    /// The engine's integrity check (SQLite) plus the store's own invariant: every run has
    /// exactly the result rows it announces. Returns the problems found (empty when sound).
    pub fn check(&mut self) -> Result<Vec<String>> {
        self.backend.check()
    }

    /// Whether a run can be stored here (see [`Backend::writable`]): a measuring command asks
    /// before it measures, so that a damaged or read-only history is refused at once rather than
    /// after minutes of measuring.
    pub fn writable(&mut self) -> Result<()> {
        self.backend.writable()
    }

    /// The layout version of the database (always [`LAYOUT`] once open).
    pub fn layout(&mut self) -> Result<i64> {
        self.backend.layout()
    }
}

#[cfg(feature = "postgres")]
fn connect_postgres(url: &str) -> Result<Box<dyn Backend>> {
    Ok(Box::new(postgres::Postgres::connect(url)?))
}

#[cfg(not(feature = "postgres"))]
fn connect_postgres(_url: &str) -> Result<Box<dyn Backend>> {
    Err(without_postgres().into())
}

/// What a build without the `postgres` feature answers a `postgresql://` history: how to get one
/// that has it (a usage error: the fix is the user's, not the server's).
pub fn without_postgres() -> concbench_core::UsageError {
    concbench_core::UsageError::new(
        "this concbench was built without PostgreSQL support; rebuild it with \
         `cargo install --locked --path crates/concbench --features postgres` \
         or use an SQLite file (the default)",
    )
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

    #[test]
    fn a_build_without_postgres_says_how_to_build_one_with_it() {
        let text = without_postgres().to_string();
        assert!(text.contains("--features postgres"), "{text}");
        assert!(text.contains("SQLite"), "{text}");
    }
}
