//! Verdicts over a host's history end to end: `report --runs N` on a temporary store of pushed
//! documents, and `run` pooling with the stored runs unless `--alone`.

mod common;

use common::*;
use predicates::prelude::*;
use std::path::Path;

/// The SYNTHETIC fixture, started at `at` (interrupted when asked), written into `dir`.
fn copy_of_fixture(dir: &Path, at: &str, interrupted: bool) -> std::path::PathBuf {
    let mut doc = read_json(&fixture());
    doc["started_at"] = at.into();
    doc["interrupted"] = interrupted.into();
    let path = dir.join(format!("{at}.json"));
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    path
}

#[test]
fn report_runs_rejudges_the_newest_run_over_the_stored_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    // Pushed oldest first: the interrupted one is left out, and said so.
    let files = [
        copy_of_fixture(dir.path(), "2026-11-19T10:00:00Z", true),
        copy_of_fixture(dir.path(), "2026-11-20T10:00:00Z", false),
        copy_of_fixture(dir.path(), "2026-11-21T10:00:00Z", false),
        copy_of_fixture(dir.path(), "2026-11-22T10:00:00Z", false),
    ];
    concbench()
        .arg("push")
        .args(&files)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    // Four asked for, three compatible: the window looks past the interrupted one.
    concbench()
        .args(["report", "--all", "--runs", "4", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Over this host's history (3 runs, 2026-11-20 … 2026-11-22; left out: 1 interrupted)",
        ))
        .stdout(predicate::str::contains("over 3 runs ("))
        .stdout(predicate::str::contains("this run alone: "));
    // The summary says after the heading which claims differ from the run alone (wrapped to
    // the terminal's width, so read with its line breaks folded).
    let summary = concbench()
        .args(["report", "--runs", "4", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("over 3 runs (").not());
    let folded = String::from_utf8_lossy(&summary.get_output().stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        folded.contains("left out: 1 interrupted): ")
            && folded.contains("claims differ from this run alone: "),
        "{folded}"
    );
    concbench()
        .args(["report", "--runs", "2", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Over this host's history (2 runs, 2026-11-21 … 2026-11-22)",
        ));
    concbench()
        .args(["report", "--runs", "1", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("Over this host's history").not());
}

#[test]
fn report_runs_on_an_empty_store_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    concbench()
        .args(["report", "--runs", "5", "--db"])
        .arg(dir.path().join("empty.sqlite"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "holds no run of `concbench run` yet",
        ));
    // --runs reads the history: it takes no FILE.
    concbench()
        .args(["report", "--runs", "5"])
        .arg(fixture())
        .assert()
        .code(2);
}

#[test]
fn run_pools_with_the_stored_runs_unless_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let run = |json: &str, alone: bool| {
        let mut c = concbench();
        c.args(["run", "--smoke", "--only", "create", "--db"])
            .arg(&db)
            .arg("--json")
            .arg(dir.path().join(json));
        if alone {
            c.arg("--alone");
        }
        c.assert().success();
        read_json(&dir.path().join(json))
    };
    let first = run("1.json", false);
    assert_valid(&first);
    // Nothing stored yet: the run's own verdicts are all there is.
    assert!(first.get("history").is_none(), "{}", first["history"]);
    let second = run("2.json", false);
    assert_valid(&second);
    assert_eq!(second["history"]["runs"], 2);
    let s030x = second["history"]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["source"] == "S0.30x")
        .expect("S0.30x pooled");
    assert!(s030x["alone"].is_string() && s030x["verdict"].is_string());
    let alone = run("3.json", true);
    assert!(alone.get("history").is_none(), "{}", alone["history"]);
}
