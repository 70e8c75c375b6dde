//! The run loop with a fake worker and a scripted machine: rounds, interleaving, adaptive
//! passes, the budget, interference and the validation gate, without processes or timing.

use concbench_core::{
    CancelToken, Failure, Host, Meta, Outcome, Params, RawMeasurement, RunMode, VerdictKind,
};
use concbench_measure::HarnessEvent;
use concbench_measure::PinMode;
use concbench_session::machine::CpuTimes;
use concbench_session::{
    run, run_passes, selection, Chosen, Machine, Observer, Registry, Rig, RoundRunner, RunPlan,
    RunRequest, Variant,
};
use std::cell::Cell;
use std::collections::HashMap;
use std::time::Duration;

/// Time advances only when a round runs (each round costs `round_s` of one CPU); something else
/// may keep `others` CPUs busy.
#[derive(Default)]
struct FakeMachine {
    t: Cell<f64>,
    busy: Cell<f64>,
    own: Cell<f64>,
    others: Cell<f64>,
}

impl FakeMachine {
    fn advance(&self, secs: f64) {
        self.t.set(self.t.get() + secs);
        self.own.set(self.own.get() + secs);
        self.busy
            .set(self.busy.get() + secs * (1.0 + self.others.get()));
    }
}

impl Machine for FakeMachine {
    fn now(&self) -> Duration {
        Duration::from_secs_f64(self.t.get())
    }
    fn cpu(&self) -> Option<CpuTimes> {
        Some(CpuTimes {
            busy: self.busy.get(),
            steal: 0.0,
            total: 2.0 * self.t.get(),
        })
    }
    fn own_cpu(&self) -> f64 {
        self.own.get()
    }
    fn sleep(&self, d: Duration) {
        self.t.set(self.t.get() + d.as_secs_f64());
        self.busy
            .set(self.busy.get() + d.as_secs_f64() * self.others.get());
    }
}

/// Each variant's value is `base * (1 + noise)`, with noise cycling through `noise`.
struct FakeRunner<'m> {
    machine: &'m FakeMachine,
    base: HashMap<String, f64>,
    noise: Vec<f64>,
    calls: Vec<String>,
    round_s: f64,
    /// Round times of particular variants (by label), in place of `round_s`.
    costs: HashMap<String, f64>,
    fail: Option<&'static str>,
    /// Other processes' load to switch on after this many rounds.
    interfere_at: Option<(usize, f64)>,
}

impl RoundRunner for FakeRunner<'_> {
    fn run(&mut self, v: &Variant, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome {
        on_event(HarnessEvent::Calibrating);
        let label = v.label();
        let n = self.calls.iter().filter(|c| **c == label).count();
        self.calls.push(label.clone());
        if let Some((at, load)) = self.interfere_at {
            self.machine
                .others
                .set(if self.calls.len() == at { load } else { 0.0 });
        }
        self.machine
            .advance(self.costs.get(&label).copied().unwrap_or(self.round_s));
        if self.fail == Some(v.meta.id) {
            return Outcome::Failed(Failure {
                id: v.meta.id.into(),
                params: v.params.clone(),
                error: "boom".into(),
            });
        }
        let base = self.base[&label];
        // Only the fork varies, so ratios against it vary too.
        let noise = if v.meta.id == "create.fork" {
            self.noise[n % self.noise.len()]
        } else {
            0.0
        };
        let value = base * (1.0 + noise);
        let mut raw = RawMeasurement::from_values(v.meta.clone(), v.params.clone(), vec![value; 3]);
        raw.cpus = vec![1];
        raw.iterations = 100;
        raw.calibrated = true;
        Outcome::Measured(Box::new(raw))
    }
}

#[derive(Default)]
struct Quiet {
    planned: usize,
    /// Every estimate told, in order.
    estimated: Vec<usize>,
}

impl Observer for Quiet {
    fn settling(&mut self, _: f64, _: Duration, _: Duration) {}
    fn planned(&mut self, rounds: usize) {
        self.planned = rounds;
    }
    fn estimated(&mut self, rounds: usize) {
        self.estimated.push(rounds);
    }
    fn round_started(&mut self, _: usize, _: &Variant) {}
    fn harness_event(&mut self, _: HarnessEvent) {}
    fn round_ended(&mut self) {}
    fn note(&mut self, _: &str) {}
}

