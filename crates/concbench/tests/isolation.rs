//! The tests never touch the user's data: every run of the binary gets a home of its own
//! (`common::TestHome`: `HOME`, the XDG directories, the history, the probe cache, the run lock).
//! Regression: `ctrl_c_removes_the_data_files` started the binary with the user's environment
//! and left an interrupted "quick" run in the user's `concbench history`; probe builds went into
//! `~/.cache`; and the CLI tests shared one history, over which `run` pooled its verdicts.

mod common;

use common::*;
use std::path::Path;

/// Every test file starts the binary through `common` (which gives it its own home), never by
/// itself.
#[test]
fn regression_no_test_starts_the_binary_with_the_users_environment() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains(&["cargo_", "bin("].concat()) {
            offenders.push(path.display().to_string());
        }
    }
    assert!(
        offenders.is_empty(),
        "start the binary with common::concbench(), concbench_process() or a TestHome: {offenders:?}"
    );
}

/// A run stores itself in its own home's history and builds nowhere else: the home holds the
/// history, and a second home does not see the first one's run.
#[test]
fn a_run_stores_itself_in_its_own_home_only() {
    let first = TestHome::new();
    first
        .concbench()
        .args(["run", "--smoke", "--only", "syscall.getppid", "--json"])
        .arg(first.path().join("out.json"))
        .assert()
        .success();
    assert!(first.history().is_file(), "stored in the test's home");
    let second = TestHome::new();
    let listed = second.concbench().arg("history").output().unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.starts_with("No runs stored"), "{text}");
    assert!(
        text.contains(&second.history().display().to_string()),
        "{text}"
    );
}
