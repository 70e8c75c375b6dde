//! An unwritable probe cache (`$XDG_CACHE_HOME`) must not fail the probe variants: they are
//! built in a temporary cache instead, and each result says so.

mod common;

use common::*;

#[test]
fn an_unwritable_probe_cache_falls_back_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    // A regular file where the cache directory should be: unwritable even for root.
    let cache = dir.path().join("cache-is-a-file");
    std::fs::write(&cache, "").unwrap();
    let out = dir.path().join("out.json");
    concbench()
        .env("XDG_CACHE_HOME", &cache)
        .args([
            "run",
            "--smoke",
            "--no-store",
            "--only",
            "probes.c.ring,probes.python.create",
            "--json",
        ])
        .arg(&out)
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