const FORK: Meta = Meta {
    id: "create.fork",
    family: "create",
    title: "t",
    op: "o",
    unit: "ns",
    expected_switches_per_op: None,
};
const THREAD: Meta = Meta {
    id: "create.thread",
    family: "create",
    title: "t",
    op: "o",
    unit: "ns",
    expected_switches_per_op: None,
};
const OTHER: Meta = Meta {
    id: "create.vfork",
    family: "create",
    title: "t",
    op: "o",
    unit: "ns",
    expected_switches_per_op: None,
};

fn variants() -> Vec<Variant> {
    let p = |k: &str, v: &str| Params::new().with(k, v).with("placement", "same-cpu");
    vec![
        Variant {
            index: 0,
            meta: FORK,
            params: p("parent", "single-threaded"),
            paired: false,
            rounds_per_setup: 1,
        },
        Variant {
            index: 1,
            meta: OTHER,
            params: Params::new().with("placement", "same-cpu"),
            paired: false,
            rounds_per_setup: 1,
        },
        Variant {
            index: 2,
            meta: THREAD,
            params: p("stack", "default"),
            paired: false,
            rounds_per_setup: 1,
        },
    ]
}

fn runner<'m>(m: &'m FakeMachine, fork_over_thread: f64, noise: &[f64]) -> FakeRunner<'m> {
    let vs = variants();
    FakeRunner {
        machine: m,
        base: HashMap::from([
            (vs[0].label(), 40_000.0 * fork_over_thread),
            (vs[1].label(), 30_000.0),
            (vs[2].label(), 40_000.0),
        ]),
        noise: noise.to_vec(),
        calls: Vec::new(),
        round_s: 0.02,
        costs: HashMap::new(),
        fail: None,
        interfere_at: None,
    }
}

fn host() -> Host {
    Host {
        cpus_allowed: vec![0, 1],
        ..Host::default()
    }
}

fn plan() -> RunPlan {
    RunPlan {
        settle: Duration::ZERO,
        ..RunPlan::new(RunMode::Quick)
    }
}

/// A quiet, uncancelled run of `vs` under `plan` on the fakes.
fn run_with(
    plan: &RunPlan,
    vs: &[Variant],
    r: &mut FakeRunner<'_>,
    m: &FakeMachine,
) -> concbench_session::Finished {
    run_passes(
        vs,
        plan,
        &mut Rig {
            runner: r,
            machine: m,
            observer: &mut Quiet::default(),
            cancel: &CancelToken::new(),
            host: &host(),
        },
    )
}

/// A quiet, uncancelled quick run of `vs` on the fakes.
fn quick_run(
    vs: &[Variant],
    r: &mut FakeRunner<'_>,
    m: &FakeMachine,
) -> concbench_session::Finished {
    run_with(&plan(), vs, r, m)
}

fn verdict(out: &concbench_session::Finished, source: &str) -> VerdictKind {
    verdict_in(&out.doc.verdicts, source)
}

fn verdict_in(verdicts: &[concbench_core::Verdict], source: &str) -> VerdictKind {
    verdicts
        .iter()
        .find(|v| v.source == source)
        .unwrap()
        .verdict
}

/// The run's verdict on `source`.
fn verdict_on<'a>(
    out: &'a concbench_session::Finished,
    source: &str,
) -> &'a concbench_core::Verdict {
    out.doc
        .verdicts
        .iter()
        .find(|v| v.source == source)
        .unwrap()
}

/// The run's result `id`.
fn result<'a>(out: &'a concbench_session::Finished, id: &str) -> &'a concbench_core::ResultEntry {
    out.doc.results.iter().find(|e| e.id == id).unwrap()
}

/// How many rounds the result `id` rests on.
fn rounds_of(out: &concbench_session::Finished, id: &str) -> usize {
    result(out, id).rounds.len()
}

/// A full run's plan without the settling wait.
fn full_plan() -> RunPlan {
    RunPlan {
        settle: Duration::ZERO,
        ..RunPlan::new(RunMode::Full)
    }
}

