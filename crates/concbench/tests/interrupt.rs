//! Ctrl-C during a run stops it cleanly: exit code 130, a document marked interrupted, and no
//! process left behind (the worker and everything it forked are gone); under `nohup` a closed
//! terminal (SIGHUP) does not stop it.

mod common;

use common::{concbench_process, processes_with, started_measuring};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

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
    signals_during(args, &mut concbench_process(), &[libc::SIGINT]);
}

#[test]
fn under_nohup_a_closed_terminal_does_not_stop_the_run() {
    let mut cmd = concbench_process();
    // SAFETY: signal(2) is async-signal-safe; it only changes the child's SIGHUP action.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        })
    };
    // Had SIGHUP stopped the run, the Ctrl-C after it would be a second signal, which exits at
    // once without a document.
    signals_during(
        &["--only", "create.process_100k"],
        &mut cmd,
        &[libc::SIGHUP, libc::SIGINT],
    );
}

/// Run `cmd` with `args`, send `signals` once it is measuring, and check that the run stopped
/// cleanly (exit 130, a document marked interrupted) and left no process behind.
fn signals_during(args: &[&str], cmd: &mut Command, signals: &[i32]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let marker = format!(
        "CONCBENCH_TEST_MARKER={}-{}-{}",
        std::process::id(),
        args[1],
        signals[0]
    );
    cmd.arg("run")
        .args(args)
        .args(["--settle", "0"])
        .arg("--json")
        .arg(&out);
    let mut child = started_measuring(cmd, &marker);
    for signal in signals {
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: kill with the pid of our own child.
        unsafe { libc::kill(child.id() as i32, *signal) };
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let left = processes_with(&marker);
    assert!(left.is_empty(), "left running: {left:?}");
    let doc = common::read_json(&out);
    assert_eq!(doc["interrupted"], true);
}
