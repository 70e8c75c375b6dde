//! The command line end to end: the real binary, real measurements in smoke mode, the document
//! validated against its schema, and every bad input answered with exit code 2 and a fix.

mod common;

use common::*;
use predicates::prelude::*;

#[test]
fn list_shows_every_experiment_once() {
    let out = concbench()
        .arg("list")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for id in [
        "syscall.getppid",
        "create.fork",
        "create.thread",
        "create.coroutine",
        "create.async_task",
        "create.process_100k",
        "workload.print",
        "memory.process",
        "limits.threads",
        "isolation.crash",
        "share.shm.process",
    ] {
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
fn list_marks_the_opt_in_family_and_says_how_to_run_it() {
    let out = concbench()
        .arg("list")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let transport = text
        .lines()
        .find(|l| l.starts_with("anatomy.transport"))
        .expect("anatomy.transport listed");
    assert!(transport.ends_with("[opt-in]"), "{transport}");
    assert!(text.contains("--only anatomy"), "{text}");
}

#[test]
fn smoke_run_writes_a_valid_document_with_every_listed_id() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, printed) = smoke_run_printing(dir.path(), None);
    assert_valid(&doc);
    // The whole suite's answer fits on one screen, and says where the rest is.
    assert!(
        printed.lines().count() <= 60,
        "{} lines:\n{printed}",
        printed.lines().count()
    );
    for needle in [
        "What one unit costs here",
        "Cheapest here, and units/s that fit in 10% of one CPU",
        "Verdicts (",
        "Result document: ",
    ] {
        assert!(printed.contains(needle), "{needle} missing in\n{printed}");
    }
    let listed = String::from_utf8(concbench().arg("list").output().unwrap().stdout).unwrap();
    // A smoke run's tiny counts may give a number the validation gate rejects (a memory
    // difference below zero): reported as invalid with its reason, it still ran.
    let measured_or_skipped: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .chain(doc["skipped"].as_array().unwrap())
        .chain(doc["invalid"].as_array().unwrap())
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    // Opt-in families run only when named (the last line names them); ids whose every variant is
    // full-run only (the articles' own systems) are not in --smoke.
    let default_ids = listed.lines().filter(|l| {
        !l.is_empty()
            && !l.contains("[opt-in]")
            && !l.starts_with("opt-in")
            && !l.ends_with("full run only)")
    });
    for line in default_ids {
        let id = line.split_whitespace().next().unwrap();
        assert!(
            measured_or_skipped.contains(&id),
            "{id} neither measured nor skipped"
        );
    }
    assert!(
        doc["failures"].as_array().unwrap().is_empty(),
        "{}",
        doc["failures"]
    );
    let fork = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "create.fork")
        .unwrap();
    assert_eq!(fork["unit"], "ns");
    assert!(
        fork["counters"]["voluntary_switches_per_op"]
            .as_f64()
            .unwrap()
            >= 0.0
    );
    assert!(doc["host"]["logical_cpus"].as_u64().unwrap() >= 1);
}

#[test]
fn only_runs_one_family_and_report_rerenders_it() {
    let dir = tempfile::tempdir().unwrap();
    let doc = smoke_run(dir.path(), Some("create"));
    assert!(doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["family"] == "create"));
    let json = dir.path().join("out.json");
    let md = dir.path().join("out.md");
    let csv = dir.path().join("out.csv");
    // Files asked for: written and named on stderr, nothing on the terminal.
    concbench()
        .arg("report")
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .arg("--csv")
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::contains(format!("wrote {}", md.display()))
                .and(predicate::str::contains(format!("wrote {}", csv.display()))),
        );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(
        md.contains("| id | params | median |") && md.contains("create.thread"),
        "{md}"
    );
    let csv = std::fs::read_to_string(csv).unwrap();
    assert!(csv.starts_with("id,family,params,unit,median"));
    assert_eq!(
        csv.lines().count(),
        doc["results"].as_array().unwrap().len() + 1
    );
}

