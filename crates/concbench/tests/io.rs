//! The io family from the command line: `--io-dir` refuses memory-backed file systems, the data
//! files are removed at the end and after Ctrl-C (unless `--keep-io-files`), and `--where`
//! selects sweep points by params.

mod common;

use common::*;
use predicates::prelude::*;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A directory on the build's disk (not /tmp, which may be tmpfs).
fn disk_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn data_dir(io_dir: &Path) -> std::path::PathBuf {
    io_dir.join("concbench-io-data")
}

fn dat_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "dat"))
            .count()
    })
}

#[test]
fn tmpfs_io_dir_is_refused_naming_the_flag() {
    let shm = Path::new("/dev/shm");
    let is_tmpfs = mounted_tmpfs(shm);
    if !is_tmpfs {
        eprintln!("/dev/shm is not tmpfs here; nothing to refuse");
        return;
    }
    concbench()
        .args(["run", "--smoke", "--only", "io", "--io-dir", "/dev/shm"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--io-dir").and(predicate::str::contains("tmpfs")));
}

fn mounted_tmpfs(p: &Path) -> bool {
    std::fs::read_to_string("/proc/mounts").is_ok_and(|m| {
        m.lines().any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 2 && Path::new(f[1]) == p && f[2] == "tmpfs"
        })
    })
}

#[test]
fn data_files_are_removed_after_the_run_unless_kept() {
    let dir = disk_dir();
    let out = dir.path().join("out.json");
    concbench()
        .args([
            "run", "--smoke", "--only", "io", "--where", "files=10", "--json",
        ])
        .arg(&out)
        .arg("--io-dir")
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::contains("removed the io data files"));
    assert!(!data_dir(dir.path()).exists(), "data left behind");
    let doc = read_json(&out);
    assert_valid(&doc);
    assert!(doc["results"].as_array().unwrap().iter().all(|r| r["id"]
        .as_str()
        .unwrap()
        .starts_with("io.read")
        && r["params"]["files"] == 10));

    concbench()
        .args([
            "run",
            "--smoke",
            "--only",
            "io",
            "--where",
            "files=10",
            "--keep-io-files",
        ])
        .arg("--json")
        .arg(&out)
        .arg("--io-dir")
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(dat_files(&data_dir(dir.path())), 10);
}

#[test]
fn ctrl_c_removes_the_data_files() {
    let dir = disk_dir();
    // Regression: this test ran the binary with the user's own environment, and its interrupted
    // run stayed in the user's history ("quick, interrupted" in `concbench history`).
    // The home lives as long as the process: bound here, not a temporary.
    let home = TestHome::new();
    let mut child = home
        .process()
        .args([
            "run", "--quick", "--settle", "0", "--only", "io", "--where", "files=10", "--json",
        ])
        .arg(dir.path().join("out.json"))
        .arg("--io-dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while dat_files(&data_dir(dir.path())) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        dat_files(&data_dir(dir.path())) > 0,
        "no data file appeared"
    );
    // SAFETY: kill with the pid of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(!data_dir(dir.path()).exists(), "data left after Ctrl-C");
}

#[test]
fn where_without_a_match_or_without_equals_is_a_usage_error() {
    concbench()
        .args(["run", "--smoke", "--only", "io", "--where", "files=7"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--where"));
    concbench()
        .args(["run", "--smoke", "--where", "files"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("KEY=VALUE"));
}

#[test]
fn every_published_s4_figure_has_a_variant_to_match() {
    let published = concbench_analysis::published::published();
    let s4: Vec<_> = published
        .figures
        .iter()
        .filter(|f| f.seed == "S4")
        .collect();
    assert!(!s4.is_empty());
    let variants = concbench_experiments::all();
    for f in s4 {
        let matched = variants.iter().any(|e| {
            let p = e.params();
            e.meta().id == f.result_id
                && f.params
                    .iter()
                    .all(|(k, v)| p.get(k).is_some_and(|m| same_printed(m, v)))
        });
        assert!(matched, "no io.read variant for {} {:?}", f.what, f.params);
    }
}

/// A TOML and a JSON scalar print alike (`50`, `"byte"`) exactly when they are equal.
fn same_printed(json: &serde_json::Value, toml: &impl ToString) -> bool {
    let (a, b) = (json.to_string(), toml.to_string());
    a == b
}
