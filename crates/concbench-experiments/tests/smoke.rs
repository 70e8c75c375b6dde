//! Every registered experiment runs once in smoke mode (one repetition, a few iterations) and
//! either measures or is skipped with a reason — never fails.

mod common;

use concbench_core::Outcome;
use std::sync::Mutex;

/// Held by the tests that start servers or fork helpers holding sockets: a helper forked by one
/// test inherits the descriptors another test's server has open at that moment (a listener it
/// then never accepts on), so they do not run side by side.
static SOCKETS: Mutex<()> = Mutex::new(());

#[test]
fn every_experiment_runs_in_smoke_mode() {
    let _alone = SOCKETS.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = tempfile::tempdir().unwrap();
    let harness = common::smoke_harness(scratch.path());
    let mut failures = Vec::new();
    for mut exp in concbench_experiments::all() {
        let label = format!("{} {}", exp.meta().id, exp.params().compact());
        match harness.measure(exp.as_mut(), &mut |_| {}) {
            Outcome::Measured(raw) => {
                assert_eq!(raw.values.len(), 1, "{label}");
                assert!(
                    raw.values.iter().all(|v| v.is_finite()),
                    "{label}: {:?}",
                    raw.values
                );
            }
            Outcome::Skipped(s) => eprintln!("skipped {label}: {}", s.reason),
            Outcome::Failed(f) => failures.push(format!("{label}: {}", f.error)),
        }
    }
    assert!(failures.is_empty(), "failed:\n{}", failures.join("\n"));
}

/// create.fork records the shape of the process it forked from, so that a reader (and
/// bench/fidelity/create.py's same-shape C reference) sees what each fork copied; so does
/// reference.fork_c, the C loop linked into the worker that create.fork is paired with.
#[test]
fn create_fork_records_the_shape_it_forked_from() {
    let scratch = tempfile::tempdir().unwrap();
    let harness = common::smoke_harness(scratch.path());
    // reference.fork_c is the C loop create.fork is paired with: it records the same shape.
    let forks = concbench_experiments::all()
        .into_iter()
        .filter(|e| ["create.fork", "reference.fork_c"].contains(&e.meta().id));
    let mut measured = 0;
    for mut exp in forks {
        let label = exp.params().compact();
        let Outcome::Measured(raw) = harness.measure(exp.as_mut(), &mut |_| {}) else {
            panic!("create.fork {label} was not measured");
        };
        for counter in ["parent_anon_kib", "parent_pte_kib", "parent_vmas"] {
            let values = raw
                .metrics
                .get(counter)
                .unwrap_or_else(|| panic!("{label}: no {counter} in {:?}", raw.metrics.keys()));
            assert_eq!(
                values.len(),
                raw.values.len(),
                "{label} {counter}: one per sample"
            );
            assert!(
                values.iter().all(|v| *v > 0.0),
                "{label} {counter}: {values:?}"
            );
        }
        measured += 1;
    }
    assert_eq!(
        measured, 3,
        "create.fork from single- and once-threaded parents, and the C loop"
    );
}

/// Seed S2's 65,535 is about the server's side (「本地」, its next line calls the remote side
/// the client): every connection is held at one server address and port, from several client
/// addresses — in smoke mode a few hundred, the full run past 65,535.
#[test]
fn the_connections_are_held_at_one_server_address_and_port() {
    let _alone = SOCKETS.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = tempfile::tempdir().unwrap();
    let harness = common::smoke_harness(scratch.path());
    let mut exp = concbench_experiments::all()
        .into_iter()
        .find(|e| e.meta().id == "limits.connections")
        .unwrap();
    assert_eq!(exp.params().get_str("side"), Some("server"));
    let raw = match harness.measure(exp.as_mut(), &mut |_| {}) {
        Outcome::Measured(raw) => raw,
        Outcome::Skipped(s) => return eprintln!("skipped: {}", s.reason),
        Outcome::Failed(f) => panic!("{}", f.error),
    };
    let metric = |k: &str| raw.metrics[k][0];
    assert_eq!(raw.values, [300.0]);
    assert_eq!(metric("max_per_local_port"), 300.0, "one server port");
    assert_eq!(metric("client_addresses"), 3.0);
}
