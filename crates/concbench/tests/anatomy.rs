//! `--only anatomy` end to end in smoke mode: the opt-in family and the variants it is built
//! from run, the document is valid, and the report shows the anatomy — with whatever evidence
//! this machine cannot give said once, never as a zero.

mod common;

use common::*;
use predicates::prelude::*;

#[test]
fn only_anatomy_measures_its_layers_and_the_report_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    let doc = smoke_run(dir.path(), Some("anatomy"));
    assert_valid(&doc);
    assert!(
        doc["failures"].as_array().unwrap().is_empty(),
        "{}",
        doc["failures"]
    );
    let results = doc["results"].as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for id in [
        "syscall.getppid",
        "anatomy.transport",
        "switch.pipe.thread",
        "switch.pipe.process",
        "anatomy.victim",
        "anatomy.fork",
        "anatomy.vfork",
    ] {
        assert!(ids.contains(&id), "{id} not measured: {ids:?}");
    }
    // Nothing of the default run's other families came along.
    assert!(!ids.contains(&"create.thread") && !ids.contains(&"switch.eventfd.thread"));

    let text = common::report_all(&common::TestHome::new(), &dir.path().join("out.json"));
    assert!(text.contains("Anatomy of a hand-over"), "{text}");
    assert!(text.contains("system-call floor"), "{text}");
    assert!(text.contains("What makes fork expensive"), "{text}");
    // Evidence this machine lacks is said once, and has no figure.
    for r in results.iter().filter(|r| r["id"] == "anatomy.handover") {
        if let Some(why) = r["info"]["hw_counters"]
            .as_str()
            .filter(|w| *w != "measured")
        {
            assert_eq!(text.matches(why).count(), 1, "{why} in\n{text}");
            assert!(r["counters"].get("cycles_per_op").is_none());
        }
    }
}

#[test]
fn a_plain_run_leaves_the_opt_in_family_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    concbench()
        .args(["run", "--smoke", "--only", "syscall", "--json"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("Anatomy").not());
}
