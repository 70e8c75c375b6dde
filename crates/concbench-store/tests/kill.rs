//! A run killed (SIGKILL) while it is being stored must leave the history database sound and
//! without a partial run: SQLite's rollback journal undoes the unfinished transaction.
//!
//! The test re-executes its own binary as the writer (env `CONCBENCH_STORE_WRITER` names the
//! database): it stores large runs in a loop, printing a line after each commit. After the first
//! commit the parent waits until the writer's rollback journal appears (it is inside its next
//! transaction), kills it, confirms the journal was left behind (the kill landed mid-transaction)
//! and reopens the database to check it.

use concbench_core::{Host, Params, ResultDoc, ResultEntry, Summary};
use concbench_store::Store;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const WRITER_ENV: &str = "CONCBENCH_STORE_WRITER";
const TEST_NAME: &str = "kill_during_store_leaves_no_partial_run";

/// A run large enough that storing it takes a while (thousands of result rows).
fn big_doc(n: usize) -> ResultDoc {
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
            ci95: Some([990.0, 1010.0]),
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
        warnings: vec!["synthetic test data, not a measurement".into()],
        info: Default::default(),
    };
    ResultDoc {
        results: (0..n).map(entry).collect(),
        ..ResultDoc::new(Host::default(), "2026-01-01T00:00:00Z".into())
    }
}

/// The writer side: store forever, announcing each commit.
fn write_forever(db: &Path) -> ! {
    let mut store = Store::open(db).expect("open");
    let doc = big_doc(4000);
    loop {
        let id = store.save(&doc, "run").expect("save");
        println!("stored {id}");
    }
}

fn journal(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap().to_os_string();
    name.push("-journal");
    db.with_file_name(name)
}

/// Start a writer, let it commit once, wait until it is inside its next transaction (its rollback
/// journal exists) and kill it. True when the kill landed inside the transaction (the journal
/// was left behind: the commit can finish between the check and the kill).
fn kill_writer_mid_transaction(db: &Path) -> bool {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
        .env(WRITER_ENV, db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn writer");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("stored ")));
    assert!(first.is_some(), "the writer never committed a run");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !journal(db).exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
    }
    // SAFETY: kill(2) on our own child's pid; it cannot touch memory.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    assert_eq!(rc, 0, "kill failed");
    child.wait().expect("reap writer");
    std::fs::metadata(journal(db)).is_ok_and(|m| m.len() > 0)
}

#[test]
fn kill_during_store_leaves_no_partial_run() {
    if let Some(db) = std::env::var_os(WRITER_ENV) {
        write_forever(Path::new(&db));
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let mut mid_transaction = 0;
    for attempt in 0..10 {
        if kill_writer_mid_transaction(&db) {
            mid_transaction += 1;
            let store = Store::open(&db).expect("reopen after kill");
            let problems = store.check().unwrap();
            assert!(problems.is_empty(), "after kill #{attempt}: {problems:?}");
            for run in store.runs().unwrap() {
                let doc = store.load(run.id).unwrap().unwrap();
                assert_eq!(doc.results.len(), 4000, "run {} is partial", run.id);
            }
            if mid_transaction == 2 {
                break;
            }
        }
    }
    assert!(
        mid_transaction > 0,
        "no kill landed inside a transaction: the test proved nothing"
    );
}
