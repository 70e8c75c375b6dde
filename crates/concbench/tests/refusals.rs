//! Requests that cannot end well are refused before measuring (exit 2, the flag at fault and the
//! fix, no document, nothing on stdout), and a run that measured but could not store says so and
//! fails (issue 42).

mod common;

use common::*;
use std::path::Path;

/// A smoke run of `syscall.getppid` with `args`; returns its exit code, stdout and stderr.
fn smoke(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = concbench()
        .args(["run", "--smoke", "--only", "syscall.getppid"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A history with a few runs whose last pages are overwritten: its first page (the tables'
/// layout) is intact, so it opens.
fn damaged_history(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("history.sqlite");
    for n in 0..3 {
        let json = dir.join(format!("{n}.json"));
        let (code, _, stderr) = smoke(&[
            "--db".as_ref(),
            db.as_os_str(),
            "--json".as_ref(),
            json.as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{stderr}");
    }
    let mut bytes = std::fs::read(&db).unwrap();
    let (page, len) = (4096, bytes.len());
    assert!(len >= 8 * page, "{len} bytes");
    bytes[len - 4 * page..len - page].fill(0xff);
    std::fs::write(&db, &bytes).unwrap();
    db
}

/// Regression: `run --db` on a damaged history measured for 41 s, stored nothing and exited 0.
#[test]
fn regression_a_damaged_history_is_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let db = damaged_history(dir.path());
    let json = dir.path().join("new.json");
    let (code, stdout, stderr) = smoke(&[
        "--db".as_ref(),
        db.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--db") && stderr.contains("damaged"),
        "{stderr}"
    );
    assert!(stderr.contains("mv "), "the fix: {stderr}");
    assert!(
        stdout.is_empty() && !json.exists(),
        "nothing measured: {stdout}"
    );
}

/// Regression: `--json` into a folder that did not exist created it (as root, anywhere).
#[test]
fn regression_outputs_into_a_missing_folder_are_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such");
    for flag in ["--json", "--markdown", "--html"] {
        let out = missing.join("out");
        let (code, stdout, stderr) =
            smoke(&["--no-store".as_ref(), flag.as_ref(), out.as_os_str()]);
        assert_eq!(code, Some(2), "{flag}: {stderr}");
        assert!(
            stderr.contains(&format!("{flag}: the folder")) && stderr.contains("mkdir -p"),
            "{stderr}"
        );
        assert!(stdout.is_empty(), "{stdout}");
    }
    let report = concbench()
        .arg("report")
        .arg(fixture())
        .arg("--csv")
        .arg(missing.join("r.csv"))
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(2));
    assert!(!dir.path().join("no").exists(), "no folder was created");
}

#[test]
fn a_where_value_matching_nothing_lists_the_values_there_are() {
    assert_usage_error(
        [
            "run",
            "--smoke",
            "--only",
            "server.keepalive",
            "--where",
            "design=nosuch",
        ],
        &["--where", "design is one of", "epoll", "prefork"],
    );
}

/// A run whose history stopped taking writes while it measured (its folder removed) writes its
/// document, says it was not stored and how to store it later, and fails (exit 1), not 0.
#[test]
fn a_run_measured_but_not_stored_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let history_dir = dir.path().join("history");
    std::fs::create_dir(&history_dir).unwrap();
    let json = dir.path().join("out.json");
    let marker = format!("CONCBENCH_TEST_MARKER=unstored-{}", std::process::id());
    let home = TestHome::new();
    let mut run = home.process();
    run.args([
        "run",
        "--settle",
        "0",
        "--only",
        "create.process_100k",
        "--db",
    ])
    .arg(history_dir.join("h.sqlite"))
    .arg("--json")
    .arg(&json);
    let child = started_measuring(&mut run, &marker);
    // The journal cannot be created in a folder that is gone: the store fails at the end.
    std::fs::remove_dir_all(&history_dir).unwrap();
    // SAFETY: kill with the pid of our own child: Ctrl-C ends the run early, as measured so far.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("measured but not stored") && stderr.contains("concbench push"),
        "{stderr}"
    );
    assert!(json.exists(), "the document is written all the same");
}
