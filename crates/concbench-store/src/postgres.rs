//! The shared backend: a PostgreSQL database many machines store into (`--db
//! postgresql://user@host/db`), through the `postgres` crate (synchronous, like the rest of the
//! store). The server rolls back the transaction of a client that dies mid-store, so a killed run
//! leaves nothing behind, as with SQLite.
//!
//! Connections are plain TCP or a Unix socket (`host=/run/postgresql`), without TLS: reach a
//! remote server through a tunnel or a local proxy (docs/FLEET.md).

use crate::backend::{self, Backend};
use crate::record::{Columns, RunRecord, RunRow};
use crate::schema::{self, LAYOUT, POSTGRES_STEPS};
use anyhow::{Context, Result};
use postgres::{Client, Config, GenericClient, NoTls};
use std::str::FromStr;
use std::time::Duration;

/// Waiting longer for a server that does not answer is pointless before a long measurement.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The advisory lock migrations hold (any constant; "concbench" in ASCII, truncated).
const MIGRATION_LOCK: i64 = 0x636f_6e63_6265_6e63;

pub struct Postgres {
    client: Client,
}

impl Postgres {
    /// Connect and migrate. `url` is a libpq-style URL; a missing connect timeout or application
    /// name gets concbench's.
    pub fn connect(url: &str) -> Result<Self> {
        let mut config = Config::from_str(url).context("reading the PostgreSQL URL")?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("concbench");
        }
        let client = config
            .connect(NoTls)
            .context("connecting to the PostgreSQL server")?;
        let mut store = Postgres { client };
        store
            .migrate()
            .context("preparing the history tables in PostgreSQL")?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<()> {
        if layout(&mut self.client)? == LAYOUT {
            return Ok(());
        }
        let mut tx = self.client.transaction()?;
        // Concurrent first opens (a fleet starting at once) queue here; the version is read
        // again under the lock.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        let current = layout(&mut tx)?;
        let steps = schema::pending(POSTGRES_STEPS, current)?;
        for step in &steps {
            tx.batch_execute(step.sql)
                .with_context(|| format!("migrating to layout {}", step.version))?;
        }
        if !steps.is_empty() {
            tx.execute(
                "INSERT INTO schema_version (version, applied_at, tool) VALUES ($1, \
                 to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), $2)",
                &[&LAYOUT, &env!("CARGO_PKG_VERSION")],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

/// The layout in force; 0 for a database without concbench's tables.
fn layout(client: &mut impl GenericClient) -> Result<i64> {
    // A catalog scan, not `to_regclass`: name lookups may answer from a cache that a concurrent
    // migration's commit has not yet invalidated in this session.
    let exists: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables \
             WHERE schemaname = current_schema() AND tablename = 'schema_version')",
            &[],
        )?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let v: Option<i64> = client.query_one(backend::CURRENT_LAYOUT, &[])?.get(0);
    Ok(v.unwrap_or(0))
}

impl Columns for postgres::Row {
    fn text(&self, i: usize) -> Result<String> {
        Ok(self.try_get(i)?)
    }
    fn optional_text(&self, i: usize) -> Result<Option<String>> {
        Ok(self.try_get(i)?)
    }
    fn int(&self, i: usize) -> Result<i64> {
        Ok(self.try_get(i)?)
    }
    fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.try_get(i)?)
    }
}

impl Backend for Postgres {
    fn insert(&mut self, run: &RunRecord) -> Result<i64> {
        let mut tx = self.client.transaction()?;
        let run_id: i64 = tx
            .query_one(
                backend::INSERT_RUN,
                &[
                    &run.started_at,
                    &run.command,
                    &run.hostname,
                    &run.machine_id,
                    &run.labels,
                    &run.cpu_model,
                    &run.kernel,
                    &run.quick,
                    &run.interrupted,
                    &run.result_count,
                    &run.failure_count,
                    &run.document,
                ],
            )?
            .get(0);
        // Every result row in one statement (arrays unnested server-side): one round trip, not
        // thousands, for a full run stored over the network.
        let column = |f: fn(&crate::record::ResultRecord) -> String| -> Vec<String> {
            run.results.iter().map(f).collect()
        };
        let positions: Vec<i64> = run.results.iter().map(|r| r.position).collect();
        let medians: Vec<f64> = run.results.iter().map(|r| r.median).collect();
        let lows: Vec<Option<f64>> = run.results.iter().map(|r| r.ci_low).collect();
        let highs: Vec<Option<f64>> = run.results.iter().map(|r| r.ci_high).collect();
        tx.execute(
            "INSERT INTO results (run_id, position, id, family, params, unit, median, ci_low, \
             ci_high, samples) SELECT $1::BIGINT, * FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::TEXT[], \
             $5::TEXT[], $6::TEXT[], $7::FLOAT8[], $8::FLOAT8[], $9::FLOAT8[], $10::TEXT[])",
            &[
                &run_id,
                &positions,
                &column(|r| r.id.clone()),
                &column(|r| r.family.clone()),
                &column(|r| r.params.clone()),
                &column(|r| r.unit.clone()),
                &medians,
                &lows,
                &highs,
                &column(|r| r.samples.clone()),
            ],
        )?;
        tx.commit()
            .context("committing the run to the PostgreSQL history")?;
        Ok(run_id)
    }

    fn runs(&mut self) -> Result<Vec<RunRow>> {
        self.client
            .query(&backend::select_runs(backend::POSTGRES_ONLY), &[])?
            .iter()
            .map(|row| RunRow::read(row))
            .collect()
    }

    fn document(&mut self, id: i64) -> Result<Option<String>> {
        Ok(self
            .client
            .query_opt(backend::SELECT_DOCUMENT, &[&id])?
            .map(|r| r.get(0)))
    }

    fn latest_id(&mut self) -> Result<Option<i64>> {
        Ok(self
            .client
            .query_opt(backend::LATEST_ID, &[])?
            .map(|r| r.get(0)))
    }

    fn check(&mut self) -> Result<Vec<String>> {
        let mut problems = Vec::new();
        for query in backend::INVARIANTS {
            for row in self.client.query(query, &[])? {
                problems.push(row.get(0));
            }
        }
        Ok(problems)
    }

    fn layout(&mut self) -> Result<i64> {
        layout(&mut self.client)
    }

    fn writable(&mut self) -> Result<()> {
        let may: bool = self
            .client
            .query_one(
                "SELECT has_table_privilege('runs', 'INSERT') \
                 AND has_table_privilege('results', 'INSERT')",
                &[],
            )
            .context("asking the server whether this user may store runs")?
            .get(0);
        if !may {
            anyhow::bail!(
                "this database user may not insert into the tables runs and results (GRANT \
                 INSERT ON runs, results TO the user, or connect as another)"
            );
        }
        Ok(())
    }
}
