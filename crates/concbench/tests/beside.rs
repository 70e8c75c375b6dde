//! Runs beside each other (issue 29): a run refuses to measure while another holds the
//! machine's run lock, naming it; `--allow-concurrent` measures anyway and records the overlap;
//! documents in the default folder never overwrite each other. And the small CLI regressions
//! found by the same newcomer's tour.

mod common;

use common::*;
use predicates::prelude::*;
use std::os::fd::AsRawFd;

/// Hold `path` as a run would: an exclusive `flock` on it (the lock names this test process).
fn hold_lock(path: &std::path::Path) -> std::fs::File {
    let f = std::fs::File::create(path).unwrap();
    // SAFETY: flock on a descriptor this function owns; the lock lives as long as the file.
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(rc, 0, "the test takes the lock first");
    f
}

/// How a refused run names this test process: "pid N (" and its program's name.
fn this_test() -> (String, String) {
    let pid = std::process::id();
    let exe = std::env::current_exe().unwrap();
    let name = exe.file_name().unwrap().to_string_lossy().into_owned();
    (format!("pid {pid} ("), name)
}

#[test]
fn a_run_beside_another_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("run.lock");
    let _held = hold_lock(&lock);
    let (pid, command) = this_test();
    let out = dir.path().join("out.json");
    concbench()
        .env("CONCBENCH_LOCK", &lock)
        .args([
            "run",
            "--smoke",
            "--no-store",
            "--only",
            "syscall",
            "--json",
        ])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(pid)
                .and(predicate::str::contains(command))
                .and(predicate::str::contains("--allow-concurrent")),
        );
    assert!(!out.exists(), "a refused run writes no document");
}

#[test]
fn a_forced_run_records_the_overlap_in_its_document_and_first_screen() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("run.lock");
    let _held = hold_lock(&lock);
    let out = dir.path().join("out.json");
    let assert = concbench()
        .env("CONCBENCH_LOCK", &lock)
        .args(["run", "--smoke", "--no-store", "--allow-concurrent"])
        .args(["--only", "syscall", "--json"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let (pid, _) = this_test();
    assert!(stdout.contains(&pid), "{stdout}");
    let doc = read_json(&out);
    assert_valid(&doc);
    assert_eq!(
        doc["settings"]["overlapping_runs"][0]["pid"],
        std::process::id()
    );
    assert!(
        doc["warnings"]
            .to_string()
            .contains("measured on this machine during this run"),
        "{}",
        doc["warnings"]
    );
    // The holder learns of the forced run from the list beside the lock.
    let beside = std::fs::read_to_string(dir.path().join("run.lock.beside")).unwrap();
    assert!(beside.contains("--allow-concurrent"), "{beside}");
}

#[test]
fn regression_runs_in_the_same_second_keep_both_documents() {
    let dir = tempfile::tempdir().unwrap();
    let run = || {
        concbench()
            .current_dir(dir.path())
            .args(["run", "--smoke", "--no-store", "--only", "syscall"])
            .assert()
            .success();
    };
    run();
    run();
    let written: Vec<_> = std::fs::read_dir(dir.path().join("concbench-results"))
        .unwrap()
        .collect();
    // Two documents whatever their time stamps: a shared one gets a "-2" beside it.
    assert_eq!(written.len(), 2, "{written:?}");
}

#[test]
fn regression_budget_and_settle_take_units_like_load_does() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    concbench()
        .args(["run", "--smoke", "--no-store", "--only", "syscall"])
        .args(["--budget", "0s", "--settle", "0s", "--json"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(read_json(&out)["settings"]["budget_s"], 0);
    concbench()
        .args(["run", "--budget", "2 parsecs"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--budget"));
}

#[test]
fn regression_output_lost_to_a_full_disk_is_not_success() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system: nothing to check
    };
    let out = concbench_process()
        .arg("list")
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopped writing to stdout"), "{stderr}");
}

#[test]
fn regression_advise_refuses_a_rate_of_zero() {
    concbench()
        .args(["advise", "--units-per-sec", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--units-per-sec"));
}
