//! The worker runner's resident workers (`Experiment::rounds_per_setup`, a server kept warm
//! between rounds), with shell scripts as workers: a worker kept for its rounds and replaced
//! after them, a failed round ending its life, the least recently used ended when too many are
//! alive, and nothing left running at the end.

use concbench_core::{CancelToken, Meta, Outcome, Params, RawMeasurement};
use concbench_measure::isolate::{supervisor::Supervisor, WorkerMessage};
use concbench_measure::{HarnessConfig, PinMode};
use concbench_session::{RoundRunner, Variant, WorkerRunner};
use std::path::{Path, PathBuf};
use std::time::Duration;

const SERVER: Meta = Meta {
    id: "server.keepalive",
    family: "server",
    title: "t",
    op: "o",
    unit: "req/s",
    expected_switches_per_op: None,
};

/// The outcome line a worker writes for a measured round, or for a failed one.
fn outcome_line(measured: bool) -> String {
    let outcome = if measured {
        Outcome::Measured(Box::new(RawMeasurement::from_values(
            SERVER,
            Params::new(),
            vec![1.0],
        )))
    } else {
        Outcome::Failed(concbench_core::Failure {
            id: SERVER.id.into(),
            params: Params::new(),
            error: "the server stopped answering".into(),
        })
    };
    serde_json::to_string(&WorkerMessage::Outcome { outcome }).unwrap()
}

/// A worker as a shell script that keeps something running while it lives (a `sleep` standing
/// for its server) and logs to `dir`: `rounds` gets "INDEX PID" per job, `ended` "PID" when its
/// input closes and it has stopped its server, `servers` its server's pid. A job whose line
/// holds `"index":FAIL` fails (no such index when `fail` is `None`).
struct Script {
    dir: tempfile::TempDir,
}