#[test]
fn judged_variants_get_six_rounds_the_others_one_then_cheap_ones_an_interval() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0, 0.01, -0.01]);
    let out = quick_run(&variants(), &mut r, &m);
    let rounds = |id: &str| rounds_of(&out, id);
    assert_eq!(rounds("create.fork"), 6);
    assert_eq!(rounds("create.thread"), 6);
    // One base round, topped up to six because a round is cheap.
    assert_eq!(rounds("create.vfork"), 6);
    assert!(out.doc.results.iter().all(|e| e.summary.ci95.is_some()));
    assert_eq!(verdict(&out, "S0.30x"), VerdictKind::Refuted);
    let v = verdict_on(&out, "S0.30x");
    assert_eq!(v.rounds, Some(6));
    assert!(
        v.checks[0]
            .rule
            .contains("fork / thread within [20.0, 45.0]"),
        "{:?}",
        v.checks
    );
    assert!(v.robustness.unwrap() > 0.9);
}

#[test]
fn a_run_gives_a_variant_no_verdict_uses_one_round_until_the_verdicts_had_theirs() {
    for plan in [plan(), full_plan()] {
        verdicts_come_before_the_others_top_up(&plan);
    }
}

/// fork / thread 25x with 25% noise: six rounds leave S0.30x undecided, more decide it; the
/// vfork no verdict uses waits for them.
fn verdicts_come_before_the_others_top_up(plan: &RunPlan) {
    let m = FakeMachine::default();
    let mut r = runner(&m, 25.0, &[0.25, -0.25, 0.1, -0.1, 0.0]);
    let mut quiet = Quiet::default();
    let out = run_passes(
        &variants(),
        plan,
        &mut Rig {
            runner: &mut r,
            machine: &m,
            observer: &mut quiet,
            cancel: &CancelToken::new(),
            host: &host(),
        },
    );
    assert!(
        rounds_of(&out, "create.fork") > 6,
        "{}",
        rounds_of(&out, "create.fork")
    );
    assert_eq!(verdict(&out, "S0.30x"), VerdictKind::Confirmed);
    assert_eq!(quiet.planned, out.stats.rounds, "the plan counts what ran");
    // Regression: a progress bar's total climbed 77 -> 447 -> 1,024 as passes were planned.
    // The plan's total is told once, before the first round: two judged variants at their
    // base rounds and the other at its own.
    let base = 2 * plan.claim_rounds + plan.other_rounds;
    assert_eq!(quiet.estimated, vec![base]);
    // The vfork no verdict uses had one round in the base passes; its top-up to an interval
    // came only after the verdict's extra rounds.
    let vfork = &variants()[1].label();
    let second_vfork = r
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| *c == vfork)
        .nth(1);
    let last_fork = r.calls.iter().rposition(|c| *c == variants()[0].label());
    assert!(
        second_vfork.unwrap().0 > last_fork.unwrap(),
        "{:?}",
        r.calls
    );
    assert_eq!(rounds_of(&out, "create.vfork"), 6);
}

#[test]
fn a_full_runs_long_variant_no_verdict_uses_keeps_its_one_round() {
    let m = FakeMachine::default();
    // A long one (2 s a round: not cheap) keeps its one round.
    let mut r = runner(&m, 4.0, &[0.0, 0.01, -0.01]);
    r.round_s = 2.0;
    let out = run_with(&full_plan(), &variants(), &mut r, &m);
    assert_eq!(rounds_of(&out, "create.vfork"), 1);
    assert_eq!(rounds_of(&out, "create.fork"), 6);
    // `--rounds N` still means every variant gets N.
    let mut r = runner(&m, 4.0, &[0.0, 0.01, -0.01]);
    r.round_s = 2.0;
    let plan = full_plan().with_rounds(2);
    let out = run_with(&plan, &variants(), &mut r, &m);
    assert!(out.doc.results.iter().all(|e| e.rounds.len() >= 2));
}

const ANATOMY: Meta = Meta {
    id: "anatomy.transport",
    family: "anatomy",
    title: "t",
    op: "o",
    unit: "ns",
    expected_switches_per_op: None,
};

#[test]
fn regression_anatomy_levels_share_their_passes_so_each_layer_has_an_interval() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0, 0.01, -0.01]);
    let mut vs = variants();
    vs.push(Variant {
        index: 3,
        meta: ANATOMY,
        params: Params::new().with("placement", "same-cpu"),
        paired: true,
        rounds_per_setup: 1,
    });
    r.base.insert(vs[3].label(), 500.0);
    let out = quick_run(&vs, &mut r, &m);
    let passes = |id: &str| -> Vec<usize> {
        let e = result(&out, id);
        e.rounds.iter().map(|x| x.pass).take(6).collect()
    };
    // create.vfork no verdict uses: without the anatomy it gets passes 0-2 and a later top-up.
    assert_eq!(passes("create.vfork"), passes("anatomy.transport"));
    assert_eq!(passes("anatomy.transport"), (0..6).collect::<Vec<_>>());
}

