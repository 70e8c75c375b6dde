//! Ctrl-C during a run stops it cleanly: exit code 130, a document marked interrupted, and no
//! process left behind (the worker and everything it forked are gone).

mod common;

use common::processes_with;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn ctrl_c_leaves_no_process_behind() {
    // Full-size 100k fork batches keep the worker forking when the signal arrives.
    ctrl_c_during(&["--only", "create.process_100k"]);
}

#[test]
fn ctrl_c_during_a_print_batch_leaves_no_worker_behind() {
    // 255 forked writers per batch: the signal lands while they write.
    ctrl_c_during(&["--only", "workload.print"]);
}

#[test]
fn ctrl_c_during_the_crash_experiment_leaves_no_pool_behind() {
    // Many repetitions, so the run is still crashing and respawning pool workers at the signal.
    ctrl_c_during(&["--only", "isolation", "--repeat", "1000"]);
}

/// Run with `args`, press Ctrl-C once it is measuring, and check that everything is gone.
fn ctrl_c_during(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let marker = format!("CONCBENCH_TEST_MARKER={}-{}", std::process::id(), args[1]);
    let (k, v) = marker.split_once('=').unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("concbench"))
        .arg("run")
        .args(args)
        .arg("--json")
        .arg(&out)
        .env(k, v)
        .env("CI", "true")
        .env("XDG_DATA_HOME", common::test_data_home())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    // Wait until the worker is running (more than the coordinator carries the marker).
    while processes_with(&marker).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        processes_with(&marker).len() >= 2,
        "the worker never started"
    );
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill with the pid of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let left = processes_with(&marker);
    assert!(left.is_empty(), "left running: {left:?}");
    let doc = common::read_json(&out);
    assert_eq!(doc["interrupted"], true);
}
