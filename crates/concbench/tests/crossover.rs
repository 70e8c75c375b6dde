//! `concbench crossover` end to end, and `advise`'s line on whether its model was checked here:
//! the sweep's measured points read back into that check (a synthetic fixture, never a
//! measurement), from `--from FILE` and from the history; a smoke sweep through the binary,
//! against the schema, rendered by `report`; `list` marking the sweep opt-in. Every command runs
//! in a home of its own.

mod common;

use common::{assert_valid, fixture, read_json, TestHome};
use concbench_analysis::synthetic::sweep_point;
use concbench_core::ResultDoc;
use std::path::Path;

/// The synthetic fixture with one sweep point — a pool of 8 threads, 10 ms of blocking and
/// 100 µs of CPU a request, 700 req/s in six rounds — and a request's I/O of 10 µs. Little's law
/// binds it whatever the unit costs: 8 / (10 ms + 110 µs) = 791.3 req/s predicted, so measured /
/// predicted is 0.885 and the factor 1.13.
fn with_sweep() -> ResultDoc {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let mut doc: ResultDoc = serde_json::from_str(&text).unwrap();
    let epoll = doc
        .results
        .iter_mut()
        .find(|r| r.id == "server.keepalive" && r.params.get_str("design") == Some("epoll"))
        .expect("the fixture's epoll server");
    epoll.counters.insert("server_cpu_us_per_req".into(), 10.0);
    let point = sweep_point("prethread-mutex", Some(8), 10_000, 100, 700.0);
    doc.results.push(point);
    doc
}

fn write(doc: &ResultDoc, path: &Path) {
    std::fs::write(path, serde_json::to_string(doc).unwrap()).unwrap();
}

const WORKLOAD: [&str; 5] = ["advise", "--units-per-sec", "1000", "--blocked", "0.5"];

/// What `advise` prints for [`WORKLOAD`] with `source` (`--from FILE`, `--db PATH`), in a home
/// of its own.
fn advise_with(source: &str, path: &Path) -> String {
    common::printed(
        TestHome::new()
            .concbench()
            .args(WORKLOAD)
            .arg(source)
            .arg(path),
    )
}

#[test]
fn advise_reads_the_sweeps_points_back_into_its_check_with_their_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("swept.json");
    write(&with_sweep(), &file);
    let said = advise_with("--from", &file);
    for needle in [
        "Checked on this machine: the crossover sweep in",
        "measured 1 points",
        "measured / predicted was 0.885",
        "1.13 at worst (thread pool of 8",
    ] {
        assert!(said.contains(needle), "{needle} missing in\n{said}");
    }
}

#[test]
fn advise_without_a_sweep_says_it_was_never_checked_and_how_to_check_it() {
    let said = advise_with("--from", &fixture());
    assert!(said.contains("Never checked on this machine"), "{said}");
    assert!(said.contains("`concbench crossover`"), "{said}");
}

#[test]
fn advise_finds_the_newest_sweep_of_this_machine_in_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let mut store =
        concbench_store::Store::open(&concbench_store::Location::File(db.clone())).unwrap();
    let mut swept = with_sweep();
    swept.host.machine_id = None;
    store.save(&swept, "crossover").unwrap();
    // A later plain run holds the costs, not the sweep: the advice comes from it, the check
    // from the sweep before it.
    let text = std::fs::read_to_string(fixture()).unwrap();
    let plain: ResultDoc = serde_json::from_str(&text).unwrap();
    store.save(&plain, "run").unwrap();
    drop(store);
    let said = advise_with("--db", &db);
    assert!(
        said.contains("the crossover sweep in run 1 (`crossover`"),
        "{said}"
    );
    assert!(said.contains("measured / predicted was 0.885"), "{said}");
}

#[test]
fn a_smoke_sweep_runs_end_to_end_is_valid_and_every_page_shows_it() {
    let home = TestHome::new();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("crossover.json");
    let printed = common::printed(
        home.concbench()
            .args(["crossover", "--smoke", "--json"])
            .arg(&out),
    );
    assert!(
        printed.contains("Where each design stops keeping up"),
        "{printed}"
    );
    let doc = read_json(&out);
    assert_valid(&doc);
    let c = &doc["crossover"];
    assert_eq!(c["points"].as_array().unwrap().len(), 12, "{c:#}");
    // Four designs at 64 units or none, three blocking times: each pair has its ratios.
    let pairs = c["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3, "{c:#}");
    assert!(pairs
        .iter()
        .all(|p| p["ratios"].as_array().unwrap().len() == 3));
    // The unit costs advise bills were measured beside the sweep: every point is predicted.
    assert!(
        c["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["predicted_rps"].as_f64().is_some_and(|r| r > 0.0)),
        "{c:#}"
    );
    assert_eq!(doc["settings"]["command"], "crossover");
    let all = common::report_all(&home, &out);
    assert!(all.contains("predicted req/s"), "{all}");
    let html = dir.path().join("page.html");
    let md = dir.path().join("page.md");
    home.concbench()
        .arg("report")
        .arg(&out)
        .arg("--html")
        .arg(&html)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Requests/s against blocking time per request"));
    assert!(page.contains("stroke-dasharray"), "the predictions, dashed");
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("## The crossover"));
    // Stored in this home's history, where advise finds it and reads its points back: the
    // line counts the points the sweep checked (or says it holds no prediction).
    let said = common::printed(home.concbench().args(WORKLOAD));
    assert!(
        said.contains("crossover sweep in run 1 (`crossover`"),
        "{said}"
    );
    let checked = match c["error"]["points"].as_u64() {
        Some(n) => format!("measured {n} points of servers beside this model's predictions"),
        None => "holds no prediction to check this model against".into(),
    };
    assert!(said.contains(&checked), "{checked} missing in\n{said}");
}

#[test]
fn list_marks_the_sweep_opt_in_by_its_id() {
    // Regression: `list` marked only opt-in families, so the sweep (opt-in by id, in the server
    // family) read as part of a plain run.
    let home = TestHome::new();
    let all = common::printed(home.concbench().arg("list"));
    let line = all
        .lines()
        .find(|l| l.starts_with("server.crossover "))
        .unwrap_or_else(|| panic!("no server.crossover in\n{all}"));
    assert!(line.ends_with("[opt-in]"), "{line}");
    assert!(!all
        .lines()
        .any(|l| l.starts_with("server.keepalive ") && l.contains("[opt-in]")));
    assert!(
        all.contains("server.crossover (`concbench crossover`"),
        "{all}"
    );
    let one = common::printed(home.concbench().args(["list", "server.crossover"]));
    assert!(
        one.lines()
            .next()
            .unwrap()
            .contains("[opt-in: runs only when named by --only]"),
        "{one}"
    );
}