#[test]
fn rounds_compared_by_a_verdict_are_measured_back_to_back_in_shuffled_order() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0]);
    run_with(
        &RunPlan {
            other_rounds: 6,
            ..plan()
        },
        &variants(),
        &mut r,
        &m,
    );
    // The verdict's six passes first (fork and thread, in either order), then the other's.
    let passes: Vec<&[String]> = r.calls[..12].chunks(2).collect();
    for pass in &passes {
        assert!(
            pass.iter().any(|c| c.starts_with("create.fork")),
            "{pass:?}"
        );
        assert!(
            pass.iter().any(|c| c.starts_with("create.thread")),
            "{pass:?}"
        );
    }
    assert!(
        r.calls[12..18]
            .iter()
            .all(|c| c.starts_with("create.vfork")),
        "{:?}",
        r.calls
    );
    let firsts: std::collections::HashSet<&String> = passes.iter().map(|p| &p[0]).collect();
    assert!(
        firsts.len() > 1,
        "the order changes between passes: {passes:?}"
    );
}

#[test]
fn an_undecided_verdict_that_more_rounds_can_decide_gets_them() {
    // fork / thread 25x (the band: 20-45x) with 25% noise: six rounds straddle 20x, more
    // rounds narrow the interval inside the band.
    let m = FakeMachine::default();
    let mut r = runner(&m, 25.0, &[0.25, -0.25, 0.1, -0.1, 0.0]);
    let out = quick_run(&variants(), &mut r, &m);
    let fork = result(&out, "create.fork");
    assert!(fork.rounds.len() > 6, "{}", fork.rounds.len());
    assert_eq!(verdict(&out, "S0.30x"), VerdictKind::Confirmed);
}

#[test]
fn regression_a_check_on_its_margin_is_not_measured_until_chance_decides_it() {
    // fork / thread right at the band's edge (20x) with 10% noise: more rounds would only
    // decide it when an interval happened to clear 20x. It stops early, inconclusive, and says
    // why.
    let m = FakeMachine::default();
    let mut r = runner(&m, 20.0, &[0.1, -0.1, 0.05, -0.05, 0.0]);
    let out = quick_run(&variants(), &mut r, &m);
    let fork = result(&out, "create.fork");
    assert!(
        fork.rounds.len() < plan().max_rounds,
        "{}",
        fork.rounds.len()
    );
    assert_eq!(verdict(&out, "S0.30x"), VerdictKind::Inconclusive);
    let v = verdict_on(&out, "S0.30x");
    assert!(
        v.checks
            .iter()
            .any(|c| c.note.contains("more rounds would not decide")),
        "{:?}",
        v.checks
    );
    assert!(
        said(&out).iter().any(|w| w.contains("S0.30x")),
        "{:?}",
        said(&out)
    );
}

#[test]
fn the_budget_stops_extra_rounds() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 20.0, &[0.1, -0.1, 0.05, -0.05, 0.0]);
    r.round_s = 1.0;
    let p = RunPlan {
        budget: Duration::from_secs(20),
        ..plan()
    };
    let out = run_with(&p, &variants(), &mut r, &m);
    let fork = result(&out, "create.fork");
    assert!(fork.rounds.len() < p.max_rounds, "{}", fork.rounds.len());
    assert!(m.now() <= Duration::from_secs(22), "{:?}", m.now());
}

#[test]
fn a_round_under_interference_is_left_out_and_replaced() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0, 0.01, -0.01]);
    r.round_s = 0.5;
    r.interfere_at = Some((2, 3.0));
    let out = quick_run(&variants(), &mut r, &m);
    let excluded: usize = out
        .doc
        .results
        .iter()
        .flat_map(|e| &e.rounds)
        .filter(|r| r.excluded.is_some())
        .count();
    assert!(excluded >= 1);
    // Every variant keeps its base rounds clean: six for a verdict's, one for the vfork.
    for e in &out.doc.results {
        let clean = e.rounds.iter().filter(|r| r.excluded.is_none()).count();
        let base = if e.id == "create.vfork" { 1 } else { 6 };
        assert!(clean >= base, "{} has {clean} clean rounds", e.id);
    }
    assert!(out
        .doc
        .results
        .iter()
        .any(|e| e.warnings.iter().any(|w| w.contains("left out"))));
}

