//! `compare` as a CI gate end to end: `--fail-if` exits 1 naming each breach and 0 on an A/A
//! pair, `--only`/`--where` restrict it, `--json` follows its schema, `--markdown` stays short,
//! the terminal is quiet by default; `report --format` in Bencher's and benchstat's formats,
//! read back by their own rules; `list ID` shows variants with params and run modes.
//!
//! The documents are the SYNTHETIC fixture (six rounds per result) and copies of it with one
//! family's figures scaled: test data, never measurements.

mod common;

use common::*;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Multiply every figure of `family`'s results (rounds, samples, summary, baseline) by `factor`.
fn scale_family(doc: &mut Value, family: &str, factor: f64) {
    let scale = |v: &mut Value| {
        if let Some(x) = v.as_f64() {
            *v = (x * factor).into();
        }
    };
    for r in doc["results"].as_array_mut().unwrap() {
        if r["family"] != family {
            continue;
        }
        for key in ["median", "min", "max", "mad", "mean"] {
            scale(&mut r[key]);
        }
        if let Some(ci) = r["ci95"].as_array_mut() {
            ci.iter_mut().for_each(scale);
        }
        r["samples"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .for_each(scale);
        for round in r["rounds"].as_array_mut().unwrap() {
            scale(&mut round["value"]);
            if round.get("baseline").is_some() {
                scale(&mut round["baseline"]);
            }
        }
    }
}

/// The fixture, and a copy changed by `change`, written into `dir`.
fn pair(dir: &Path, change: impl FnOnce(&mut Value)) -> (PathBuf, PathBuf) {
    let mut b = read_json(&fixture());
    change(&mut b);
    let (pa, pb) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&pa, read_json(&fixture()).to_string()).unwrap();
    std::fs::write(&pb, b.to_string()).unwrap();
    (pa, pb)
}

/// `compare A B ARGS` with no history (a database file that does not exist beside A: the
/// stated floor of run-to-run variation is counted): exit code, stdout, stderr.
fn compare(a: &Path, b: &Path, args: &[&str]) -> (i32, String, String) {
    let no_history = a.with_file_name("no-history.sqlite");
    compare_with_db(a, b, &no_history, args)
}

/// `compare A B --db DB ARGS`: exit code, stdout, stderr.
fn compare_with_db(a: &Path, b: &Path, db: &Path, args: &[&str]) -> (i32, String, String) {
    let out = concbench()
        .arg("compare")
        .arg(a)
        .arg(b)
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A history of `n` stored runs of the fixture's build and machine (copies of it, each started
/// a minute apart, none at A's or B's start) in `db`.
fn history(dir: &Path, db: &Path, n: usize) {
    for i in 0..n {
        let mut doc = read_json(&fixture());
        doc["started_at"] = format!("2025-12-01T10:{i:02}:00Z").into();
        let file = dir.join(format!("history-{i}.json"));
        std::fs::write(&file, doc.to_string()).unwrap();
        concbench()
            .arg("push")
            .arg(&file)
            .arg("--db")
            .arg(db)
            .assert()
            .success();
    }
}

fn ids_of(doc: &Value, family: &str) -> Vec<String> {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["family"] == family)
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

fn validate(doc: &Value, schema: &Path) {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
}

fn compare_schema() -> PathBuf {
    repo_root().join("schema/compare-v1.schema.json")
}

const EVERY_GATE: [&str; 6] = [
    "--fail-if",
    "slower>10%",
    "--fail-if",
    "faster>10%",
    "--fail-if",
    "verdict-changed",
];

#[test]
fn an_a_a_pair_breaks_no_threshold_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |_| {});
    let (code, _, stderr) = compare(&a, &b, &EVERY_GATE);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("no breach"), "{stderr}");
}

#[test]
fn a_family_scaled_by_one_and_a_half_exits_1_naming_each_result_with_its_interval() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |d| scale_family(d, "create", 1.5));
    let (code, _, stderr) = compare(&a, &b, &["--fail-if", "slower>10%"]);
    assert_eq!(code, 1, "{stderr}");
    let breaches: Vec<&str> = stderr.lines().filter(|l| l.contains("breach (")).collect();
    let ids = ids_of(&read_json(&fixture()), "create");
    assert_eq!(breaches.len(), ids.len(), "{stderr}");
    for id in ids {
        let line = breaches
            .iter()
            .find(|l| l.contains(&format!(" {id} ")))
            .unwrap_or_else(|| panic!("{id} not named:\n{stderr}"));
        assert!(
            line.contains("+50.0%") && line.contains("95% CI ["),
            "{line}"
        );
    }
    assert!(stderr.contains("failing (exit 1)"), "{stderr}");
    // Faster is the other direction: the same pair passes `faster>10%`.
    assert_eq!(compare(&a, &b, &["--fail-if", "faster>10%"]).0, 0);
    // More than +50% is not breached by +50%.
    assert_eq!(compare(&a, &b, &["--fail-if", "slower>60%"]).0, 0);
}

