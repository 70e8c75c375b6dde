//! One test per runtime the probes family runs beside Rust — Go, Java, Python — each asserting
//! a real figure in smoke mode. Outside CI a missing toolchain is a skip with its reason; under
//! `CI=true` it fails the test, so a runtime cannot silently drop out of CI (the smoke test of
//! every experiment accepts skips). C#, PHP and Swoole have theirs in `article_systems.rs`.
//!
//! The bands are wide on purpose (this is about a figure being real, not about speed): one
//! operation costs more than a nanosecond and less than a second on any machine.

mod common;

use common::{measured_or_skipped, variants};

/// The one `id` variant with `key=value`: measured (a figure in its band and the runtime's
/// version recorded), or skipped outside CI.
fn measures(id: &str, key: &str, value: &str) {
    let mut found = variants(id, key, value);
    assert_eq!(found.len(), 1, "{id} {key}={value}");
    let Some(raw) = measured_or_skipped(found[0].as_mut()) else {
        return;
    };
    for v in &raw.values {
        assert!((1.0..1e9).contains(v), "{id}: {v} ns per operation");
    }
    let version = &raw.info["runtime_version"];
    assert!(
        !version.is_empty(),
        "{id}: the runtime's version is recorded"
    );
}

#[test]
fn the_go_probe_measures_a_goroutine_create() {
    measures("probes.go.create", "runtime", "go");
}

/// Virtual threads: the JDK CI must provide is 21 or later.
#[test]
fn the_java_probe_measures_a_virtual_thread_create() {
    measures("probes.java.create", "thread_kind", "virtual");
}

#[test]
fn the_python_probe_measures_a_thread_ping_pong() {
    measures("probes.python.pingpong", "model", "thread");
}