#[test]
fn a_failed_variant_is_reported_failed_and_not_measured_again() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0]);
    r.fail = Some("create.vfork");
    let out = quick_run(&variants(), &mut r, &m);
    assert_eq!(out.doc.failures.len(), 1);
    assert!(out.doc.results.iter().all(|e| e.id != "create.vfork"));
    assert_eq!(
        r.calls
            .iter()
            .filter(|c| c.starts_with("create.vfork"))
            .count(),
        1
    );
}

#[test]
fn an_impossible_result_is_reported_invalid_not_judged() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0]);
    r.base.insert(variants()[2].label(), -40_000.0);
    let out = quick_run(&variants(), &mut r, &m);
    assert_eq!(out.doc.invalid.len(), 1);
    assert!(out.doc.invalid[0].reason.contains("negative"));
    assert!(
        out.doc.verdicts.iter().all(|v| v.source != "S0.30x"),
        "never judged on an invalid result"
    );
}

#[test]
fn ctrl_c_stops_between_rounds() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0]);
    let cancel = CancelToken::new();
    cancel.cancel();
    let out = run_passes(
        &variants(),
        &plan(),
        &mut Rig {
            runner: &mut r,
            machine: &m,
            observer: &mut Quiet::default(),
            cancel: &cancel,
            host: &host(),
        },
    );
    assert!(out.doc.interrupted && r.calls.is_empty());
}

#[test]
fn base_rounds_that_do_not_fit_the_budget_are_left_out_and_said() {
    // Rounds of 1 s: the verdict's first pass (fork and thread) takes 2 s; their five more
    // passes would take 10 s. Within a 20-s budget they fit in three quarters of the 18 s left;
    // within a 10-s one they do not: the check keeps one round each, and the run says so and
    // what budget would measure them, instead of overrunning.
    let short_warning = |budget: u64| {
        let m = FakeMachine::default();
        let mut r = runner(&m, 30.0, &[0.1, -0.1, 0.05, -0.05, 0.0]);
        r.round_s = 1.0;
        let p = RunPlan {
            budget: Duration::from_secs(budget),
            ..plan()
        };
        let out = run_with(&p, &variants(), &mut r, &m);
        assert!(m.now() <= Duration::from_secs(budget), "{:?}", m.now());
        (
            rounds_of(&out, "create.fork"),
            said(&out)
                .into_iter()
                .find(|w| w.contains("room for one round only")),
        )
    };
    let (rounds, w) = short_warning(20);
    assert!(rounds >= 6 && w.is_none(), "{rounds} {w:?}");
    let (rounds, w) = short_warning(10);
    assert_eq!(rounds, 1);
    let w = w.expect("a warning about the rounds left out");
    assert!(w.contains("2 figures (deciding S0.30x"), "{w}");
    assert!(w.contains("not the 6 an interval needs"), "{w}");
    assert!(w.contains("--budget 60"), "{w}");
}

#[test]
fn regression_replicate_s2_quick_left_its_deciding_servers_at_one_round() {
    // `replicate S2 --quick` (2026-11-27): the articles' servers cost seconds a round and the
    // quick budget left S2.blocking's at one round. With `grow_to`, the budget grows after the
    // first pass so that the deciding sets get their six rounds, up to the cap, and says so.
    // Here: rounds of 1 s, a 10-s budget (which alone leaves fork and thread at one round, as
    // the test above shows), allowed to grow to 30 s.
    let m = FakeMachine::default();
    let mut r = runner(&m, 30.0, &[0.1, -0.1, 0.05, -0.05, 0.0]);
    r.round_s = 1.0;
    let p = RunPlan {
        budget: Duration::from_secs(10),
        grow_to: Some(Duration::from_secs(30)),
        ..plan()
    };
    let out = run_with(&p, &variants(), &mut r, &m);
    assert!(rounds_of(&out, "create.fork") >= 6);
    assert!(m.now() <= Duration::from_secs(30), "{:?}", m.now());
    let grew = said(&out)
        .into_iter()
        .find(|w| w.contains("the budget grew from 10 s"));
    assert!(grew.is_some(), "{:?}", said(&out));
    assert!(!said(&out)
        .iter()
        .any(|w| w.contains("room for one round only")));
    // Capped below what the sets need, it grows to the cap and no further.
    let m = FakeMachine::default();
    let mut r = runner(&m, 30.0, &[0.1, -0.1, 0.05, -0.05, 0.0]);
    r.round_s = 1.0;
    let capped = RunPlan {
        grow_to: Some(Duration::from_secs(11)),
        ..p
    };
    let out = run_with(&capped, &variants(), &mut r, &m);
    assert!(m.now() <= Duration::from_secs(11), "{:?}", m.now());
    assert_eq!(rounds_of(&out, "create.fork"), 1);
}

