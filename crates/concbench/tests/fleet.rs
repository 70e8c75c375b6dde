//! Fleets end to end: `run --label`, `push` (idempotent) into SQLite and a real PostgreSQL server
//! (`--db postgresql://…` and `CONCBENCH_DB`), `fleet` and `report --fleet` with `--where`, the
//! markdown and HTML they write — and the store's robustness as a user meets it: two runs
//! starting at once on a new database are both stored; a damaged database is exit 2 naming the
//! file and the fix.

mod common;

use common::*;
use predicates::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The SYNTHETIC fixture (not a measurement) as another host's run: hostname, machine id and
/// labels replaced, every median scaled by `scale`; written to `dir/NAME.json`.
fn host_document(dir: &Path, name: &str, labels: serde_json::Value, scale: f64) -> PathBuf {
    let mut doc = read_json(&fixture());
    doc["host"]["hostname"] = name.into();
    doc["host"]["machine_id"] = format!("machine-{name}").into();
    doc["settings"]["labels"] = labels;
    for r in doc["results"].as_array_mut().unwrap() {
        let m = r["median"].as_f64().unwrap();
        r["median"] = (m * scale).into();
    }
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    path
}

fn stdout_of(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

/// Push two hosts, push one again (not stored twice), then the fleet of all and of one label.
fn push_and_report(db: &str, dir: &Path) {
    let a = host_document(dir, "alpha", serde_json::json!({"rack": "a"}), 1.0);
    let b = host_document(dir, "beta", serde_json::json!({"rack": "b"}), 1.5);
    let pushed = stdout_of(concbench().args(["push", "--db", db]).arg(&a).arg(&b));
    assert!(
        pushed.contains("stored as run 1") && pushed.contains("stored as run 2"),
        "{pushed}"
    );
    let again = stdout_of(concbench().args(["push", "--db", db]).arg(&a));
    assert!(again.contains("already stored as run 1"), "{again}");

    let (html, md) = (dir.join("fleet.html"), dir.join("fleet.md"));
    let text = stdout_of(
        concbench()
            .args(["fleet", "--db", db, "--html"])
            .arg(&html)
            .arg("--markdown")
            .arg(&md),
    );
    assert!(
        text.contains("2 hosts") && text.contains("alpha rack=a"),
        "{text}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg class=\"chart dotplot\"") && page.contains("beta rack=b"));
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(
        markdown.starts_with("# concbench fleet: 2 hosts"),
        "{markdown}"
    );

    let only_b = stdout_of(concbench().args(["fleet", "--db", db, "--where", "label=rack=b"]));
    assert!(
        only_b.contains("1 hosts") && !only_b.contains("alpha"),
        "{only_b}"
    );
    assert_usage_error(
        ["fleet", "--db", db, "--where", "label=rack=z"],
        &["--where", "no run matches"],
    );
}

#[test]
fn push_and_fleet_with_an_sqlite_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fleet.sqlite");
    push_and_report(db.to_str().unwrap(), dir.path());
}

#[test]
fn push_and_fleet_with_a_postgresql_history_named_by_flag_or_environment() {
    let Some(pg) = concbench_pgtest::start_or_skip("push_and_fleet_with_a_postgresql_history")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let url = pg.new_database("fleet");
    push_and_report(&url, dir.path());
    // CONCBENCH_DB names the same store when --db is absent.
    let listed = stdout_of(concbench().arg("history").env("CONCBENCH_DB", &url));
    assert!(
        listed.contains("alpha") && listed.contains("push"),
        "{listed}"
    );
}

#[test]
fn report_fleet_reads_files_and_filters_them() {
    let dir = tempfile::tempdir().unwrap();
    let a = host_document(dir.path(), "alpha", serde_json::json!({}), 1.0);
    let b = host_document(dir.path(), "beta", serde_json::json!({}), 2.0);
    let md = dir.path().join("f.md");
    concbench()
        .args(["report", "--fleet"])
        .arg(&a)
        .arg(&b)
        .args(["--where", "host=beta", "--markdown"])
        .arg(&md)
        .assert()
        .success();
    let markdown = std::fs::read_to_string(md).unwrap();
    assert!(
        markdown.contains("| beta |") && !markdown.contains("alpha"),
        "{markdown}"
    );
    assert_usage_error(
        [OsStrArg::from("report"), a.clone().into(), b.clone().into()],
        &["one FILE", "--fleet"],
    );
    assert_usage_error(["fleet", "--where", "rack=b"], &["label=KEY=VALUE"]);
}

