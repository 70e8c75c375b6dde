//! An unwritable probe cache (`$CONCBENCH_CACHE`, else `$XDG_CACHE_HOME/concbench`) must not fail
//! the probe variants: they are built in a temporary cache instead, and each result says so.

mod common;

use common::*;
use std::path::Path;

/// `run --smoke` of the `only` variants with concbench's cache in `cache`, writing `out`.
fn smoke_run(cache: &Path, only: &str, out: &Path) -> WithHome<assert_cmd::Command> {
    let mut cmd = concbench();
    cmd.env("CONCBENCH_CACHE", cache)
        .args(["run", "--smoke", "--no-store", "--only", only, "--json"])
        .arg(out);
    cmd
}

#[test]
fn an_unwritable_probe_cache_falls_back_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    // A regular file where the cache directory should be: unwritable even for root.
    let cache = dir.path().join("cache-is-a-file");
    std::fs::write(&cache, "").unwrap();
    let out = dir.path().join("out.json");
    // The fallback cache lives in $TMPDIR: this test's own, so it leaves nothing behind.
    smoke_run(&cache, "probes.c.ring,probes.python.create", &out)
        .env("TMPDIR", dir.path())
        .assert()
        .success();
    let doc = read_json(&out);
    assert_valid(&doc);
    assert!(
        doc["failures"].as_array().unwrap().is_empty(),
        "{}",
        doc["failures"]
    );
    let results = doc["results"].as_array().unwrap();
    // The C probe needs only a C compiler, which building concbench already required. (Python's
    // probe is not compiled but is still written into the cache.)
    assert!(
        results.iter().any(|r| r["id"] == "probes.c.ring"),
        "{results:?}"
    );
    for r in results {
        let warnings = r["warnings"].to_string();
        assert!(
            warnings.contains("cannot be written") && warnings.contains("XDG_CACHE_HOME"),
            "{}: {warnings}",
            r["id"]
        );
    }
}

/// Regression: a cold probe cache was built inside the first round of each probe, so its build
/// (13 s for Go on a fresh machine) counted in the run's budget and a fresh clone's first run
/// got fewer adaptive rounds than the next. The build now happens once, before the run, and
/// says so; a warm cache builds nothing.
#[test]
fn regression_a_cold_probe_cache_is_built_before_the_run_not_in_its_first_round() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let run = || {
        let out = smoke_run(
            &cache,
            "probes.c.ring,probes.c.pipe_token",
            &dir.path().join("out.json"),
        )
        .output()
        .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = run();
    // Two C variants, one build, announced before the run's summary line.
    assert_eq!(first.matches("building the c probe").count(), 1, "{first}");
    let built = first.find("building the c probe").unwrap();
    assert!(built < first.find("rounds in").unwrap(), "{first}");
    let doc = read_json(&dir.path().join("out.json"));
    assert_valid(&doc);
    assert!(doc["failures"].as_array().unwrap().is_empty());
    let second = run();
    assert!(!second.contains("building"), "{second}");
}