#[test]
fn regression_a_full_run_on_a_slow_host_took_over_ten_minutes() {
    // The base passes used to run every variant once and then the judged ones, whatever the
    // budget: on a slowed host a full run took 604 s. A variant no verdict reads gets its round
    // only while the budget lasts. Rounds of 1 s, a 2-s budget: fork and thread take their
    // first rounds, the vfork is skipped and says how to get it.
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0, 0.01, -0.01]);
    r.round_s = 1.0;
    let p = RunPlan {
        budget: Duration::from_secs(2),
        ..plan()
    };
    let out = run_with(&p, &variants(), &mut r, &m);
    assert_eq!(rounds_of(&out, "create.fork"), 1);
    assert!(out.doc.results.iter().all(|e| e.id != "create.vfork"));
    let vfork = out.doc.skipped.iter().find(|s| s.id == "create.vfork");
    let reason = &vfork.expect("the vfork is reported skipped").reason;
    assert!(reason.contains("budget (2 s)"), "{reason}");
    assert!(reason.contains("--only create.vfork"), "{reason}");
    assert!(
        said(&out)
            .iter()
            .any(|w| w.starts_with("1 figure no verdict reads was not measured")),
        "{:?}",
        said(&out)
    );
    assert_eq!(m.now(), Duration::from_secs(2));
}

const PROBE_PROCESS: Meta = Meta {
    id: "probes.c.process_100k",
    family: "probes",
    title: "t",
    op: "o",
    unit: "ns",
    expected_switches_per_op: None,
};
const PROBE_THREAD: Meta = Meta {
    id: "probes.c.thread_100k",
    ..PROBE_PROCESS
};

#[test]
fn regression_a_full_run_spent_618_s_of_its_540_s_budget_on_base_rounds() {
    // The planner on known costs. A full run's verdicts read a cheap check (S0.30x: fork and
    // thread, 1 s a round) and a dear one (S0.create on the C programs: 50 s a round each). The
    // first pass takes 102 s; six rounds of everything would take 612 s, past the 540-s budget
    // (as the recorded full run did: 618 s of base rounds, 623 s in all). Now the dear check
    // keeps its one round, the cheap one (25x with 25% noise: six rounds straddle 20x) gets its
    // six and the adaptive rounds that decide it, and the run ends within its budget.
    let m = FakeMachine::default();
    let mut r = runner(&m, 25.0, &[0.25, -0.25, 0.1, -0.1, 0.0]);
    r.round_s = 1.0;
    let mut vs = variants();
    for (index, meta) in [(3, PROBE_PROCESS), (4, PROBE_THREAD)] {
        let v = Variant {
            index,
            meta,
            params: Params::new().with("placement", "same-cpu"),
            paired: false,
            rounds_per_setup: 1,
        };
        r.base.insert(v.label(), 1e5);
        r.costs.insert(v.label(), 50.0);
        vs.push(v);
    }
    let out = run_with(&full_plan(), &vs, &mut r, &m);
    assert!(m.now() <= full_plan().budget, "{:?}", m.now());
    assert_eq!(rounds_of(&out, "probes.c.process_100k"), 1);
    assert_eq!(rounds_of(&out, "probes.c.thread_100k"), 1);
    assert!(
        rounds_of(&out, "create.fork") > 6,
        "the adaptive rounds ran"
    );
    assert_eq!(verdict(&out, "S0.30x"), VerdictKind::Confirmed);
    assert_eq!(verdict(&out, "S0.create"), VerdictKind::Inconclusive);
    let w = said(&out)
        .into_iter()
        .find(|w| w.contains("room for one round only"))
        .expect("the run says what it left out");
    assert!(w.contains("2 figures (deciding S0.create)"), "{w}");
    // 540 s + 500 s of rounds left out, over the 0.85 of the budget beside the reserve kept
    // for adaptive rounds: 1224 s.
    assert!(w.contains("--budget 1260"), "{w}");
}

