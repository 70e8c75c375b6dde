//! Test data for the store tests: synthetic result documents (never measurements), and the two
//! backends to run the same cases against.

#![allow(dead_code)]

use concbench_core::{Host, Params, ResultDoc, ResultEntry, Summary};
use concbench_store::Location;

/// A document with `results` synthetic results on machine `machine`.
pub fn doc_on(machine: &str, started_at: &str, results: usize) -> ResultDoc {
    let host = Host {
        hostname: "test-host".into(),
        machine_id: Some(machine.into()),
        ..Host::default()
    };
    let entry = |i: usize| ResultEntry {
        id: "switch.pipe.thread".into(),
        family: "switch".into(),
        title: "synthetic test data".into(),
        op: "one switch".into(),
        unit: "ns".into(),
        params: Params::new().with("variant", i as u64),
        cpus: vec![0],
        iterations: 1000,
        summary: Summary {
            median: 1000.0 + i as f64,
            // Every third result without an interval (too few rounds): stored as NULL.
            ci95: (!i.is_multiple_of(3)).then_some([990.0, 1010.0 + i as f64]),
            min: 980.0,
            max: 1020.0,
            mad: 5.0,
            mean: 1000.0,
        },
        samples: (0..10).map(|k| 1000.0 + k as f64).collect(),
        counters: [("voluntary_switches_per_op".to_string(), 2.0)]
            .into_iter()
            .collect(),
        rounds: vec![],
        spread: None,
        modes: vec![],
        overhead: None,
        quantity: None,
        warnings: vec!["synthetic test data, not a measurement".into()],
        info: Default::default(),
    };
    ResultDoc {
        results: (0..results).map(entry).collect(),
        ..ResultDoc::new(host, started_at.into())
    }
}

pub fn doc(started_at: &str, results: usize) -> ResultDoc {
    doc_on("m-test", started_at, results)
}

/// A new, empty SQLite store in `dir`.
pub fn new_sqlite(dir: &tempfile::TempDir, name: &str) -> Location {
    Location::File(dir.path().join(format!("{name}/history.sqlite")))
}

/// Run one raw SQL statement on the store at `location` (to stage damage or a future layout).
pub fn execute(location: &Location, sql: &str) {
    match location {
        Location::File(path) => {
            rusqlite::Connection::open(path)
                .unwrap()
                .execute_batch(sql)
                .unwrap();
        }
        Location::Postgres(url) => {
            postgres::Client::connect(url, postgres::NoTls)
                .unwrap()
                .batch_execute(sql)
                .unwrap();
        }
    }
}