/// Regression: `report --fleet A B` with two documents of one host silently dropped one, and
/// a host's newest run stood for it even when it measured only `--only switch.pipe`.
#[test]
fn regression_fleet_reads_files_prefers_a_complete_run_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let full = host_document(dir.path(), "alpha", serde_json::json!({}), 1.0);
    let mut partial = read_json(&full);
    partial["started_at"] = "2099-01-01T00:00:00Z".into();
    partial["settings"]["only"] = serde_json::json!(["switch.pipe"]);
    let partial_path = dir.path().join("partial.json");
    std::fs::write(&partial_path, partial.to_string()).unwrap();
    let text = stdout_of(concbench().arg("fleet").arg(&full).arg(&partial_path));
    assert!(text.contains("1 hosts"), "{text}");
    assert!(
        text.contains("left out:")
            && text.contains("a partial run (--only switch.pipe)")
            && text.contains(&format!("{} (", full.display())),
        "the complete run stands for the host, the partial one is listed: {text}"
    );
    // Alone, the partial run is shown, and said to be partial.
    let text = stdout_of(concbench().arg("fleet").arg(&partial_path));
    assert!(
        text.contains("note:") && text.contains("is partial"),
        "{text}"
    );
}

/// `assert_usage_error` takes one argument type: strings and paths together.
struct OsStrArg(std::ffi::OsString);
impl From<&str> for OsStrArg {
    fn from(s: &str) -> Self {
        OsStrArg(s.into())
    }
}
impl From<PathBuf> for OsStrArg {
    fn from(p: PathBuf) -> Self {
        OsStrArg(p.into())
    }
}
impl AsRef<std::ffi::OsStr> for OsStrArg {
    fn as_ref(&self) -> &std::ffi::OsStr {
        &self.0
    }
}

#[test]
fn run_labels_are_recorded_in_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    concbench()
        .args(["run", "--smoke", "--only", "syscall", "--no-store"])
        .args([
            "--label",
            "instance=c6i.large",
            "--label",
            "rack=b",
            "--json",
        ])
        .arg(&json)
        .assert()
        .success();
    let doc = read_json(&json);
    assert_valid(&doc);
    assert_eq!(
        doc["settings"]["labels"],
        serde_json::json!({"instance": "c6i.large", "rack": "b"})
    );
    assert!(doc["host"]["machine_id"].as_str().unwrap().len() >= 32);
    assert_usage_error(
        ["run", "--smoke", "--label", "novalue"],
        &["--label", "KEY=VALUE"],
    );
}

#[test]
fn two_runs_started_at_once_on_a_new_database_are_both_stored() {
    for attempt in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("new.sqlite");
        // One home, so one run lock for both: the second measures beside the first, as asked.
        let home = TestHome::new();
        let start = |n: usize| {
            home.process()
                .args(["run", "--smoke", "--allow-concurrent"])
                .args(["--only", "syscall.getppid", "--db"])
                .arg(&db)
                .arg("--json")
                .arg(dir.path().join(format!("{n}.json")))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let runs = [start(1), start(2)];
        for run in runs {
            let out = run.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "attempt {attempt}: {stderr}");
            assert!(
                stderr.contains("stored as run"),
                "attempt {attempt}: {stderr}"
            );
        }
        let listed = stdout_of(concbench().arg("history").arg("--db").arg(&db));
        assert!(
            listed.contains("│ 1 ") && listed.contains("│ 2 "),
            "{listed}"
        );
    }
}

#[test]
fn a_damaged_database_is_a_usage_error_naming_the_file_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    concbench()
        .args(["run", "--smoke", "--only", "syscall.getppid", "--db"])
        .arg(&db)
        .arg("--json")
        .arg(dir.path().join("a.json"))
        .assert()
        .success();
    // Keep SQLite's header page, overwrite every other page: what a bad disk or a copy taken
    // mid-write leaves.
    let mut bytes = std::fs::read(&db).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    for (i, b) in bytes.iter_mut().enumerate().skip(page) {
        *b = (i * 7 + 13) as u8;
    }
    std::fs::write(&db, bytes).unwrap();
    let shown = db.display().to_string();
    for command in ["history", "fleet"] {
        assert_usage_error(
            [command, "--db", &shown],
            &[&shown, "damaged", "move it aside"],
        );
    }
    // A measuring command refuses before measuring.
    concbench()
        .args(["run", "--smoke", "--only", "syscall", "--db", &shown])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty());
}

#[test]
fn a_database_url_of_another_kind_is_refused_naming_its_source() {
    assert_usage_error(
        ["history", "--db", "mysql://u@h/db"],
        &["--db", "postgresql://"],
    );
    let out = concbench()
        .arg("history")
        .env("CONCBENCH_DB", "sqlite:///tmp/x.db")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CONCBENCH_DB"));
}
