//! The harness's contract, checked with fake experiments: what it calls, in which order, and how
//! failures, panics, unsupported hosts and method overheads end up in the outcome.

use anyhow::{bail, Result};
use concbench_core::{
    CancelToken, Experiment, Host, Meta, Outcome, Placement, Plan, RunContext, RunOutput,
    SampleTimer, Support,
};
use concbench_measure::{Harness, HarnessConfig, PinMode};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

const META: Meta = Meta {
    id: "fake.op",
    family: "fake",
    title: "fake",
    op: "nothing",
    unit: "ns",
    expected_switches_per_op: None,
};

#[derive(Default)]
struct Fake {
    calls: Arc<Mutex<Vec<String>>>,
    fail_in: Option<&'static str>,
    panic_in_run: bool,
    unsupported: bool,
    overhead: bool,
    value: Option<f64>,
    plan: Option<Plan>,
    placement: Option<Placement>,
    max_reps: Option<usize>,
    extra_usage: Option<concbench_core::Usage>,
    operations: Option<u64>,
    /// Each operation sleeps this long (a slow operation).
    op_cost: Option<std::time::Duration>,
    /// Setup sleeps this long (a server warming up).
    setup_cost: Option<std::time::Duration>,
}

impl Fake {
    fn log(&self, s: &str) {
        self.calls.lock().unwrap().push(s.to_string());
    }
    fn maybe_fail(&self, stage: &'static str) -> Result<()> {
        self.log(stage);
        if self.fail_in == Some(stage) {
            bail!("{stage} broke");
        }
        Ok(())
    }
}

impl Experiment for Fake {
    fn meta(&self) -> &Meta {
        &META
    }
    fn placement(&self) -> Placement {
        self.placement.unwrap_or(Placement::SameCpu)
    }
    fn supported(&self, _host: &Host) -> Support {
        if self.unsupported {
            Support::No("needs a unicorn".into())
        } else {
            Support::Yes
        }
    }
    fn plan(&self, _ctx: &RunContext) -> Plan {
        self.plan.unwrap_or(Plan::Calibrated)
    }
    fn max_repetitions(&self, _ctx: &RunContext) -> Option<usize> {
        self.max_reps
    }
    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        if let Some(d) = self.setup_cost {
            std::thread::sleep(d);
        }
        self.maybe_fail("setup")
    }
    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        self.maybe_fail("run")?;
        if self.panic_in_run {
            panic!("boom");
        }
        let mut x = 0u64;
        for i in 0..iterations {
            x = std::hint::black_box(x.wrapping_add(i));
            if let Some(d) = self.op_cost {
                std::thread::sleep(d);
            }
        }
        Ok(RunOutput {
            value: self.value,
            extra_usage: self.extra_usage,
            operations: self.operations,
            ..Default::default()
        }
        .metric("iters", iterations as f64))
    }
    fn run_overhead(
        &mut self,
        _ctx: &RunContext,
        _n: u64,
        _t: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        self.log("overhead");
        Some(Ok(RunOutput {
            value: Some(1.0),
            ..Default::default()
        }))
    }
    fn overhead_method(&self) -> Option<&'static str> {
        self.overhead.then_some("fake self-test")
    }
    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        self.maybe_fail("teardown")
    }
}

fn harness(reps: usize) -> Harness {
    Harness {
        config: HarnessConfig {
            quick: true,
            smoke: false,
            repetitions: Some(reps),
            pin: PinMode::Auto,
        },
        host: Arc::new(concbench_measure::host::collect()),
        cancel: CancelToken::new(),
        scratch_dir: std::env::temp_dir(),
        options: BTreeMap::new(),
    }
}

fn measure(h: &Harness, mut f: Fake) -> (Outcome, Vec<String>) {
    let calls = f.calls.clone();
    let outcome = h.measure(&mut f, &mut |_| {});
    let calls = calls.lock().unwrap().clone();
    (outcome, calls)
}