#[test]
fn a_family_made_faster_breaks_faster_and_not_slower() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |d| scale_family(d, "switch", 0.5));
    let (code, _, stderr) = compare(&a, &b, &["--fail-if", "faster>10%"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("faster>10%: switch."), "{stderr}");
    assert!(stderr.contains("-50.0%"), "{stderr}");
    assert_eq!(compare(&a, &b, &["--fail-if", "slower>10%"]).0, 0);
}

#[test]
fn a_rate_that_falls_is_slower() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |d| scale_family(d, "server", 0.5));
    // The servers run unpinned, whose floor of run-to-run variation hides a halving; a history
    // of the build's own runs (where these servers never moved) gives each its own spread.
    let db = dir.path().join("history.sqlite");
    history(dir.path(), &db, 5);
    let (code, stdout, stderr) = compare_with_db(&a, &b, &db, &["--fail-if", "slower>10%"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("this host's history (5 run(s) of concbench"),
        "{stdout}"
    );
    // The rates fell (req/s), the times grew not: only the rates are slower; the server's
    // request counts are neither times nor rates.
    assert!(stderr.contains("slower>10%: server.") && stderr.contains("-50.0%"));
    assert!(!stderr.contains("+"), "{stderr}");
}

#[test]
fn without_a_history_the_stated_floor_is_counted_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |d| scale_family(d, "server", 0.5));
    let (code, stdout, stderr) = compare(&a, &b, &["--fail-if", "slower>10%"]);
    // A halving of an unpinned server's rate is within the floor across CPUs (τ 0.323: two
    // quick runs of one build moved that much on the shared development VM).
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("Run-to-run variation counted: the stated floor"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no stored run of this build and mode"),
        "{stdout}"
    );
}

#[test]
fn a_changed_verdict_breaks_verdict_changed_naming_the_claim() {
    let dir = tempfile::tempdir().unwrap();
    let mut source = String::new();
    let (a, b) = pair(dir.path(), |d| {
        let v = &mut d["verdicts"][0];
        source = v["source"].as_str().unwrap().to_string();
        v["verdict"] = if v["verdict"] == "refuted" {
            "confirmed".into()
        } else {
            "refuted".into()
        };
    });
    let (code, _, stderr) = compare(&a, &b, &["--fail-if", "verdict-changed"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("verdict-changed: {source} ")),
        "{stderr}"
    );
    // Not a threshold on the results: slower alone passes.
    assert_eq!(compare(&a, &b, &["--fail-if", "slower>10%"]).0, 0);
}

