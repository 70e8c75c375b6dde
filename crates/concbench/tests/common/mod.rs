//! Helpers for the end-to-end tests: run the real binary, read and validate its documents.

#![allow(dead_code)]

use assert_cmd::Command;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The binary, with the history database redirected into the target directory (runs store
/// themselves by default; tests must not write into the user's data directory).
pub fn concbench() -> Command {
    let mut c = Command::cargo_bin("concbench").expect("binary built");
    c.env("CI", "true");
    c.env("XDG_DATA_HOME", test_data_home());
    c.env("CONCBENCH_LOCK", own_lock());
    c
}

/// A run lock of this invocation's own: tests run side by side, and the machine-wide lock
/// (`src/run_lock.rs`) would refuse all but one of them. Tests of the lock set it themselves.
pub fn own_lock() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("locks");
    std::fs::create_dir_all(&dir).expect("lock folder");
    dir.join(format!("{}-{n}.lock", std::process::id()))
}

/// The binary as a plain process (for tests that wire its stdio or signal it themselves), with
/// the environment of [`concbench`].
pub fn concbench_process() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("concbench"));
    c.env("CI", "true");
    c.env("XDG_DATA_HOME", test_data_home());
    c.env("CONCBENCH_LOCK", own_lock());
    c
}

/// `$XDG_DATA_HOME` for the binary under test.
pub fn test_data_home() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("xdg-data")
}

/// The SYNTHETIC fixture document of the report crate (test data, not a measurement).
pub fn fixture() -> PathBuf {
    repo_root().join("crates/concbench-report/tests/fixtures/synthetic-all-families.json")
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("document written"))
        .expect("valid JSON")
}

/// Validate against `schema/result-v1.schema.json`; panics listing every violation.
pub fn assert_valid(doc: &serde_json::Value) {
    let schema_text =
        std::fs::read_to_string(repo_root().join("schema/result-v1.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
}

/// A smoke run of `only` (or everything) into `dir/out.json`; returns the document.
pub fn smoke_run(dir: &Path, only: Option<&str>) -> serde_json::Value {
    smoke_run_printing(dir, only).0
}

/// A smoke run of `only` (or everything) into `dir/out.json`; returns the document and what the
/// run printed on stdout.
pub fn smoke_run_printing(dir: &Path, only: Option<&str>) -> (serde_json::Value, String) {
    let out = dir.join("out.json");
    let mut cmd = concbench();
    cmd.args(["run", "--smoke", "--json"]).arg(&out);
    if let Some(o) = only {
        cmd.args(["--only", o]);
    }
    let stdout = cmd.assert().success().get_output().stdout.clone();
    (
        read_json(&out),
        String::from_utf8(stdout).expect("UTF-8 output"),
    )
}

/// `concbench ARGS` must exit with 2 (bad usage or input) and say every one of `needles` on
/// stderr (the flag at fault and the fix).
pub fn assert_usage_error<I, S>(args: I, needles: &[&str])
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = concbench().args(args).output().expect("concbench runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr:\n{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "stderr lacks {n:?}:\n{stderr}");
    }
}

/// Processes whose environment carries `marker` (children inherit it).
pub fn processes_with(marker: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(env) = std::fs::read(entry.path().join("environ")) {
            if env.split(|b| *b == 0).any(|kv| kv == marker.as_bytes()) {
                pids.push(pid);
            }
        }
    }
    pids
}

/// Wait up to `limit` for `ready`; if it never holds, kill `child` (nothing is left running
/// after a failed test) and fail saying `what` did not happen.
pub fn wait_for(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    what: &str,
    ready: impl Fn() -> bool,
) {
    let deadline = std::time::Instant::now() + limit;
    while !ready() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not happen within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
