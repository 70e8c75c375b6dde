//! The presentation and history commands end to end: `report --html`, every run stored and
//! listed by `history`, `compare` of stored runs and files, `advise`, `replicate` — and every bad
//! input answered with exit code 2 and a message naming the flag.

mod common;

use common::*;
use predicates::prelude::*;
use std::ffi::OsStr;
use std::path::Path;

fn smoke_into(db: &Path, json: &Path) {
    concbench()
        .args(["run", "--smoke", "--only", "syscall", "--db"])
        .arg(db)
        .arg("--json")
        .arg(json)
        .assert()
        .success()
        .stderr(predicate::str::contains("stored as run"));
}

#[test]
fn report_writes_a_self_contained_html_page() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    concbench()
        .arg("report")
        .arg(fixture())
        .arg("--html")
        .arg(&out)
        .assert()
        .success();
    let page = std::fs::read_to_string(out).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    assert!(page.contains("<svg class=\"chart\"") && page.contains("SYNTHETIC TEST DATA"));
}

#[test]
fn run_writes_the_html_page_too() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("run.html");
    concbench()
        .args([
            "run",
            "--smoke",
            "--only",
            "create.fork",
            "--no-store",
            "--json",
        ])
        .arg(dir.path().join("run.json"))
        .arg("--html")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(html).unwrap();
    assert!(page.contains("data-family=\"create\"") && page.contains("create.fork"));
}

#[test]
fn report_html_to_an_unwritable_path_names_the_flag() {
    let fixture = fixture();
    let args = [
        OsStr::new("report"),
        fixture.as_os_str(),
        OsStr::new("--html"),
    ];
    assert_usage_error(
        args.into_iter().chain([OsStr::new("/proc/x/r.html")]),
        &["--html"],
    );
}

#[test]
fn runs_are_stored_listed_newest_first_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    smoke_into(&db, &a);
    smoke_into(&db, &b);
    let out = concbench()
        .arg("history")
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let run2 = text.find("│ 2 ").expect("run 2 listed");
    let run1 = text.find("│ 1 ").expect("run 1 listed");
    assert!(run2 < run1, "newest first:\n{text}");
    assert!(text.contains("quick"));
    // Regression: `history` did not show what a run measured (`--only`).
    assert!(
        text.contains("┆ only ") && text.contains("┆ syscall ┆"),
        "each run's --only:\n{text}"
    );
    concbench()
        .args(["compare", "1", "2", "--all", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("syscall.getppid")
                .and(predicate::str::contains("Geometric mean")),
        );
    // Files work too, and a stored id can be compared with a file.
    concbench()
        .arg("compare")
        .arg(&a)
        .arg("2")
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("A = ").and(predicate::str::contains("B = run 2")));
}

#[test]
fn no_store_leaves_no_database() {
    let dir = tempfile::tempdir().unwrap();
    concbench()
        .args([
            "run",
            "--smoke",
            "--only",
            "syscall",
            "--no-store",
            "--json",
        ])
        .arg(dir.path().join("a.json"))
        .env("XDG_DATA_HOME", dir.path())
        .assert()
        .success();
    assert!(!dir.path().join("concbench/history.sqlite").exists());
}

#[test]
fn db_and_no_store_conflict() {
    assert_usage_error(
        ["run", "--smoke", "--db", "x.sqlite", "--no-store"],
        &["--no-store", "--db"],
    );
}

#[test]
fn an_unusable_db_is_refused_before_measuring() {
    concbench()
        .args([
            "run",
            "--smoke",
            "--only",
            "syscall",
            "--db",
            "/proc/concbench/h.sqlite",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--db"))
        .stdout(predicate::str::is_empty());
}

#[test]
fn history_of_a_file_that_is_not_a_database_names_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("not.sqlite");
    std::fs::write(&bogus, "plain text, certainly not an SQLite database file").unwrap();
    assert_usage_error(
        [OsStr::new("history"), OsStr::new("--db"), bogus.as_os_str()],
        &["--db"],
    );
}

#[test]
fn history_of_a_missing_database_says_how_to_fill_it_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.sqlite");
    concbench()
        .arg("history")
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("No runs stored"));
    assert!(!db.exists(), "a read created the database");
}

#[test]
fn compare_of_unknown_runs_or_garbage_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    assert_usage_error(
        ["compare", "98", "99", "--db", db],
        &["no run 98", "history"],
    );
    assert_usage_error(
        ["compare", "no-such-thing", "1", "--db", db],
        &["compare A", "run id"],
    );
}

#[test]
fn advise_from_a_document_shows_arithmetic_and_an_answer() {
    concbench()
        .args([
            "advise",
            "--units-per-sec",
            "2000",
            "--blocked",
            "0.9",
            "--cpu-us",
            "100",
            "--from",
        ])
        .arg(fixture())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("units/s x")
                .and(predicate::str::contains("Answer:"))
                .and(predicate::str::contains("Little's law")),
        );
}

