//! Every registered experiment runs once in smoke mode (one repetition, a few iterations) and
//! either measures or is skipped with a reason — never fails.

mod common;

use concbench_core::Outcome;

#[test]
fn every_experiment_runs_in_smoke_mode() {
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
