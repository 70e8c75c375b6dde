//! A reader that goes away (`concbench list | head -5`) ends the output quietly: exit code as
//! usual, no panic, no "Broken pipe" on stderr, and `run` still writes its result document.
//!
//! The pipe's read end is closed before the command starts, so its very first write meets EPIPE
//! (a reader that closes later could miss output small enough to fit in the pipe's buffer).

mod common;

use common::{concbench_process, fixture, read_json};
use std::process::Output;

/// Run `concbench ARGS` with stdout a pipe nobody reads.
fn with_reader_gone(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    concbench_process()
        .args(args)
        .stdout(writer)
        .output()
        .expect("concbench runs")
}

fn assert_quiet(args: &[&str]) -> Output {
    let out = with_reader_gone(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "concbench {args:?} complained about the closed pipe:\n{stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{args:?}; stderr:\n{stderr}");
    out
}

#[test]
fn list_ends_quietly() {
    assert_quiet(&["list"]);
}

#[test]
fn report_ends_quietly() {
    assert_quiet(&["report", fixture().to_str().unwrap()]);
}

#[test]
fn compare_ends_quietly() {
    let f = fixture();
    assert_quiet(&["compare", f.to_str().unwrap(), f.to_str().unwrap()]);
}

#[test]
fn run_still_writes_and_stores_its_document_and_history_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let db = dir.path().join("h.sqlite");
    let (json_s, db_s) = (json.to_str().unwrap(), db.to_str().unwrap());
    let out = assert_quiet(&[
        "run", "--smoke", "--only", "syscall", "--json", json_s, "--db", db_s,
    ]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stored as run"),
        "the run was not stored"
    );
    assert!(!read_json(&json)["results"].as_array().unwrap().is_empty());
    assert_quiet(&["history", "--db", db_s]);
}