#[test]
fn measures_the_requested_repetitions_with_placement() {
    let (outcome, calls) = measure(&harness(4), Fake::default());
    let Outcome::Measured(raw) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(raw.values.len(), 4);
    assert_eq!(raw.params.get_str("placement"), Some("same-cpu"));
    assert_eq!(raw.cpus.len(), 1);
    assert!(
        raw.iterations > 1,
        "calibration should raise the count for a cheap op"
    );
    assert_eq!(raw.metrics["iters"], vec![raw.iterations as f64; 4]);
    assert_eq!(calls.first().map(String::as_str), Some("setup"));
    assert_eq!(calls.last().map(String::as_str), Some("teardown"));
}

#[test]
fn experiment_value_replaces_time() {
    let (outcome, _) = measure(
        &harness(3),
        Fake {
            value: Some(42.0),
            plan: Some(Plan::Fixed(7)),
            ..Default::default()
        },
    );
    let Outcome::Measured(raw) = outcome else {
        panic!()
    };
    assert_eq!(raw.values, vec![42.0; 3]);
    assert_eq!(raw.iterations, 7);
}

#[test]
fn a_failing_run_is_recorded_and_torn_down() {
    let (outcome, calls) = measure(
        &harness(3),
        Fake {
            fail_in: Some("run"),
            ..Default::default()
        },
    );
    let Outcome::Failed(f) = outcome else {
        panic!()
    };
    assert!(f.error.contains("run broke"), "{}", f.error);
    assert_eq!(calls.last().map(String::as_str), Some("teardown"));
}

#[test]
fn a_failing_setup_still_tears_down() {
    let (outcome, calls) = measure(
        &harness(3),
        Fake {
            fail_in: Some("setup"),
            ..Default::default()
        },
    );
    let Outcome::Failed(f) = outcome else {
        panic!()
    };
    assert!(f.error.contains("setup"), "{}", f.error);
    assert_eq!(calls, vec!["setup", "teardown"]);
}

#[test]
fn a_panic_is_a_failure_not_a_crash() {
    let (outcome, calls) = measure(
        &harness(3),
        Fake {
            panic_in_run: true,
            ..Default::default()
        },
    );
    let Outcome::Failed(f) = outcome else {
        panic!()
    };
    assert!(f.error.contains("panicked: boom"), "{}", f.error);
    assert_eq!(calls.last().map(String::as_str), Some("teardown"));
}

#[test]
fn a_failing_teardown_fails_the_variant() {
    let (outcome, _) = measure(
        &harness(2),
        Fake {
            fail_in: Some("teardown"),
            ..Default::default()
        },
    );
    assert!(matches!(outcome, Outcome::Failed(f) if f.error.contains("teardown")));
}

#[test]
fn unsupported_is_skipped_with_the_reason_and_never_set_up() {
    let (outcome, calls) = measure(
        &harness(2),
        Fake {
            unsupported: true,
            ..Default::default()
        },
    );
    let Outcome::Skipped(s) = outcome else {
        panic!()
    };
    assert_eq!(s.reason, "needs a unicorn");
    assert!(calls.is_empty());
}

#[test]
fn overhead_is_measured_once_per_sample() {
    let (outcome, calls) = measure(
        &harness(3),
        Fake {
            overhead: true,
            plan: Some(Plan::Fixed(10)),
            ..Default::default()
        },
    );
    let Outcome::Measured(raw) = outcome else {
        panic!()
    };
    let (method, samples) = raw.overhead.expect("overhead samples");
    assert_eq!(method, "fake self-test");
    assert_eq!(samples, vec![1.0; 3]);
    // Interleaved: run, overhead, run, overhead, ...
    let body: Vec<&str> = calls
        .iter()
        .map(String::as_str)
        .filter(|c| *c != "setup" && *c != "teardown")
        .collect();
    assert_eq!(
        body,
        vec!["run", "overhead", "run", "overhead", "run", "overhead"]
    );
}

#[test]
fn pin_none_runs_unpinned() {
    let mut h = harness(2);
    h.config.pin = PinMode::None;
    let (outcome, _) = measure(&h, Fake::default());
    let Outcome::Measured(raw) = outcome else {
        panic!()
    };
    assert_eq!(raw.params.get_str("placement"), Some("unpinned"));
    assert!(raw.cpus.is_empty());
}

