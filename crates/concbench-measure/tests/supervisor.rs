//! Every way a worker process can end becomes an outcome: a crash, silence, garbage, a hang.

use concbench_core::{CancelToken, Outcome};
use concbench_measure::isolate::{supervisor::Supervisor, Job};
use concbench_measure::{HarnessConfig, PinMode};
use std::time::{Duration, Instant};

fn job() -> Job {
    Job {
        index: 0,
        id: "fake.op".into(),
        config: HarnessConfig {
            quick: true,
            smoke: true,
            repetitions: None,
            pin: PinMode::Auto,
        },
        host: Default::default(),
        scratch_dir: std::env::temp_dir(),
        options: Default::default(),
    }
}

/// A supervisor whose "worker" is a shell script.
fn sh(script: &str, limit: Duration) -> Supervisor {
    Supervisor {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        time_limit: limit,
        cancel: CancelToken::new(),
    }
}

fn failure(outcome: Outcome) -> String {
    match outcome {
        Outcome::Failed(f) => f.error,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_worker_killed_by_sigsegv_is_a_recorded_failure() {
    let err = failure(
        sh("cat >/dev/null; kill -SEGV $$", Duration::from_secs(10)).measure(&job(), &mut |_| {}),
    );
    assert!(err.contains("signal 11"), "{err}");
}

#[test]
fn a_worker_that_exits_without_reporting_is_a_failure() {
    let err = failure(
        sh(
            "cat >/dev/null; echo not-json; exit 3",
            Duration::from_secs(10),
        )
        .measure(&job(), &mut |_| {}),
    );
    assert!(err.contains("code 3"), "{err}");
}

#[test]
fn a_hanging_worker_is_killed_at_the_time_limit() {
    let started = Instant::now();
    let err = failure(
        sh("cat >/dev/null; exec sleep 30", Duration::from_millis(300))
            .measure(&job(), &mut |_| {}),
    );
    assert!(err.contains("timed out"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_well_formed_outcome_is_passed_through() {
    let line = r#"{"type":"progress","event":{"event":"sample","done":0,"total":1}}
{"type":"outcome","outcome":{"skipped":{"id":"fake.op","params":{},"reason":"why not"}}}"#;
    let script = format!(
        "cat >/dev/null; printf '%s\\n' '{}'",
        line.replace('\n', "' '")
    );
    let mut events = 0;
    let outcome = sh(&script, Duration::from_secs(10)).measure(&job(), &mut |_| events += 1);
    assert!(
        matches!(outcome, Outcome::Skipped(ref s) if s.reason == "why not"),
        "{outcome:?}"
    );
    assert_eq!(events, 1);
}
