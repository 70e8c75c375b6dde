//! What `report` prints (run and replicate print the same, after measuring): the answer on
//! about one screen by default — the unit costs, the cheapest model per workload, one line per
//! verdict, warnings and counts, where the files are — every table before it with `--all`
//! (`-v`), and nothing when it writes files instead.

mod common;

use common::*;
use predicates::prelude::*;

fn report(args: &[&str]) -> String {
    let out = concbench()
        .arg("report")
        .arg(fixture())
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// The header of the full result table, which only `--all` prints.
const FULL_TABLE: &str = "switches/op";

#[test]
fn report_prints_the_answer_on_one_screen() {
    let text = report(&[]);
    assert!(text.lines().count() <= 60, "{text}");
    for needle in [
        "What one unit costs here (median [95% CI])",
        "reused stack",
        "fresh stack",
        "async task",
        "Cheapest here, and units/s that fit in 10% of one CPU",
        "Verdicts (",
        "S0.30x",
        "warning:",
        "SYNTHETIC TEST DATA",
        "1 FAILED, 1 skipped",
        "--all",
    ] {
        assert!(text.contains(needle), "{needle} missing in\n{text}");
    }
    let document = format!("Result document: {}", fixture().display());
    assert!(text.contains(&document), "{text}");
    assert!(!text.contains(FULL_TABLE), "{text}");
    // Regression: a run's budget warning printed as one 261-character line. Only the lines
    // naming the document may be longer: a path is not broken, so it can be copied.
    let path = fixture().display().to_string();
    for line in text.lines().filter(|l| !l.contains(&path)) {
        assert!(line.chars().count() <= 120, "{line}");
    }
    // One line per verdict (long ones may wrap, so at least that many claim ids at a line start).
    let doc = read_json(&fixture());
    for v in doc["verdicts"].as_array().unwrap() {
        let id = v["source"].as_str().unwrap();
        assert_eq!(
            text.lines()
                .filter(|l| l.split_whitespace().next() == Some(id))
                .count(),
            1,
            "{id} in\n{text}"
        );
    }
}

#[test]
fn all_and_v_print_every_table_before_the_summary() {
    for flag in ["--all", "-v"] {
        let text = report(&[flag]);
        let table = text.find(FULL_TABLE).expect("the full table");
        let summary = text.find("What one unit costs here").expect("the summary");
        assert!(table < summary, "{flag}: the summary comes last");
        assert!(
            text.contains("skipped: ") && text.contains("FAILED: "),
            "{text}"
        );
    }
}

#[test]
fn report_writing_a_page_prints_nothing_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    concbench()
        .arg("report")
        .arg(fixture())
        .arg("--html")
        .arg(&page)
        .assert()
        .success()
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!(
            "wrote {}",
            page.display()
        )));
    assert!(std::fs::read_to_string(page).unwrap().contains("<svg"));
}

#[test]
fn a_smoke_run_says_where_its_document_and_page_are() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let page = dir.path().join("out.html");
    let out = concbench()
        .args([
            "run",
            "--smoke",
            "--no-store",
            "--only",
            "syscall,create.coroutine",
        ])
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&page)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(&format!("Result document: {}", json.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("Page with charts: {}", page.display())),
        "{text}"
    );
    assert!(
        text.contains("coroutine") && !text.contains(FULL_TABLE),
        "{text}"
    );
}
