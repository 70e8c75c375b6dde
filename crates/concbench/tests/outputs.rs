//! Never lose a run to its output paths: unwritable `--json`, `--markdown`, `--html` and default
//! folder are refused before measuring (exit 2, nothing printed on stdout), and a document that
//! cannot be written at the end lands in `$TMPDIR`, with a note saying where.

mod common;

use common::{concbench, read_json, started_measuring, TestHome};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

/// A path under a regular file: nobody, root included, can create it.
fn unwritable(dir: &Path) -> PathBuf {
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    file.join("out")
}

#[test]
fn every_unwritable_output_is_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let bad = unwritable(dir.path());
    let good = dir.path().join("ok.json");
    for flag in ["--json", "--markdown", "--html"] {
        let mut cmd = concbench();
        cmd.args(["run", "--smoke", "--no-store", "--only", "syscall"]);
        if flag != "--json" {
            cmd.arg("--json").arg(&good);
        }
        cmd.arg(flag)
            .arg(&bad)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(
                predicate::str::contains(format!("{flag}: "))
                    .and(predicate::str::contains("is a file, not a folder"))
                    .and(predicate::str::contains("nothing was measured")),
            );
    }
    assert!(!good.exists());
}

#[test]
fn replicate_refuses_an_unwritable_json_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    concbench()
        .args(["replicate", "S1", "--smoke", "--no-store", "--json"])
        .arg(unwritable(dir.path()))
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("--json: "));
}

#[test]
fn an_unusable_default_folder_is_named_with_its_cause_and_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("concbench-results"), "not a folder").unwrap();
    concbench()
        .current_dir(dir.path())
        .args(["run", "--smoke", "--no-store", "--only", "syscall"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::contains("into concbench-results/ in")
                .and(predicate::str::contains("it exists and is a file"))
                .and(predicate::str::contains("--json FILE"))
                .and(predicate::str::contains("error: --json").not()),
        );
}

#[test]
fn a_document_that_cannot_be_written_at_the_end_lands_in_tmpdir() {
    let dir = tempfile::tempdir().unwrap();
    let fallback = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("results");
    std::fs::create_dir(&out_dir).unwrap();
    let marker = format!("CONCBENCH_TEST_MARKER={}-fallback", std::process::id());
    let home = TestHome::new();
    let mut run = home.process();
    run.args(["run", "--no-store", "--settle", "0"])
        .args(["--only", "create.process_100k", "--json"])
        .arg(out_dir.join("out.json"))
        .env("TMPDIR", fallback.path());
    let child = started_measuring(&mut run, &marker);
    // The folder passed the check; now it cannot be written any more.
    std::fs::remove_dir_all(&out_dir).unwrap();
    std::fs::write(&out_dir, "in the way").unwrap();
    // SAFETY: kill with the pid of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let written: Vec<PathBuf> = std::fs::read_dir(fallback.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(written.len(), 1, "{written:?}; stderr:\n{stderr}");
    assert!(
        stderr.contains(&format!("wrote it to {} instead", written[0].display())),
        "{stderr}"
    );
    assert_eq!(read_json(&written[0])["interrupted"], true);
}