#[test]
fn only_and_where_restrict_the_gate_as_in_run() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |d| scale_family(d, "create", 1.5));
    let gate = ["--fail-if", "slower>10%"];
    let with = |extra: &[&str]| compare(&a, &b, &[&gate[..], extra].concat());
    assert_eq!(with(&["--only", "switch,syscall"]).0, 0);
    let (code, _, stderr) = with(&["--only", "create.fork"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(" create.fork ") && !stderr.contains("create.thread "));
    // --where matches the params as printed; no create result is cross-cpu here.
    let (code, stdout, stderr) = with(&["--only", "create", "--where", "placement=same-cpu"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("--only create --where placement=same-cpu"),
        "{stdout}"
    );
    for (bad, flag) in [
        (["--only", "nosuch"], "--only"),
        (["--where", "placement=on-the-moon"], "--where"),
    ] {
        let mut args = vec![OsStr::new("compare"), a.as_os_str(), b.as_os_str()];
        args.extend(bad.map(OsStr::new));
        assert_usage_error(args, &[flag]);
    }
}

#[test]
fn a_threshold_that_is_not_one_is_a_usage_error() {
    let f = fixture();
    for bad in ["slower>ten%", "slower>10", "worse>10%", "slower>0%"] {
        assert_usage_error(
            [
                OsStr::new("compare"),
                f.as_os_str(),
                f.as_os_str(),
                OsStr::new("--fail-if"),
                OsStr::new(bad),
            ],
            &["--fail-if", "slower>"],
        );
    }
}

#[test]
fn json_follows_its_schema_when_passing_and_when_failing() {
    let dir = tempfile::tempdir().unwrap();
    let (a, same) = pair(dir.path(), |_| {});
    let (code, stdout, _) = compare(&a, &same, &[&EVERY_GATE[..], &["--json", "-"]].concat());
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&stdout).expect("stdout is the JSON alone");
    validate(&doc, &compare_schema());
    assert_eq!(doc["gate"]["passed"], true);
    assert_eq!(doc["runs"][0]["significant"], 0);

    let scaled = dir.path().join("scaled.json");
    let mut d = read_json(&fixture());
    scale_family(&mut d, "create", 1.5);
    d["verdicts"][0]["verdict"] = "inconclusive".into();
    std::fs::write(&scaled, d.to_string()).unwrap();
    let out = dir.path().join("compare.json");
    let (code, _, _) = compare(
        &a,
        &scaled,
        &[&EVERY_GATE[..], &["--json", out.to_str().unwrap()]].concat(),
    );
    assert_eq!(code, 1);
    let doc = read_json(&out);
    validate(&doc, &compare_schema());
    assert_eq!(doc["gate"]["passed"], false);
    let breaches = doc["gate"]["breaches"].as_array().unwrap();
    assert!(breaches
        .iter()
        .any(|b| b["kind"] == "result" && b["subject"] == "create.fork"));
    let slower = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["change"] == "slower")
        .count();
    assert_eq!(slower, ids_of(&d, "create").len());
}

#[test]
fn markdown_shows_only_the_changed_rows_then_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |d| scale_family(d, "create", 1.5));
    let (code, stdout, _) = compare(&a, &b, &["--fail-if", "slower>10%", "--markdown", "-"]);
    assert_eq!(code, 1);
    let changed = ids_of(&read_json(&fixture()), "create").len();
    let rows = stdout
        .lines()
        .filter(|l| l.starts_with("| create."))
        .count();
    assert_eq!(rows, changed, "{stdout}");
    assert!(!stdout.contains("| switch."), "{stdout}");
    assert!(stdout.contains("results unchanged"), "{stdout}");
    assert!(stdout.contains("Gate 'slower>10%': **failed**"), "{stdout}");
    assert!(
        stdout.contains("| **1.50x** |"),
        "breaching rows in bold:\n{stdout}"
    );
    // Short enough for a review comment: the breaches, the changed rows and a few lines more.
    assert!(stdout.lines().count() <= changed + 15, "{stdout}");
}

#[test]
fn the_terminal_is_quiet_by_default_and_all_shows_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path(), |d| scale_family(d, "create", 1.5));
    let (_, quiet, _) = compare(&a, &b, &[]);
    assert!(
        quiet.contains("create.fork") && !quiet.contains("switch."),
        "{quiet}"
    );
    assert!(quiet.contains("--all shows every row"), "{quiet}");
    let (_, all, _) = compare(&a, &b, &["--all"]);
    assert!(
        all.contains("switch.") && all.contains("syscall.getppid"),
        "{all}"
    );
}

#[test]
fn bencher_export_follows_the_bencher_metric_format() {
    let out = concbench()
        .args(["report", "--format", "bencher"])
        .arg(fixture())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let bmf: Value = serde_json::from_slice(&out).expect("BMF is JSON");
    validate(
        &bmf,
        &repo_root().join("crates/concbench/tests/schemas/bmf.schema.json"),
    );
    let doc = read_json(&fixture());
    let obj = bmf.as_object().unwrap();
    assert_eq!(obj.len(), doc["results"].as_array().unwrap().len());
    // Times are Bencher's latency in nanoseconds; req/s its throughput.
    let fork = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "create.fork")
        .unwrap();
    // The name is the id, then each param as /key=value.
    let params: Vec<String> = fork["params"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("/{k}={}", v.as_str().unwrap()))
        .collect();
    let name = format!("create.fork{}", params.concat());
    assert_eq!(bmf[&name]["latency"]["value"], fork["median"], "{name}");
    assert!(obj.values().any(|m| m.get("throughput").is_some()));
    assert!(obj.values().any(|m| m.get("kib").is_some()));
}

