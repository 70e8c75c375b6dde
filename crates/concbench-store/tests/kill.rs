//! A run killed (SIGKILL) while it is being stored must leave the history sound and without a
//! partial run, in both backends: SQLite's rollback journal undoes the unfinished transaction;
//! PostgreSQL rolls back the transaction of a client whose connection dies.
//!
//! Each test re-executes its own binary as the writer (env `CONCBENCH_STORE_WRITER` names the
//! store): it stores large runs in a loop, printing a line after each commit. After the first
//! commit the parent waits until the writer is inside its next transaction, kills it, and
//! reopens the store to check it. The wait differs: SQLite's writer has a rollback journal on
//! disk; PostgreSQL's shows its result insert running in `pg_stat_activity`. A kill counts as
//! landing inside a transaction only on proof: the journal left behind (SQLite), the writer's
//! open transaction aborted by the server (`pg_xact_status`, PostgreSQL).

mod common;

use common::doc;
use concbench_store::{Location, Store};
use std::io::{BufRead, BufReader, Lines};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const WRITER_ENV: &str = "CONCBENCH_STORE_WRITER";
const RESULTS_PER_RUN: usize = 4000;
/// The PostgreSQL writer's application name, to find its session in `pg_stat_activity`.
const WRITER_APP: &str = "concbench-kill-writer";

/// The writer side: store forever, announcing each commit.
fn write_forever(location: &str) -> ! {
    let mut store = Store::open(&Location::parse(location)).expect("open");
    let doc = doc("2026-01-01T00:00:00Z", RESULTS_PER_RUN);
    loop {
        let id = store.save(&doc, "run").expect("save");
        println!("stored {id}");
    }
}

/// The writer's line after a commit (the first one follows libtest's `test NAME ... ` on the
/// same line).
fn announces_commit(line: &str) -> bool {
    line.contains("stored ")
}

/// Start a writer on `location` (running test `test`) and wait for its first commit.
fn start_writer(test: &str, location: &str) -> (Child, Lines<BufReader<ChildStdout>>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(WRITER_ENV, location)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn writer");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.find(|l| l.as_ref().is_ok_and(|l| announces_commit(l)));
    assert!(first.is_some(), "the writer never committed a run");
    (child, lines)
}

/// SIGKILL, reap, and count the commits the writer announced after its first.
fn kill(mut child: Child, lines: Lines<BufReader<ChildStdout>>) -> usize {
    // SAFETY: kill(2) on our own child's pid; it cannot touch memory.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    assert_eq!(rc, 0, "kill failed");
    child.wait().expect("reap writer");
    lines
        .map_while(Result::ok)
        .filter(|l| announces_commit(l))
        .count()
}

/// Poll `inside` until it holds (or 10 s pass), without sleeping: in a release build the
/// transaction's window is short enough that polling every 200 µs missed it in ten of ten
/// attempts. Yielding (not spinning) leaves the CPU to the writer on a 2-CPU machine.
/// Returns whether it held: a wait that timed out proves nothing.
#[must_use]
fn wait_until(mut inside: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if inside() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::yield_now();
    }
}

/// Every stored run is whole and the store's invariants hold; returns how many runs there are.
fn assert_no_partial_run(location: &Location, attempt: usize) -> usize {
    let mut store = Store::open(location).expect("reopen after kill");
    let problems = store.check().unwrap();
    assert!(problems.is_empty(), "after kill #{attempt}: {problems:?}");
    let runs = store.runs().unwrap();
    for run in &runs {
        let doc = store.load(run.id).unwrap().unwrap();
        assert_eq!(
            doc.results.len(),
            RESULTS_PER_RUN,
            "run {} is partial",
            run.id
        );
    }
    runs.len()
}

fn journal(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap().to_os_string();
    name.push("-journal");
    db.with_file_name(name)
}

#[test]
fn kill_during_store_leaves_no_partial_run_in_sqlite() {
    if let Ok(location) = std::env::var(WRITER_ENV) {
        write_forever(&location);
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let mut mid_transaction = 0;
    for attempt in 0..10 {
        let (child, lines) = start_writer(
            "kill_during_store_leaves_no_partial_run_in_sqlite",
            db.to_str().unwrap(),
        );
        let seen = wait_until(|| journal(&db).exists());
        kill(child, lines);
        // The kill landed inside the transaction when the journal was left behind (the commit
        // can finish between the check and the kill).
        if seen && std::fs::metadata(journal(&db)).is_ok_and(|m| m.len() > 0) {
            mid_transaction += 1;
            assert_no_partial_run(&Location::File(db.clone()), attempt);
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

#[test]
fn kill_during_store_leaves_no_partial_run_in_postgres() {
    if let Ok(location) = std::env::var(WRITER_ENV) {
        write_forever(&location);
    }
    let Some(pg) =
        concbench_pgtest::start_or_skip("kill_during_store_leaves_no_partial_run_in_postgres")
    else {
        return;
    };
    let url = pg.new_database("killed");
    let writer_url = format!("{url}?application_name={WRITER_APP}");
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut mid_transaction = 0;
    for attempt in 0..10 {
        let (child, lines) = start_writer(
            "kill_during_store_leaves_no_partial_run_in_postgres",
            &writer_url,
        );
        let mut xid = None;
        let seen = wait_until(|| {
            xid = inserting_xid(&mut admin);
            xid.is_some()
        });
        kill(child, lines);
        // Wait until the server noticed the dead client and ended its session.
        let ended = wait_until(|| inserting_xid(&mut admin).is_none());
        assert!(
            ended,
            "the server kept the killed writer's session for 10 s"
        );
        assert_no_partial_run(&Location::Postgres(url.clone()), attempt);
        let Some(xid) = xid.filter(|_| seen) else {
            continue;
        };
        // The kill landed inside the transaction only when the transaction the writer had open
        // is now aborted; "committed" means its commit finished between the look and the kill.
        // (A throw-away cluster is in epoch 0, so a 32-bit xid is also its full id.)
        let status: Option<String> = admin
            .query_one("SELECT pg_xact_status($1::text::xid8)", &[&xid])
            .unwrap()
            .get(0);
        if status.as_deref() == Some("aborted") {
            mid_transaction += 1;
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

/// The transaction id of the writer's session while it inserts results (`None` otherwise).
fn inserting_xid(admin: &mut postgres::Client) -> Option<String> {
    admin
        .query_opt(
            "SELECT backend_xid::text FROM pg_stat_activity WHERE application_name = $1 \
             AND state = 'active' AND backend_xid IS NOT NULL \
             AND query LIKE 'INSERT INTO results%' LIMIT 1",
            &[&WRITER_APP],
        )
        .unwrap()
        .map(|row| row.get(0))
}
