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
/// A supervisor whose worker is `script` in `/bin/sh`, started with SIGINT at its default
/// action: a shell cannot trap a signal ignored when it started, and a test binary launched in
/// the background of a script (`cmd &`, as `nohup .ci/run &` does) starts with SIGINT ignored
/// (regression: the Ctrl-C test "did not stop within 10 s of Ctrl-C" in such a run).
fn sh(script: &str, limit: Duration) -> Supervisor {
    Supervisor {
        program: "/usr/bin/env".into(),
        args: vec![
            "--default-signal=INT".into(),
            "/bin/sh".into(),
            "-c".into(),
            script.into(),
        ],
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
        sh("cat >/dev/null; kill -SEGV $$", Duration::from_secs(10)).round(&job(), &mut |_| {}),
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
        .round(&job(), &mut |_| {}),
    );
    assert!(err.contains("code 3"), "{err}");
}

#[test]
fn a_hanging_worker_is_killed_at_the_time_limit() {
    let started = Instant::now();
    let err = failure(
        sh("cat >/dev/null; exec sleep 30", Duration::from_millis(300)).round(&job(), &mut |_| {}),
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
    let outcome = sh(&script, Duration::from_secs(10)).round(&job(), &mut |_| events += 1);
    assert!(
        matches!(outcome, Outcome::Skipped(ref s) if s.reason == "why not"),
        "{outcome:?}"
    );
    assert_eq!(events, 1);
}

/// The outcome line a worker writes for one measured round of `value`.
fn measured_line(value: f64) -> String {
    let raw = concbench_core::RawMeasurement::from_values(
        concbench_core::Meta::default(),
        Default::default(),
        vec![value],
    );
    let msg = concbench_measure::isolate::WorkerMessage::Outcome {
        outcome: Outcome::Measured(Box::new(raw)),
    };
    serde_json::to_string(&msg).unwrap()
}

/// A resident worker measures a round per job line, on the same process, until its input closes.
#[test]
fn a_resident_worker_answers_each_job_and_ends_when_its_input_closes() {
    let dir = tempfile::tempdir().unwrap();
    let rounds = dir.path().join("rounds");
    let ended = dir.path().join("ended");
    // One line per job: count it, answer a round whose value is the count; at end of input,
    // say so in a file (a resident worker tears down then).
    let script = format!(
        "n=0; while read -r line; do n=$((n+1)); echo $$ >> {r}; \
         printf '%s\\n' \"$(echo '{tpl}' | sed \"s/VALUE/$n/\")\"; done; echo done > {e}",
        r = rounds.display(),
        e = ended.display(),
        tpl = measured_line(12345.0).replace("12345.0", "VALUE")
    );
    let sup = sh(&script, Duration::from_secs(10));
    let (first, resident) = sup.start(&job(), &mut |_| {});
    let value = |o: &Outcome| match o {
        Outcome::Measured(raw) => raw.values[0],
        other => panic!("not measured: {other:?}"),
    };
    assert_eq!(value(&first), 1.0);
    let mut resident = resident.expect("a measured first round keeps its worker");
    assert_eq!(value(&resident.round(&job(), &mut |_| {})), 2.0);
    assert_eq!(value(&resident.round(&job(), &mut |_| {})), 3.0);
    assert!(resident.alive());
    let pids = std::fs::read_to_string(&rounds).unwrap();
    let pids: std::collections::BTreeSet<&str> = pids.lines().collect();
    assert_eq!(pids.len(), 1, "one process served the three rounds");
    resident.end();
    assert!(!resident.alive());
    assert_eq!(std::fs::read_to_string(&ended).unwrap().trim(), "done");
}

#[test]
fn a_resident_worker_that_dies_is_a_failure_and_gone() {
    let script = format!(
        "read -r line; printf '%s\\n' '{}'; read -r line; kill -SEGV $$",
        measured_line(1.0)
    );
    let sup = sh(&script, Duration::from_secs(10));
    let (first, resident) = sup.start(&job(), &mut |_| {});
    assert!(matches!(first, Outcome::Measured(_)), "{first:?}");
    let mut resident = resident.unwrap();
    let err = failure(resident.round(&job(), &mut |_| {}));
    assert!(err.contains("signal 11"), "{err}");
    assert!(!resident.alive());
    let again = failure(resident.round(&job(), &mut |_| {}));
    assert!(again.contains("already ended"), "{again}");
}

/// Whether no process `pid` runs any more.
fn gone(pid: &str) -> bool {
    !std::path::Path::new("/proc").join(pid.trim()).exists()
}

/// Ctrl-C during a resident worker's round: the worker is interrupted, its round fails, and it
/// tears down what it started (here a `sleep` standing for its server) and exits — nothing is
/// left running.
#[test]
fn ctrl_c_in_a_resident_round_fails_it_and_the_worker_tears_down_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name);
    let interrupted = r#"{"type":"outcome","outcome":{"failed":{"id":"fake.op","params":{},"error":"interrupted"}}}"#;
    // The round's work (`sleep 30`) is ended by the interrupt handler itself: a Ctrl-C that
    // lands before the shell reaches `wait` would otherwise run the handler first and then
    // wait the whole 30 s (regression: CI under load, "did not stop within 10 s of Ctrl-C").
    let script = format!(
        "sleep 600 >/dev/null & s=$!; echo $s > {server}; \
         read -r line; printf '%s\\n' '{measured}'; \
         read -r line; sleep 30 & w=$!; \
         on_int() {{ printf '%s\\n' '{interrupted}'; kill $w 2>/dev/null; }}; trap on_int INT; \
         touch {in_round}; wait $w; \
         while read -r line; do :; done; kill $s; wait $s 2>/dev/null; echo done > {ended}",
        server = file("server").display(),
        in_round = file("in-round").display(),
        ended = file("ended").display(),
        measured = measured_line(1.0),
    );
    let sup = sh(&script, Duration::from_secs(20));
    let (first, resident) = sup.start(&job(), &mut |_| {});
    assert!(matches!(first, Outcome::Measured(_)), "{first:?}");
    let mut resident = resident.unwrap();
    let worker = resident.pid().unwrap().to_string();
    // The user presses Ctrl-C once the second round is under way.
    let cancel = sup.cancel.clone();
    let in_round = file("in-round");
    let presser = std::thread::spawn(move || {
        while !in_round.exists() {
            std::thread::sleep(Duration::from_millis(10));
        }
        cancel.cancel();
    });
    let err = failure(resident.round(&job(), &mut |_| {}));
    presser.join().unwrap();
    assert!(err.contains("interrupted"), "{err}");
    assert!(!resident.alive(), "an interrupted worker is not kept");
    assert_eq!(
        std::fs::read_to_string(file("ended")).unwrap().trim(),
        "done"
    );
    let server = std::fs::read_to_string(file("server")).unwrap();
    assert!(gone(&server), "the server {server} was left running");
    assert!(gone(&worker), "the worker {worker} was left running");
}

/// A resident worker that does not exit when its input closes is killed after the grace period
/// and reaped.
#[test]
fn a_resident_worker_that_ignores_the_end_of_its_input_is_killed() {
    let script = format!(
        "read -r line; printf '%s\\n' '{}'; trap '' INT; exec sleep 600",
        measured_line(1.0)
    );
    let sup = sh(&script, Duration::from_secs(60));
    let (first, resident) = sup.start(&job(), &mut |_| {});
    assert!(matches!(first, Outcome::Measured(_)), "{first:?}");
    let mut resident = resident.unwrap();
    let worker = resident.pid().unwrap().to_string();
    resident.end();
    assert!(!resident.alive());
    assert!(gone(&worker), "the worker {worker} was left running");
}
