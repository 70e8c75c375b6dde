//! The probe family's behaviour through the harness, with fake probes (small shell scripts that
//! speak — or break — the protocol) and with toolchains made missing.

mod common;

use concbench_core::{CancelToken, Outcome};
use concbench_experiments::probes::variants::{self, Variant};
use concbench_experiments::probes::ProbeExperiment;
use concbench_probes::build::Launch;
use concbench_probes::toolchain::Search;
use std::path::Path;

fn variant(id: &str) -> Variant {
    variants::all()
        .into_iter()
        .find(|v| v.meta.id == id)
        .unwrap()
}

/// A calibrated nanosecond variant (the Go goroutine create).
fn go_create() -> Variant {
    variant("probes.go.create")
}

const GREETING: &str = r#"{"v":1,"hello":"concbench-probe","runtime":"fake","version":"fake-$$","experiments":["create","memory"]}"#;

/// A fake probe: `sh -c` running `script`, which may call `hello` to print the greeting (its
/// version is `fake-<pid of the shell>`).
fn fake(script: &str) -> Launch {
    let greeting = GREETING.replace('"', "\\\"");
    Launch {
        program: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            format!("hello() {{ echo \"{greeting}\"; }}; {script}").into(),
        ],
        ..Launch::default()
    }
}

fn measure(exp: &mut ProbeExperiment) -> Outcome {
    let scratch = tempfile::tempdir().unwrap();
    common::smoke_harness(scratch.path()).measure(exp, &mut |_| {})
}

fn failure(outcome: Outcome) -> String {
    match outcome {
        Outcome::Failed(f) => f.error,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_probe_answering_garbage_fails_with_a_clear_error() {
    let script = r#"hello; while read l; do echo 'garbage here'; done"#;
    let mut exp = ProbeExperiment::with_launch(go_create(), fake(script));
    let error = failure(measure(&mut exp));
    assert!(error.contains("the go probe"), "{error}");
    assert!(
        error.contains("not a protocol line: 'garbage here'"),
        "{error}"
    );
}

#[test]
fn a_garbage_greeting_fails_before_any_request() {
    let script = "echo 'Picked up JAVA_TOOL_OPTIONS: -Xmx1g'; cat >/dev/null";
    let mut exp = ProbeExperiment::with_launch(go_create(), fake(script));
    let error = failure(measure(&mut exp));
    assert!(error.contains("setup"), "{error}");
    assert!(error.contains("not a protocol greeting"), "{error}");
}

#[test]
fn a_probe_that_dies_is_reported_with_its_status_and_stderr() {
    let script = r#"hello; read l; echo 'fatal: out of cheese' >&2; exit 3"#;
    let mut exp = ProbeExperiment::with_launch(go_create(), fake(script));
    let error = failure(measure(&mut exp));
    assert!(error.contains("closed its output"), "{error}");
    assert!(error.contains("exit status: 3"), "{error}");
    assert!(error.contains("out of cheese"), "{error}");
}

#[test]
fn a_probe_error_answer_is_shown() {
    let script =
        r#"hello; while read l; do echo '{"v":1,"ok":false,"error":"no such thing"}'; done"#;
    let mut exp = ProbeExperiment::with_launch(go_create(), fake(script));
    assert!(failure(measure(&mut exp)).contains("no such thing"));
}

#[test]
fn answers_become_samples_and_the_version_is_recorded() {
    let answer =
        r#"{"v":1,"ok":true,"ns_per_op":250,"usage":{"voluntary_switches":0},"metrics":{"m":7}}"#;
    let script = format!(r#"hello; while read l; do echo '{answer}'; done"#);
    let mut exp = ProbeExperiment::with_launch(go_create(), fake(&script));
    let raw = match measure(&mut exp) {
        Outcome::Measured(raw) => raw,
        other => panic!("{other:?}"),
    };
    assert_eq!(raw.values, vec![250.0]);
    assert_eq!(raw.metrics["m"], vec![7.0]);
    assert_eq!(raw.params.get_str("runtime"), Some("go"));
    assert_eq!(raw.params.get_f64("gomaxprocs"), Some(1.0));
    let version = &raw.info["runtime_version"];
    let pid: i32 = version.strip_prefix("fake-").unwrap().parse().unwrap();
    // Teardown ended the probe: its pid no longer exists (it was reaped).
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "probe {pid} outlived teardown"
    );
}

#[test]
fn a_probe_that_ignores_end_of_input_is_killed_and_reported() {
    let script = r#"hello; exec sleep 600 </dev/null"#;
    // A fixed batch: in smoke mode setup sends no warm-up request this probe would never answer.
    let mut exp = ProbeExperiment::with_launch(variant("probes.go.memory"), fake(script));
    // Nothing would answer a request, so drive setup and teardown directly.
    let scratch = tempfile::tempdir().unwrap();
    let h = common::smoke_harness(scratch.path());
    let ctx = concbench_core::RunContext {
        quick: true,
        smoke: true,
        placement: concbench_core::Placement::Unpinned,
        cpus: vec![],
        cancel: CancelToken::new(),
        host: h.host.clone(),
        scratch_dir: scratch.path().to_path_buf(),
        options: Default::default(),
    };
    use concbench_core::Experiment;
    exp.setup(&ctx).unwrap();
    let pid: i32 = exp.info()["runtime_version"]
        .strip_prefix("fake-")
        .unwrap()
        .parse()
        .unwrap();
    let error = exp.teardown(&ctx).unwrap_err();
    assert!(
        format!("{error:#}").contains("did not exit cleanly"),
        "{error:#}"
    );
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "probe {pid} survived"
    );
}

#[test]
fn missing_toolchains_skip_every_runtime_with_a_reason() {
    let nowhere = Search::only(&[Path::new("/nonexistent/concbench-test")]);
    let mut runtimes = std::collections::BTreeSet::new();
    for variant in variants::all() {
        let id = variant.meta.id;
        let mut exp = ProbeExperiment::with_search(variant, nowhere.clone());
        match measure(&mut exp) {
            Outcome::Skipped(s) => {
                assert!(s.reason.contains("probe: no "), "{id}: {}", s.reason);
                assert!(!s.reason.contains('\n'), "{id}: one line");
                runtimes.insert(s.params.get_str("runtime").unwrap().to_string());
            }
            other => panic!("{id}: expected a skip, got {other:?}"),
        }
    }
    // Every runtime with a probes-family variant (PHP serves only seed S2, in the server family).
    assert_eq!(runtimes.len(), 5, "{runtimes:?}");
}