#[test]
fn cross_cpu_needs_two_cpus() {
    let h = harness(2);
    let (outcome, _) = measure(
        &h,
        Fake {
            placement: Some(Placement::CrossCpu),
            ..Default::default()
        },
    );
    match (h.host.cpus_allowed.len(), outcome) {
        (1, Outcome::Skipped(s)) => assert!(s.reason.contains("2 CPUs")),
        (n, Outcome::Measured(raw)) if n >= 2 => assert_eq!(raw.cpus.len(), 2),
        (n, other) => panic!("{n} CPUs gave {other:?}"),
    }
}

#[test]
fn cancellation_stops_the_run_and_tears_down() {
    let h = harness(5);
    h.cancel.cancel();
    let (outcome, calls) = measure(&h, Fake::default());
    assert!(matches!(outcome, Outcome::Failed(f) if f.error.contains("interrupted")));
    assert_eq!(calls.last().map(String::as_str), Some("teardown"));
}

#[test]
fn a_calibrated_sample_times_at_least_the_minimum_of_operations() {
    // An operation slower than the whole target sample still gets ten per sample, so a figure
    // "per operation" never rests on one or two (issue: contend.lock counted to 1 per sample).
    let h = harness(1);
    let (outcome, _) = measure(
        &h,
        Fake {
            op_cost: Some(std::time::Duration::from_millis(3)),
            ..Default::default()
        },
    );
    let Outcome::Measured(raw) = outcome else {
        panic!()
    };
    assert!(raw.calibrated);
    assert_eq!(raw.iterations, concbench_core::MIN_OPERATIONS_PER_SAMPLE);
}

#[test]
fn a_repetition_cap_applies_unless_the_user_chose_a_count() {
    let mut h = harness(8);
    h.config.repetitions = None; // quick default: 3
    let fake = || Fake {
        max_reps: Some(1),
        plan: Some(Plan::Fixed(3)),
        ..Default::default()
    };
    let (outcome, _) = measure(&h, fake());
    let Outcome::Measured(raw) = outcome else {
        panic!()
    };
    assert_eq!(raw.values.len(), 1, "capped at 1 sample per round");
    h.config.repetitions = Some(8);
    let (outcome, _) = measure(&h, fake());
    let Outcome::Measured(raw) = outcome else {
        panic!()
    };
    assert_eq!(raw.values.len(), 8, "--repeat wins over the cap");
}

#[test]
fn plan_once_takes_one_iteration_and_one_sample_unless_the_user_chose_a_count() {
    let mut h = harness(8);
    h.config.repetitions = None; // quick default: 3
    let once = || Fake {
        plan: Some(Plan::Once),
        ..Default::default()
    };
    let (outcome, _) = measure(&h, once());
    let Outcome::Measured(raw) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(raw.iterations, 1);
    assert_eq!(raw.values.len(), 1, "one sample per round");
    assert!(!raw.calibrated);
    h.config.repetitions = Some(4);
    let (outcome, _) = measure(&h, once());
    let Outcome::Measured(raw) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(raw.values.len(), 4, "--repeat wins over Plan::Once");
}

#[test]
fn usage_is_divided_by_the_operations_a_sample_reports() {
    // A load run of fixed duration: one "iteration", but as many requests as it completed.
    let partner = concbench_core::Usage {
        voluntary_switches: 1000.0,
        ..Default::default()
    };
    let per_op = |operations| {
        let f = Fake {
            plan: Some(Plan::Fixed(1)),
            extra_usage: Some(partner),
            operations,
            ..Default::default()
        };
        match measure(&harness(1), f).0 {
            Outcome::Measured(raw) => raw.usage_per_op[0].voluntary_switches,
            other => panic!("{other:?}"),
        }
    };
    assert!(per_op(None) >= 1000.0);
    let by_ops = per_op(Some(1000));
    assert!((1.0..2.0).contains(&by_ops), "{by_ops}");
}

