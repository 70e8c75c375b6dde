//! A run leaves nothing behind however it ends: a closed terminal (SIGHUP) stops it like Ctrl-C
//! (document written, processes and io files gone), and what a `kill -9` leaves is removed by the
//! next run, which says so — never what a live run is using, never what is not concbench's.

mod common;

use common::{concbench, concbench_process, processes_with, read_json, wait_for};
use predicates::prelude::*;
use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// `$TMPDIR` for the runs: on the build's disk (the io family refuses tmpfs), private to a test.
fn tmpdir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

/// The `concbench-*` directories in `dir`.
fn run_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("concbench-"))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// A pseudo-terminal: the master end, and the slave end for the run's stdout and stderr.
fn terminal() -> (OwnedFd, File) {
    // SAFETY: posix_openpt returns a new descriptor we own (or -1); grantpt/unlockpt/ptsname_r
    // act on it; the slave path is a NUL-terminated C string in `name`.
    unsafe {
        // Close-on-exec: a child holding the master would keep the terminal open.
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(master >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let path = std::ffi::CStr::from_ptr(name.as_ptr()).to_str().unwrap();
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap();
        (OwnedFd::from_raw_fd(master), slave)
    }
}

/// An io run (the family with data files) in `tmp`, marked with `marker`; returns once its data
/// directory holds files.
fn io_run(tmp: &Path, json: &Path, marker: &str, stdio: Option<&File>) -> Child {
    let (k, v) = marker.split_once('=').unwrap();
    let mut cmd = concbench_process();
    cmd.args([
        "run",
        "--quick",
        "--no-store",
        "--settle",
        "0",
        "--only",
        "io",
        "--where",
        "files=10",
    ])
    .arg("--json")
    .arg(json)
    .env(k, v)
    .env("TMPDIR", tmp)
    .current_dir(tmp);
    match stdio {
        Some(tty) => {
            // A test run under `nohup` (or any runner that ignores SIGHUP) passes the ignored
            // disposition on, and concbench then keeps running past a closed terminal on
            // purpose: this run must see the hangup as a terminal's user would.
            // SAFETY: `signal` is async-signal-safe, as a pre_exec closure requires.
            unsafe {
                cmd.pre_exec(|| {
                    libc::signal(libc::SIGHUP, libc::SIG_DFL);
                    Ok(())
                });
            }
            // Attended, as in a terminal: the progress bar draws too.
            cmd.env_remove("CI")
                .stdout(tty.try_clone().unwrap())
                .stderr(tty.try_clone().unwrap())
        }
        None => cmd.stdout(Stdio::null()).stderr(Stdio::null()),
    };
    let mut child = cmd.spawn().unwrap();
    let data = tmp.join(format!("concbench-io-{}", child.id()));
    wait_for(&mut child, Duration::from_secs(60), "a data file", || {
        has_data_files(&data)
    });
    child
}

fn has_data_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|d| {
        d.flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "dat"))
    })
}

fn marker(tag: &str) -> String {
    format!("CONCBENCH_TEST_MARKER={}-{tag}", std::process::id())
}

#[test]
fn a_closed_terminal_stops_the_run_cleanly() {
    let tmp = tmpdir();
    let json = tmp.path().join("out.json");
    let marker = marker("sighup");
    let (master, slave) = terminal();
    let mut child = io_run(tmp.path(), &json, &marker, Some(&slave));
    drop(slave);
    // The terminal goes away: writes to it fail from now on, and the run gets SIGHUP.
    drop(master);
    // SAFETY: kill with the pid of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert_eq!(read_json(&json)["interrupted"], true);
    assert!(processes_with(&marker).is_empty(), "left running");
    assert_eq!(run_dirs(tmp.path()), Vec::<PathBuf>::new(), "left behind");
}

#[test]
fn what_a_killed_run_leaves_is_removed_by_the_next_run_and_named() {
    let tmp = tmpdir();
    let foreign = tmp.path().join("concbench-not-claimed");
    std::fs::create_dir(&foreign).unwrap();
    let marker = marker("kill9");
    let mut killed = io_run(tmp.path(), &tmp.path().join("a.json"), &marker, None);
    killed.kill().unwrap();
    killed.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_with(&marker).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the killed run's worker outlived it"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = run_dirs(tmp.path());
    assert_eq!(
        left.len(),
        3,
        "io data, scratch and the foreign folder: {left:?}"
    );

    let out = concbench()
        .args([
            "run",
            "--smoke",
            "--no-store",
            "--only",
            "syscall",
            "--json",
        ])
        .arg(tmp.path().join("b.json"))
        .env("TMPDIR", tmp.path())
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("removed 2 directories left behind by killed runs"),
        "{stderr}"
    );
    let io_data = tmp.path().join(format!("concbench-io-{}", killed.id()));
    assert!(stderr.contains(&io_data.display().to_string()), "{stderr}");
    assert_eq!(
        run_dirs(tmp.path()),
        vec![foreign],
        "only the foreign folder stays"
    );
}

#[test]
fn a_live_run_keeps_its_directories_while_another_run_starts() {
    let tmp = tmpdir();
    let marker = marker("live");
    let json = tmp.path().join("a.json");
    let mut live = io_run(tmp.path(), &json, &marker, None);
    let before = run_dirs(tmp.path());
    concbench()
        .args([
            "run",
            "--smoke",
            "--no-store",
            "--only",
            "syscall",
            "--json",
        ])
        .arg(tmp.path().join("b.json"))
        .env("TMPDIR", tmp.path())
        .current_dir(tmp.path())
        .assert()
        .success();
    let after = run_dirs(tmp.path());
    // SAFETY: kill with the pid of our own child.
    unsafe { libc::kill(live.id() as i32, libc::SIGINT) };
    assert_eq!(live.wait().unwrap().code(), Some(130));
    assert!(before.len() >= 2, "{before:?}");
    assert!(
        before.iter().all(|d| after.contains(d)),
        "{before:?} -> {after:?}"
    );
    assert_eq!(read_json(&json)["interrupted"], true);
}

#[test]
fn kept_io_files_are_not_leftovers() {
    let tmp = tmpdir();
    let run = |extra: &[&str]| {
        concbench()
            .args([
                "run",
                "--smoke",
                "--no-store",
                "--only",
                "io",
                "--where",
                "files=10",
            ])
            .args(extra)
            .arg("--json")
            .arg(tmp.path().join("out.json"))
            .env("TMPDIR", tmp.path())
            .current_dir(tmp.path())
            .assert()
            .success()
    };
    run(&["--keep-io-files"]);
    let kept = run_dirs(tmp.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    run(&[]).stderr(predicates::str::contains("left behind").not());
    assert!(kept[0].exists(), "kept data removed");
}
