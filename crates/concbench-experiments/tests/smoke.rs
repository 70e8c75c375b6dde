//! Every registered experiment runs once in smoke mode (one repetition, a few iterations) and
//! either measures or is skipped with a reason — never fails.

use concbench_core::{CancelToken, Outcome};
use concbench_measure::{Harness, HarnessConfig, PinMode};
use std::sync::Arc;

#[test]
fn every_experiment_runs_in_smoke_mode() {
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
