//! What the experiments' integration tests share: a harness in smoke mode (quick, a few
//! iterations, the default repetitions, pinned as a run pins) on this host, with the probes
//! built in the tests' own cache; and the rule that a runtime CI provides is measured, not
//! skipped.

#![allow(dead_code)]

use concbench_core::{CancelToken, Experiment, Outcome, RawMeasurement};
use concbench_measure::{Harness, HarnessConfig, PinMode};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Build probes in the tests' own cache (in the build's target directory), never in the user's
/// `~/.cache/concbench`. Every test that may build a probe calls it first ([`smoke_harness`]
/// does); the builds are keyed by their sources, so the tests of one build share them.
pub fn isolate() {
    concbench_probes::build::use_cache_dir(&test_cache()).expect("one cache for the tests");
}

/// The tests' probe cache.
pub fn test_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("concbench-cache")
}

/// A smoke-mode harness whose scratch files go to `scratch`.
pub fn smoke_harness(scratch: &Path) -> Harness {
    isolate();
    Harness {
        config: HarnessConfig {
            quick: true,
            smoke: true,
            repetitions: None,
            pin: PinMode::Auto,
        },
        host: Arc::new(concbench_measure::host::collect()),
        cancel: CancelToken::new(),
        scratch_dir: scratch.to_path_buf(),
        options: Default::default(),
    }
}

/// Whether this is CI (`CI=true`), where `.ci/run` provides every runtime and a skip means a
/// test measured nothing.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Every registered variant of `id` whose params include `key=value`.
pub fn variants(id: &str, key: &str, value: &str) -> Vec<Box<dyn Experiment>> {
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

/// Measure `exp` in smoke mode: its figures (each finite and above zero), or `None` after a
/// one-line skip — which fails the test under CI. A failure always fails it.
pub fn measured_or_skipped(exp: &mut dyn Experiment) -> Option<RawMeasurement> {
    let label = format!("{} {}", exp.meta().id, exp.params().compact());
    let scratch = tempfile::tempdir().unwrap();
    match smoke_harness(scratch.path()).measure(exp, &mut |_| {}) {
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
            // CI provides every runtime (.ci/run fails at once when it cannot): a skip there
            // means the test measured nothing, so it must not pass.
            assert!(
                !under_ci(),
                "{label} was skipped under CI, where .ci/run provides its runtime: {}",
                s.reason
            );
            eprintln!("SKIPPED {label}: {}", s.reason);
            None
        }
        Outcome::Failed(f) => panic!("{label} failed: {}", f.error),
    }
}