/// The synthetic fixture as a document, with only the results `keep` accepts.
fn fixture_doc(keep: impl Fn(&str) -> bool) -> concbench_core::ResultDoc {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let mut doc: concbench_core::ResultDoc = serde_json::from_str(&text).unwrap();
    doc.results.retain(|r| keep(&r.family));
    doc
}

#[test]
fn advise_uses_the_newest_run_that_has_the_measurements_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let location = concbench_store::Location::File(db.clone());
    let mut store = concbench_store::Store::open(&location).unwrap();
    let full = store.save(&fixture_doc(|_| true), "run").unwrap();
    // A later replicate of one seed measures nothing the advice needs.
    let partial = store
        .save(&fixture_doc(|f| f == "io"), "replicate")
        .unwrap();
    drop(store);
    let out = concbench()
        .args([
            "advise",
            "--units-per-sec",
            "1000",
            "--blocked",
            "0.5",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("run {full} (`run` started")),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("up to run {partial}")), "{stdout}");
    assert!(!stdout.contains("missing:"), "{stdout}");
    assert!(stdout.contains("Answer:") && !stdout.contains("none can be given"));
}

#[test]
fn advise_names_each_missing_measurement_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("no-switch.json");
    let doc = fixture_doc(|f| f != "switch");
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let out = concbench()
        .args([
            "advise",
            "--units-per-sec",
            "1000",
            "--blocked",
            "0.5",
            "--from",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("missing:"), "{stdout}");
    // Each model's block (separated by blank lines) names a missing measurement once.
    for block in stdout.split("\n\n") {
        let missing: Vec<&str> = block.lines().filter(|l| l.contains("missing:")).collect();
        let unique: std::collections::BTreeSet<&&str> = missing.iter().collect();
        assert_eq!(missing.len(), unique.len(), "{block}");
    }
}

#[test]
fn advise_rejects_bad_workloads_naming_the_flag() {
    let fixture = fixture();
    let from = fixture.to_str().unwrap();
    assert_usage_error(
        [
            "advise",
            "--units-per-sec",
            "10",
            "--blocked",
            "1.5",
            "--from",
            from,
        ],
        &["--blocked"],
    );
    assert_usage_error(
        ["advise", "--units-per-sec=-5", "--from", from],
        &["--units-per-sec"],
    );
    assert_usage_error(["advise", "--blocked", "0.5"], &["--units-per-sec"]);
}

#[test]
fn advise_without_any_stored_run_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.sqlite");
    assert_usage_error(
        [
            "advise",
            "--units-per-sec",
            "10",
            "--db",
            db.to_str().unwrap(),
        ],
        &["concbench run", "--from"],
    );
}

#[test]
fn replicate_of_an_unknown_seed_lists_the_seeds() {
    assert_usage_error(["replicate", "S9"], &["unknown seed 'S9'", "S0.create"]);
}

#[test]
fn replicate_measures_a_seed_and_sets_published_beside_measured() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("rep.json");
    let db = dir.path().join("h.sqlite");
    concbench()
        .args(["replicate", "S0.create", "--smoke", "--json"])
        .arg(&json)
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("== S0.create")
                .and(predicate::str::contains("8.684 s"))
                .and(predicate::str::contains("scaled down")),
        );
    let doc = read_json(&json);
    assert_valid(&doc);
    assert_eq!(doc["settings"]["seeds"], serde_json::json!(["S0.create"]));
    let ids: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"create.process_100k") && ids.contains(&"create.thread_100k"),
        "{ids:?}"
    );
    concbench()
        .arg("history")
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("replicate"));
}

#[test]
fn compare_of_three_runs_sets_verdicts_side_by_side_and_flags_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = common::fixture();
    let doc = common::read_json(&fixture);
    let mut changed = doc.clone();
    let first = changed["verdicts"][0]["verdict"]
        .as_str()
        .unwrap()
        .to_string();
    let other = if first == "refuted" {
        "confirmed"
    } else {
        "refuted"
    };
    changed["verdicts"][0]["verdict"] = other.into();
    let (b, c) = (dir.path().join("b.json"), dir.path().join("c.json"));
    std::fs::write(&b, doc.to_string()).unwrap();
    std::fs::write(&c, changed.to_string()).unwrap();
    let out = concbench()
        .arg("compare")
        .arg(&fixture)
        .arg(&b)
        .arg(&c)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("== B1 against A") && text.contains("== B2 against A"),
        "{text}"
    );
    assert!(text.contains("Verdicts, run by run"), "{text}");
    assert!(text.contains("CHANGED"), "{text}");
    assert!(text.contains("1 of"), "{text}");
    // Identical runs: no difference is significant after the correction for many comparisons.
    assert!(text.contains("0 of"), "{text}");
}