#[test]
fn regression_unpinned_on_a_one_cpu_mask_is_recorded_and_pinned_as_same_cpu() {
    // Under `taskset -c 0`, 12 results said placement=unpinned with cpus [] though they could
    // only run on CPU 0, and `compare` matched them with unpinned results of a normal run.
    let mut h = harness(1);
    let mut host = (*h.host).clone();
    host.cpus_allowed = vec![host.cpus_allowed[0]];
    let only = host.cpus_allowed[0];
    h.host = Arc::new(host);
    let unpinned = || Fake {
        placement: Some(Placement::Unpinned),
        ..Default::default()
    };
    let (outcome, _) = measure(&h, unpinned());
    let Outcome::Measured(raw) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(raw.params.get_str("placement"), Some("same-cpu"));
    assert_eq!(raw.cpus, vec![only]);
    // With two CPUs allowed, unpinned stays unpinned.
    let two = concbench_measure::recorded_params(&unpinned(), PinMode::Auto, &[0, 1]);
    assert_eq!(two.get_str("placement"), Some("unpinned"));
    let none = concbench_measure::recorded_params(&unpinned(), PinMode::None, &[3]);
    assert_eq!(none.get_str("placement"), Some("same-cpu"));
}

/// Rounds of one setup (`Experiment::rounds_per_setup`: a warm server): set up once, a round per
/// call on what setup prepared, torn down once at the close; the setup's time goes to the first
/// round only, the one the planner prices the setup from.
#[test]
fn an_opened_variant_is_set_up_once_for_its_rounds_and_torn_down_once() {
    let h = harness(1);
    let mut f = Fake {
        plan: Some(Plan::Fixed(1)),
        setup_cost: Some(std::time::Duration::from_millis(30)),
        ..Default::default()
    };
    let calls = f.calls.clone();
    let mut opened = h.open(&mut f).expect("set up");
    let setups: Vec<f64> = (0..3)
        .map(|_| match opened.round(&mut |_| {}) {
            Outcome::Measured(raw) => raw.setup_s,
            other => panic!("{other:?}"),
        })
        .collect();
    opened.close().unwrap();
    assert!(setups[0] >= 0.03, "{setups:?}");
    assert_eq!(&setups[1..], &[0.0, 0.0]);
    let calls = calls.lock().unwrap().clone();
    assert_eq!(calls, ["setup", "run", "run", "run", "teardown"]);
}

#[test]
fn a_failed_round_of_an_opened_variant_is_a_failure_and_it_is_still_torn_down() {
    let h = harness(1);
    let mut f = Fake {
        plan: Some(Plan::Fixed(1)),
        fail_in: Some("run"),
        ..Default::default()
    };
    let calls = f.calls.clone();
    let mut opened = h.open(&mut f).expect("set up");
    let outcome = opened.round(&mut |_| {});
    assert!(
        matches!(&outcome, Outcome::Failed(e) if e.error.contains("run broke")),
        "{outcome:?}"
    );
    opened.close().unwrap();
    assert_eq!(
        calls.lock().unwrap().last().map(String::as_str),
        Some("teardown")
    );
}

/// A resident worker that returns early (a wrong job, a closed channel) drops what it opened:
/// the server it set up is still torn down.
#[test]
fn an_opened_variant_dropped_without_close_is_torn_down() {
    let h = harness(1);
    let mut f = Fake {
        plan: Some(Plan::Fixed(1)),
        ..Default::default()
    };
    let calls = f.calls.clone();
    {
        let mut opened = h.open(&mut f).expect("set up");
        let _ = opened.round(&mut |_| {});
    }
    let calls = calls.lock().unwrap().clone();
    assert_eq!(calls, ["setup", "run", "teardown"]);
}

#[test]
fn opening_a_variant_whose_setup_fails_is_its_first_outcome_and_tears_down() {
    let h = harness(1);
    let mut f = Fake {
        fail_in: Some("setup"),
        ..Default::default()
    };
    let calls = f.calls.clone();
    let outcome = match h.open(&mut f) {
        Err(outcome) => outcome,
        Ok(_) => panic!("a failed setup opened"),
    };
    assert!(
        matches!(&outcome, Outcome::Failed(e) if e.error.contains("setup broke")),
        "{outcome:?}"
    );
    assert_eq!(*calls.lock().unwrap(), ["setup", "teardown"]);
}