/// A benchmark line of Go's format, parsed.
struct GoLine {
    name: String,
    procs: u32,
    /// (value, unit) pairs.
    values: Vec<(f64, String)>,
}

/// One line of Go's benchmark format: `BenchmarkName-N  iterations  value unit [value unit...]`,
/// or a `key: value` configuration line (`None`). Panics naming the line when it is neither.
fn parse_go_bench_line(line: &str) -> Option<GoLine> {
    if !line.starts_with("Benchmark") {
        let (key, _) = line.split_once(": ").expect("key: value");
        assert!(
            !key.is_empty()
                && key.chars().next().unwrap().is_ascii_lowercase()
                && !key
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_ascii_uppercase()),
            "not a configuration line: {line}"
        );
        return None;
    }
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert!(
        fields.len() >= 4 && fields.len().is_multiple_of(2),
        "{line}"
    );
    let (name, procs) = fields[0].rsplit_once('-').expect("-N suffix");
    let procs: u32 = procs.parse().expect("GOMAXPROCS suffix");
    let iterations: u64 = fields[1].parse().expect("iterations");
    assert!(iterations > 0, "{line}");
    let next = name["Benchmark".len()..].chars().next().expect("a name");
    assert!(
        !next.is_lowercase(),
        "Go reads a lower-case letter as another word: {line}"
    );
    let pairs = fields[2..]
        .chunks(2)
        .map(|c| (c[0].parse::<f64>().expect("value"), c[1].to_string()))
        .collect();
    Some(GoLine {
        name: name.to_string(),
        procs,
        values: pairs,
    })
}

#[test]
fn benchstat_export_parses_line_by_line_with_one_line_per_round() {
    let out = concbench()
        .args(["report", "--format", "benchstat"])
        .arg(fixture())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<_> = text.lines().filter_map(parse_go_bench_line).collect();
    let doc = read_json(&fixture());
    let rounds: usize = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rounds"].as_array().unwrap().len())
        .sum();
    assert_eq!(lines.len(), rounds);
    let fork = lines
        .iter()
        .find(|l| l.name.starts_with("BenchmarkCreate.fork/"))
        .expect("create.fork exported");
    assert_eq!(fork.values[0].1, "ns/op");
    assert!(lines.iter().any(|l| l.values[0].1 == "req/s"));
    // The -N suffix is the machine's CPU count (Go's GOMAXPROCS).
    let cpus = doc["host"]["logical_cpus"].as_u64().unwrap() as u32;
    assert!(lines.iter().all(|l| l.procs == cpus));
}

#[test]
fn list_of_an_id_shows_each_variant_with_its_params_and_run_modes() {
    let out = concbench()
        .args(["list", "create.fork"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("create.fork "), "{text}");
    let variants: Vec<&str> = text.lines().filter(|l| l.starts_with("  ")).collect();
    assert!(!variants.is_empty(), "{text}");
    for v in &variants {
        assert!(v.contains("placement=") && v.contains("full"), "{v}");
    }
    assert!(variants.iter().any(|v| v.contains("quick")), "{text}");
    assert!(text.contains("--only create.fork --where "), "{text}");
    // Every variant of the suite, and an unknown name refused as `run --only` refuses it.
    let all = concbench().args(["list", "--variants"]).output().unwrap();
    let all = String::from_utf8(all.stdout).unwrap();
    assert!(all.lines().filter(|l| l.starts_with("  ")).count() > variants.len());
    assert!(all.contains("[opt-in"), "{all}");
    assert_usage_error(["list", "nosuch"], &["--only", "nosuch"]);
}

#[test]
fn json_of_two_real_runs_follows_its_schema() {
    // Two smoke runs of one family: real documents (few rounds, maybe no interval), not the
    // fixture. CONCBENCH_COMPARE_JSON names one more `compare --json` output to check (the
    // closing note's sample of two quick runs).
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> = ["a", "b"]
        .iter()
        .map(|n| {
            let sub = dir.path().join(n);
            std::fs::create_dir_all(&sub).unwrap();
            smoke_run(&sub, Some("syscall"));
            sub.join("out.json")
        })
        .collect();
    let (code, stdout, stderr) = compare(&runs[0], &runs[1], &["--json", "-"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    validate(&doc, &compare_schema());
    assert!(!doc["runs"][0]["results"].as_array().unwrap().is_empty());
    if let Some(extra) = std::env::var_os("CONCBENCH_COMPARE_JSON") {
        validate(&read_json(Path::new(&extra)), &compare_schema());
    }
}
