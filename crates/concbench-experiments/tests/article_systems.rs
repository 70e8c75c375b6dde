//! The articles' own systems through the harness, in smoke mode: seed S2's servers (Netty, and
//! Go, Java virtual-thread and PHP Fiber servers for Swoole) under concbench's load and under
//! ab, seed S1's C# program on Mono, seed S4's Java reader. Each either measures — with the
//! counters its verdicts read — or is skipped with a one-line reason; none fails.

use concbench_core::{CancelToken, Experiment, Outcome, RawMeasurement};
use concbench_measure::{Harness, HarnessConfig, PinMode};
use std::sync::Arc;

fn measure(exp: &mut dyn Experiment) -> Outcome {
    let scratch = tempfile::tempdir().unwrap();
    let harness = Harness {
        config: HarnessConfig {
            quick: true,
            smoke: true,
            repetitions: None,
            pin: PinMode::Auto,
        },
        host: Arc::new(concbench_measure::host::collect()),
        cancel: CancelToken::new(),
        scratch_dir: scratch.path().to_path_buf(),
        options: Default::default(),
    };
    harness.measure(exp, &mut |_| {})
}

/// Every registered variant of `id` whose params include `key=value`.
fn variants(id: &str, key: &str, value: &str) -> Vec<Box<dyn Experiment>> {
    let found: Vec<_> = concbench_experiments::all()
        .into_iter()
        .filter(|e| {
            let v = e.params().get(key).map(|v| v.to_string());
            e.meta().id == id && v.as_deref().map(|v| v.trim_matches('"')) == Some(value)
        })
        .collect();
    assert!(!found.is_empty(), "no {id} with {key}={value}");
    found
}

/// Measure, or accept a one-line skip; a failure fails the test. Returns what was measured.
fn measured_or_skipped(exp: &mut dyn Experiment) -> Option<RawMeasurement> {
    let label = format!("{} {}", exp.meta().id, exp.params().compact());
    match measure(exp) {
        Outcome::Measured(raw) => {
            assert!(
                raw.values.iter().all(|v| v.is_finite() && *v > 0.0),
                "{label}: {:?} {:?} {:?}",
                raw.values,
                raw.metrics,
                raw.warnings
            );
            Some(*raw)
        }
        Outcome::Skipped(s) => {
            assert!(!s.reason.is_empty() && !s.reason.contains('\n'), "{label}");
            eprintln!("skipped {label}: {}", s.reason);
            None
        }
        Outcome::Failed(f) => panic!("{label} failed: {}", f.error),
    }
}

const SERVERS: [&str; 5] = [
    "netty",
    "netty-business-pool",
    "go-net-http",
    "java-virtual-threads",
    "php-fibers",
];

#[test]
fn each_article_server_serves_both_scenarios_with_the_designs_counters() {
    for design in SERVERS {
        for id in ["server.keepalive", "server.blocking"] {
            for mut exp in variants(id, "design", design) {
                let Some(raw) = measured_or_skipped(exp.as_mut()) else {
                    continue;
                };
                for counter in [
                    "latency_p99_us",
                    "server_cpu_us_per_req",
                    "server_pss_kib_per_conn",
                ] {
                    assert!(
                        raw.metrics.contains_key(counter),
                        "{design} {id}: {counter}"
                    );
                }
                assert!(
                    !raw.info["runtime_version"].is_empty(),
                    "{design}: the runtime's version is recorded"
                );
            }
        }
    }
}

#[test]
fn swoole_keeps_its_row_with_the_reason() {
    for id in ["server.keepalive", "server.blocking"] {
        for mut exp in variants(id, "design", "swoole") {
            match measure(exp.as_mut()) {
                Outcome::Skipped(s) => assert!(s.reason.contains("not packaged"), "{}", s.reason),
                other => panic!("swoole cannot run here: {other:?}"),
            }
        }
    }
}

#[test]
fn ab_drives_an_article_server_and_reports_its_own_figure() {
    for id in ["server.keepalive.ab", "server.blocking.ab"] {
        for mut exp in variants(id, "design", "php-fibers") {
            if let Some(raw) = measured_or_skipped(exp.as_mut()) {
                let kept_alive = raw.metrics["keep_alive_requests"][0];
                // ab prints its percentile table only when it completed more than one request
                // (a machine busy enough can leave a one-second smoke run with one).
                assert!(
                    kept_alive <= 1.0 || raw.metrics.contains_key("latency_p99_us"),
                    "{id}: {:?}",
                    raw.metrics
                );
            }
        }
    }
}

#[test]
fn the_csharp_program_counts_and_counts_switches() {
    for id in [
        "probes.csharp.single",
        "probes.csharp.alternate",
        "probes.csharp.lock",
    ] {
        for mut exp in variants(id, "runtime", "csharp") {
            if let Some(raw) = measured_or_skipped(exp.as_mut()) {
                assert!(
                    raw.metrics.contains_key("context_switches_per_1e8"),
                    "{id}: the article's second figure"
                );
                assert!(raw.info["runtime_version"].contains("Mono"), "{id}");
            }
        }
    }
}

#[test]
fn the_java_reader_reads_every_byte_of_the_files() {
    for mut exp in variants("io.read.java", "files", "10")
        .into_iter()
        .chain(variants("io.read.java", "model", "one-thread-sequential"))
    {
        if let Some(raw) = measured_or_skipped(exp.as_mut()) {
            assert!(raw.metrics.contains_key("mib_per_s"));
        }
    }
}