#[test]
fn a_smoke_run_measures_every_variant_once_and_says_nothing_of_budgets() {
    // Regression: with the budget bounding the others' rounds, a smoke plan's zero budget
    // skipped every variant no verdict uses; and its one-round cap made every verdict "still
    // inconclusive when the budget or the round cap was reached", a warning with no remedy.
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0]);
    let p = RunPlan::new(RunMode::Smoke);
    let out = run_with(&p, &variants(), &mut r, &m);
    assert_eq!(out.doc.results.len(), 3);
    assert!(out.doc.results.iter().all(|e| e.rounds.len() == 1));
    assert!(out.doc.skipped.is_empty(), "{:?}", out.doc.skipped);
    assert!(
        said(&out).iter().all(|w| !w.contains("budget")),
        "{:?}",
        said(&out)
    );
}

/// A registry variant that only describes itself: the fake runner measures it.
struct Described(Meta, Params);

impl concbench_core::Experiment for Described {
    fn meta(&self) -> &Meta {
        &self.0
    }
    fn params(&self) -> Params {
        self.1.clone()
    }
    fn run(
        &mut self,
        _: &concbench_core::RunContext,
        _: u64,
        _: &mut dyn concbench_core::SampleTimer,
    ) -> anyhow::Result<concbench_core::RunOutput> {
        unreachable!("the fake runner measures, not the experiment")
    }
}

/// The registry of [`variants`], placement left to the request.
struct FakeRegistry;

impl FakeRegistry {
    fn experiments() -> Vec<Box<dyn concbench_core::Experiment>> {
        let strip = |p: &Params| {
            let mut p = p.clone();
            p.0.remove("placement");
            p
        };
        variants()
            .into_iter()
            .map(|v| Box::new(Described(v.meta, strip(&v.params))) as _)
            .collect()
    }
}

impl Registry for FakeRegistry {
    fn all(&self) -> Vec<Box<dyn concbench_core::Experiment>> {
        Self::experiments()
    }
    fn select(&self, _: &[String]) -> anyhow::Result<Vec<Chosen>> {
        Ok(Self::experiments().into_iter().enumerate().collect())
    }
    fn at(&self, index: usize) -> Option<Box<dyn concbench_core::Experiment>> {
        Self::experiments().into_iter().nth(index)
    }
}

#[test]
fn a_request_comes_back_as_a_finished_document_with_its_settings_and_stats() {
    let m = FakeMachine::default();
    let mut r = runner(&m, 4.0, &[0.0, 0.01, -0.01]);
    let mut request = RunRequest::new(RunMode::Quick, PinMode::Auto, vec![0, 1]);
    request.plan = plan();
    request.settings.insert("only".into(), "create".into());
    let chosen = selection::prepare(FakeRegistry.select(&[]).unwrap(), &request);
    let h = host();
    let rig = Rig {
        runner: &mut r,
        machine: &m,
        observer: &mut Quiet::default(),
        cancel: &CancelToken::new(),
        host: &h,
    };
    let finished = run(&request, &chosen, &FakeRegistry, rig);
    let doc = &finished.doc;
    assert_eq!(doc.results.len(), 3);
    assert_eq!(doc.mode(), RunMode::Quick);
    assert_eq!(doc.max_rounds(), request.plan.max_rounds);
    assert_eq!(
        doc.settings["only"], "create",
        "the command's settings are kept"
    );
    assert_eq!(doc.settings["pin"], "auto");
    assert!(finished.stats.rounds >= 3 * request.plan.claim_rounds);
    assert!(finished.stats.passes > 0);
    // Judged as the session's own run judges the same rounds (fork / thread 4x: refuted).
    assert_eq!(verdict_in(&doc.verdicts, "S0.30x"), VerdictKind::Refuted);
    // A three-variant registry cannot serve the published claims: every other claim's rule
    // names a result this build does not have, and the document says so.
    assert!(doc
        .warnings
        .iter()
        .any(|w| matches!(w, concbench_core::RunWarning::BrokenSelector { .. })));
}

/// The run's warnings as said.
fn said(out: &concbench_session::Finished) -> Vec<String> {
    out.doc.warnings.iter().map(ToString::to_string).collect()
}