impl Script {
    fn new() -> Self {
        Script {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn runner(&self, fail: Option<usize>) -> WorkerRunner {
        let script = format!(
            "sleep 600 & s=$!; echo $s >> {servers}; \
             while read -r line; do \
               i=$(echo \"$line\" | sed -n 's/^{{\"index\":\\([0-9]*\\).*/\\1/p'); \
               echo \"$i $$\" >> {rounds}; \
               if [ \"$i\" = \"{fail}\" ]; then printf '%s\\n' '{failed}'; \
               else printf '%s\\n' '{measured}'; fi; \
             done; kill $s; wait $s 2>/dev/null; echo $$ >> {ended}",
            servers = self.path("servers").display(),
            rounds = self.path("rounds").display(),
            ended = self.path("ended").display(),
            fail = fail.map_or("none".to_string(), |i| i.to_string()),
            failed = outcome_line(false),
            measured = outcome_line(true),
        );
        WorkerRunner::new(
            Supervisor {
                program: "/bin/sh".into(),
                args: vec!["-c".into(), script],
                time_limit: Duration::from_secs(20),
                cancel: CancelToken::new(),
            },
            HarnessConfig {
                quick: false,
                smoke: false,
                repetitions: None,
                pin: PinMode::Auto,
            },
            Default::default(),
            self.dir.path().to_path_buf(),
            Default::default(),
        )
    }

    /// The pids that answered variant `index`'s rounds, in order.
    fn pids_of(&self, index: usize) -> Vec<String> {
        lines(&self.path("rounds"))
            .iter()
            .filter_map(|l| l.split_once(' '))
            .filter(|(i, _)| *i == index.to_string())
            .map(|(_, pid)| pid.to_string())
            .collect()
    }

    fn ended(&self) -> Vec<String> {
        lines(&self.path("ended"))
    }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn variant(index: usize, rounds_per_setup: usize) -> Variant {
    Variant {
        index,
        meta: SERVER,
        params: Params::new().with("placement", "cross-cpu"),
        paired: false,
        rounds_per_setup,
    }
}

fn measured(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Measured(_))
}

/// Whether no process `pid` runs any more (a worker and its server are reaped when they end).
fn gone(pid: &str) -> bool {
    !Path::new("/proc").join(pid).exists()
}

#[test]
fn a_variant_keeps_its_worker_for_its_rounds_per_setup_then_gets_a_fresh_one() {
    let s = Script::new();
    let mut runner = s.runner(None);
    let warm = variant(0, 3);
    let fresh = variant(1, 1);
    for round in 1..=7 {
        // Another variant's round in between, as the passes interleave them.
        assert!(measured(&runner.run(&fresh, &mut |_| {})));
        assert!(measured(&runner.run(&warm, &mut |_| {})));
        let first = &s.pids_of(0)[0];
        assert_eq!(
            s.ended().contains(first),
            round >= 3,
            "its first life ends right after its third round (round {round})"
        );
    }
    let pids = s.pids_of(0);
    assert_eq!(pids.len(), 7);
    assert!(pids[..3].iter().all(|p| *p == pids[0]), "{pids:?}");
    assert!(pids[3..6].iter().all(|p| *p == pids[3]), "{pids:?}");
    assert!(pids[0] != pids[3] && pids[3] != pids[6], "{pids:?}");
    let others = s.pids_of(1);
    let distinct: std::collections::BTreeSet<&String> = others.iter().collect();
    assert_eq!(
        distinct.len(),
        7,
        "a fresh worker for every round: {others:?}"
    );
    assert!(runner.resident_cpu_s() >= 0.0);
    runner.end();
    // Every worker tore down what it started and exited: the seventh round's life ended now.
    let ended = s.ended();
    assert!(ended.contains(&pids[6]), "{ended:?}");
    assert_eq!(ended.len(), 3 + 7, "{ended:?}");
    for pid in pids.iter().chain(&others).chain(&lines(&s.path("servers"))) {
        assert!(gone(pid), "process {pid} is still running");
    }
}

#[test]
fn a_failed_round_ends_the_life_and_the_next_round_starts_afresh() {
    let s = Script::new();
    // Variant 2 fails every round: its worker is ended each time, never kept.
    let mut runner = s.runner(Some(2));
    let failing = variant(2, 3);
    for _ in 0..2 {
        let outcome = runner.run(&failing, &mut |_| {});
        assert!(
            matches!(&outcome, Outcome::Failed(f) if f.error.contains("stopped answering")),
            "{outcome:?}"
        );
    }
    let pids = s.pids_of(2);
    assert_eq!(pids.len(), 2);
    assert_ne!(pids[0], pids[1], "a failed life is not reused");
    assert_eq!(s.ended(), pids, "each failed worker was ended at once");
    assert_eq!(runner.resident_cpu_s(), 0.0, "no resident left");
}

#[test]
fn beyond_the_most_residents_the_least_recently_used_ends_early() {
    let s = Script::new();
    let mut runner = s.runner(None);
    let most = runner.most_residents();
    let variants: Vec<Variant> = (0..=most).map(|i| variant(i, 3)).collect();
    for v in &variants[..most] {
        assert!(measured(&runner.run(v, &mut |_| {})));
    }
    assert!(s.ended().is_empty(), "{:?}", s.ended());
    // Variant 0 is used again, so variant 1 is now the least recently used.
    assert!(measured(&runner.run(&variants[0], &mut |_| {})));
    assert!(measured(&runner.run(&variants[most], &mut |_| {})));
    assert_eq!(s.ended(), s.pids_of(1));
    // Its next round is a restart: a fresh worker.
    assert!(measured(&runner.run(&variants[1], &mut |_| {})));
    let pids = s.pids_of(1);
    assert_ne!(pids[0], pids[1]);
    assert_eq!(s.pids_of(0).len(), 2);
    assert_eq!(
        s.pids_of(0)[0],
        s.pids_of(0)[1],
        "variant 0 kept its worker"
    );
    drop(runner);
    assert_eq!(
        s.ended().len(),
        most + 2,
        "dropping the runner ends the rest"
    );
}