#[test]
fn unknown_only_is_a_usage_error_naming_the_flag() {
    concbench()
        .args(["run", "--only", "nonsense"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--only").and(predicate::str::contains("concbench list")));
}

#[test]
fn zero_repeat_is_a_usage_error_naming_the_flag() {
    concbench()
        .args(["run", "--repeat", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--repeat"));
}

#[test]
fn report_of_a_missing_file_is_a_usage_error() {
    concbench()
        .args(["report", "/nonexistent/concbench.json"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot read")
                .and(predicate::str::contains("concbench run --json")),
        );
}

#[test]
fn regression_a_closed_stderr_does_not_turn_an_error_into_a_panic() {
    // A closed terminal (before its SIGHUP is handled) or a closed pipe fails every write to
    // stderr; `eprintln!` panicked there (exit 101) instead of ending with the command's code.
    // The home lives as long as the process: bound here, not a temporary.
    let home = TestHome::new();
    let mut child = home
        .process()
        .args(["report", "/nonexistent/concbench.json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take()); // the reader goes away before anything is written
    assert_eq!(child.wait().unwrap().code(), Some(2));
}

#[test]
fn report_of_garbage_or_a_foreign_document_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{ not json").unwrap();
    concbench()
        .arg("report")
        .arg(&garbage)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not JSON"));
    let foreign = dir.path().join("foreign.json");
    std::fs::write(&foreign, r#"{"schema": "something/else"}"#).unwrap();
    concbench()
        .arg("report")
        .arg(&foreign)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a concbench result"));
}

#[test]
fn unwritable_json_path_is_a_usage_error() {
    concbench()
        .args([
            "run",
            "--smoke",
            "--only",
            "syscall",
            "--json",
            "/proc/concbench/out.json",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--json"));
}

#[test]
fn pin_none_records_unpinned_placement() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    concbench()
        .args([
            "run", "--smoke", "--pin", "none", "--only", "syscall", "--json",
        ])
        .arg(&out)
        .assert()
        .success();
    let doc = read_json(&out);
    assert_eq!(doc["results"][0]["params"]["placement"], "unpinned");
}

#[test]
fn rounds_are_fresh_workers_each_kept_in_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    concbench()
        .args([
            "run",
            "--smoke",
            "--no-store",
            "--rounds",
            "3",
            "--only",
            "syscall,create.fork_exec",
            "--json",
        ])
        .arg(&out)
        .assert()
        .success();
    let doc = read_json(&out);
    assert_valid(&doc);
    assert_eq!(doc["settings"]["claim_rounds"], 3);
    for r in doc["results"].as_array().unwrap() {
        // Smoke takes one sample per round; three rounds give three, each recorded with its pass.
        assert_eq!(r["samples"].as_array().unwrap().len(), 3, "{}", r["id"]);
        let passes: Vec<u64> = r["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["pass"].as_u64().unwrap())
            .collect();
        // Three passes in a row: the verdicts' variants take the first three, the others the
        // next three.
        assert_eq!(passes.len(), 3, "{}", r["id"]);
        assert!(passes.windows(2).all(|w| w[1] == w[0] + 1), "{passes:?}");
        assert!(passes[0] == 0 || passes[0] == 3, "{passes:?}");
    }
    assert_eq!(doc["results"].as_array().unwrap().len(), 2);
}

#[test]
fn report_rejudge_recomputes_verdicts_from_the_samples() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = read_json(&fixture());
    doc["verdicts"] = serde_json::json!([]);
    let stripped = dir.path().join("no-verdicts.json");
    std::fs::write(&stripped, doc.to_string()).unwrap();
    let render = |extra: &[&str]| {
        let md = dir.path().join("out.md");
        concbench()
            .arg("report")
            .arg(&stripped)
            .args(extra)
            .arg("--markdown")
            .arg(&md)
            .assert()
            .success();
        std::fs::read_to_string(md).unwrap()
    };
    assert!(!render(&[]).contains("## Verdicts"));
    let rejudged = render(&["--rejudge"]);
    assert!(
        rejudged.contains("## Verdicts") && rejudged.contains("S0.30x"),
        "{rejudged}"
    );
}

#[test]
fn where_filters_on_the_placement_every_result_shows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    concbench()
        .args([
            "run",
            "--smoke",
            "--no-store",
            "--only",
            "switch.pipe.process",
        ])
        .args(["--where", "placement=same-cpu", "--json"])
        .arg(&out)
        .assert()
        .success();
    let doc = read_json(&out);
    let results = doc["results"].as_array().unwrap();
    assert!(!results.is_empty(), "nothing measured");
    for r in results {
        assert_eq!(r["params"]["placement"], "same-cpu", "{}", r["params"]);
    }
}

#[test]
fn where_without_a_match_names_the_params_there_are() {
    concbench()
        .args(["run", "--smoke", "--only", "switch.pipe.process"])
        .args(["--where", "placement=on-the-moon"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--where").and(predicate::str::contains("placement")));
}

/// On Linux/glibc the binary is linked `-no-pie` (build.rs): a PIE's relocated RELRO pages are
/// anonymous memory that every fork of a worker copies. ELF's e_type, two bytes at offset 16:
/// 2 is a fixed-address executable (ET_EXEC), 3 a position-independent one (ET_DYN).
/// (`option_env!` is read when the test is compiled, as build.rs reads it for the binary.)
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_not_position_independent() {
    use std::io::Read;
    let path = env!("CARGO_BIN_EXE_concbench");
    let mut bytes = [0u8; 18];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut bytes))
        .unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF", "{path} is not an ELF file");
    let e_type = u16::from_le_bytes([bytes[16], bytes[17]]);
    // Built with CONCBENCH_PIE=1 (build.rs), it is the PIE asked for.
    let want = if option_env!("CONCBENCH_PIE") == Some("1") {
        3
    } else {
        2
    };
    assert_eq!(e_type, want, "{path}: ELF type {e_type}, not {want}");
}

/// One warning of every kind: adding a kind fails to compile here until it is added to the list
/// (and so to the schema test below).
fn one_warning_of_every_kind() -> Vec<concbench_core::RunWarning> {
    use concbench_core::{MarginCheck, RunWarning as W};
    let claims = vec!["S0.create".to_string()];
    let all = vec![
        W::Clocksource {
            clocksource: "hpet".into(),
        },
        W::CpuQuota { cpus: 1.5 },
        W::BrokenSelector {
            check: "S0.create".into(),
        },
        W::Unsettled {
            others: Some(0.4),
            waited_s: 30.0,
        },
        W::Unsettled {
            others: None,
            waited_s: 0.3,
        },
        W::Steal { share: 0.05 },
        W::OverlappingRun {
            run: "pid 42, run --quick".into(),
        },
        W::BaseOverran {
            took_s: 560.0,
            budget_s: 540.0,
            claim_rounds: 6,
            suggested_budget_s: 780.0,
        },
        W::ShortOfBase {
            budget_s: 55.0,
            figures: 2,
            claims: claims.clone(),
            claim_rounds: 6,
            suggested_budget_s: 120.0,
        },
        W::Withheld {
            figures: 1,
            claims: claims.clone(),
        },
        W::BudgetGrew {
            from_s: 10.0,
            to_s: 30.0,
            rounds: 9,
        },
        W::Unmeasured {
            figures: 3,
            budget_s: 55.0,
        },
        W::StillOpen {
            budget_s: 55.0,
            max_rounds: 20,
            undecided: claims,
            decided_by_others: 1,
        },
        W::OnMargin {
            checks: vec![MarginCheck {
                claim: "S1.lock".into(),
                condition: Some("100 threads vs 2, per increment: no faster".into()),
            }],
        },
        W::ValidationGate {
            found: "a ratio below zero".into(),
            history: true,
        },
        W::HoldAwake {
            results: vec!["switch.pipe.process".into()],
            rerun: "`concbench run --quick --hold-awake` (about 55 s)".into(),
        },
        W::Text {
            text: "a warning from a newer build".into(),
        },
    ];
    for w in &all {
        match w {
            W::Clocksource { .. }
            | W::CpuQuota { .. }
            | W::BrokenSelector { .. }
            | W::Unsettled { .. }
            | W::Steal { .. }
            | W::OverlappingRun { .. }
            | W::BaseOverran { .. }
            | W::ShortOfBase { .. }
            | W::Withheld { .. }
            | W::BudgetGrew { .. }
            | W::Unmeasured { .. }
            | W::StillOpen { .. }
            | W::OnMargin { .. }
            | W::ValidationGate { .. }
            | W::HoldAwake { .. }
            | W::Text { .. } => {}
        }
    }
    all
}

#[test]
fn every_warning_kind_follows_the_schema_and_a_kind_without_its_fields_does_not() {
    let host = concbench_core::Host {
        logical_cpus: 2,
        ..Default::default()
    };
    let mut doc = concbench_core::ResultDoc::new(host, "2026-11-29T00:00:00Z".into());
    doc.warnings = one_warning_of_every_kind().into();
    let json = serde_json::to_value(&doc).unwrap();
    assert_valid(&json);
    let kinds = json["warning_kinds"].as_array().unwrap();
    assert_eq!(kinds.len(), json["warnings"].as_array().unwrap().len());
    // The schema holds each kind to its fields: an on-the-margin warning without its checks,
    // or a steal share above one, is not a valid document.
    for (kind, field, bad) in [
        ("on_margin", "checks", serde_json::Value::Null),
        ("steal", "share", serde_json::json!(2.0)),
    ] {
        let i = (kinds.iter()).position(|k| k["kind"] == kind).unwrap();
        let mut broken = json.clone();
        broken["warning_kinds"][i][field] = bad;
        let said = schema_violations(&broken);
        assert!(!said.is_empty(), "warning_kinds[{i}].{field} accepted");
    }
    // A document from before `warning_kinds` is still valid.
    let mut older = json.clone();
    older.as_object_mut().unwrap().remove("warning_kinds");
    assert_valid(&older);
}

#[test]
fn report_of_an_older_document_without_warning_kinds_prints_its_warnings() {
    let recorded =
        common::repo_root().join("crates/concbench-report/tests/fixtures/quick-run.json");
    let mut doc = read_json(&recorded);
    doc.as_object_mut().unwrap().remove("warning_kinds");
    let dir = tempfile::tempdir().unwrap();
    let older = dir.path().join("older.json");
    std::fs::write(&older, doc.to_string()).unwrap();
    let out = concbench()
        .arg("report")
        .arg(&older)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // Wrapped to the screen: compared with every run of spaces and line breaks as one space.
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let printed = words(&String::from_utf8(out).unwrap());
    for said in doc["warnings"].as_array().unwrap() {
        let said = words(said.as_str().unwrap());
        assert!(printed.contains(&said), "{said:?} not in\n{printed}");
    }
}
