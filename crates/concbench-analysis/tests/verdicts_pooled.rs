//! Verdicts over a host's history: pooling a check over runs on synthetic known inputs.

mod common;

use common::{around, noisy, result};
use concbench_analysis::verdicts::{judge, pool};
use concbench_core::{ResultDoc, VerdictKind::*};
use serde_json::json;

/// A run whose `create.fork / create.thread` ratio (S0.30x: about 30x, band [20, 45]) takes the
/// given per-round values, started at `at`.
fn run(ratios: Vec<f64>, at: &str) -> ResultDoc {
    let n = ratios.len();
    let fork = result(
        "create.fork",
        "us",
        &[("parent", json!("single-threaded"))],
        ratios.iter().map(|r| r * 10.0).collect(),
    );
    let thread = result(
        "create.thread",
        "us",
        &[("stack", json!("default"))],
        vec![10.0; n],
    );
    let mut d = concbench_analysis::synthetic::doc(vec![fork, thread]);
    d.started_at = at.into();
    d.verdicts = judge(&d);
    d
}

fn s030x(h: &concbench_core::History) -> &concbench_core::PooledVerdict {
    claim(h, "S0.30x")
}

fn claim<'a>(h: &'a concbench_core::History, source: &str) -> &'a concbench_core::PooledVerdict {
    h.verdicts.iter().find(|v| v.source == source).unwrap()
}

#[test]
fn runs_each_too_noisy_to_decide_confirm_together() {
    // Each run: eight rounds spread +-30% around 28x, so its own interval reaches below 20.
    let runs: Vec<ResultDoc> = (0..5)
        .map(|i| run(noisy(28.0, 8, 0.3), &format!("2026-11-2{i}T10:00:00Z")))
        .collect();
    let alone = runs[0]
        .verdicts
        .iter()
        .find(|v| v.source == "S0.30x")
        .unwrap();
    assert_eq!(alone.verdict, Inconclusive, "{}", alone.explanation);
    let others: Vec<&ResultDoc> = runs[1..].iter().collect();
    let h = pool(&runs[0], &others, vec![]).unwrap();
    let v = s030x(&h);
    assert_eq!((v.verdict, v.alone), (Confirmed, Inconclusive), "{v:?}");
    assert_eq!((v.runs, v.rounds), (5, 40));
    assert_eq!(
        (h.runs, h.span()),
        (5, "5 runs, 2026-11-20 … 2026-11-24".to_string())
    );
    assert_eq!(
        v.sentence(),
        "confirmed over 5 runs (40 rounds); this run alone: inconclusive"
    );
}

#[test]
fn runs_that_disagree_widen_the_pooled_interval() {
    // Three runs, each tight, at 22x, 30x and 42x: each alone is confirmed inside [20, 45]; the
    // run-level spread keeps the pooled interval wide, still inside the band here.
    let runs: Vec<ResultDoc> = [22.0, 30.0, 42.0]
        .iter()
        .enumerate()
        .map(|(i, r)| run(noisy(*r, 10, 0.02), &format!("2026-11-2{i}T10:00:00Z")))
        .collect();
    let others: Vec<&ResultDoc> = runs[1..].iter().collect();
    let h = pool(&runs[0], &others, vec![]).unwrap();
    let c = s030x(&h).checks.iter().find(|c| !c.beside).unwrap();
    let [lo, hi] = c.ci95.unwrap();
    assert!(lo < 22.0 && hi > 42.0, "{c:?}");
    assert!(c.tau.unwrap() > 0.2, "{c:?}");
    // The interval crosses 20 and 45: no decision from runs that disagree this much.
    assert_eq!(c.decision, Inconclusive);
}

#[test]
fn a_bimodal_figure_over_the_runs_decides_nothing() {
    // Half of the runs see 10x, half 30x: a median between them answers no question.
    let runs: Vec<ResultDoc> = (0..6)
        .map(|i| {
            let r = if i % 2 == 0 { 10.0 } else { 30.0 };
            run(noisy(r, 8, 0.05), &format!("2026-11-2{i}T10:00:00Z"))
        })
        .collect();
    let others: Vec<&ResultDoc> = runs[1..].iter().collect();
    let h = pool(&runs[0], &others, vec![]).unwrap();
    let c = s030x(&h).checks.iter().find(|c| !c.beside).unwrap();
    assert_eq!(c.decision, Inconclusive);
    assert_eq!(c.modes.len(), 2, "{c:?}");
    assert!((c.modes[0].share - 0.5).abs() < 1e-9);
    assert!(
        c.note.starts_with("bimodal over the runs (50% near"),
        "{}",
        c.note
    );
    // These rounds carry no idle-state evidence: the cause is said to be unknown.
    assert!(c.separation.starts_with("cause unknown"), "{c:?}");
    assert!(c.note.ends_with(&c.separation), "{}", c.note);
    assert_eq!(s030x(&h).verdict, Inconclusive);
}

#[test]
fn modes_whose_rounds_differ_in_halted_cpus_name_the_idle_state() {
    // The 30x runs' rounds each woke a halted CPU at most hand-overs, the 10x runs' at few.
    let runs: Vec<ResultDoc> = (0..6)
        .map(|i| {
            let (r, sleeps) = if i % 2 == 0 {
                (10.0, 0.02)
            } else {
                (30.0, 0.9)
            };
            let mut d = run(noisy(r, 8, 0.05), &format!("2026-11-2{i}T10:00:00Z"));
            for e in &mut d.results {
                for round in &mut e.rounds {
                    round.counters.insert("idle_sleeps_per_op".into(), sleeps);
                }
            }
            d
        })
        .collect();
    let others: Vec<&ResultDoc> = runs[1..].iter().collect();
    let h = pool(&runs[0], &others, vec![]).unwrap();
    let c = s030x(&h).checks.iter().find(|c| !c.beside).unwrap();
    assert_eq!(c.decision, Inconclusive);
    assert!(
        c.separation.starts_with("separated by idle state"),
        "{}",
        c.separation
    );
    assert!(c.separation.contains("halted at 0.90"), "{}", c.separation);
    assert!(c.separation.contains("halted at 0.02"), "{}", c.separation);
}

#[test]
fn one_run_alone_pools_to_its_own_verdict() {
    let d = run(noisy(30.0, 8, 0.05), "2026-11-20T10:00:00Z");
    let h = pool(&d, &[], vec!["another machine".into()]).unwrap();
    let v = s030x(&h);
    assert_eq!((v.verdict, v.alone, v.runs), (Confirmed, Confirmed, 1));
    assert_eq!(h.excluded, vec!["another machine".to_string()]);
    // A run without verdicts has nothing to pool.
    let mut empty = d.clone();
    empty.verdicts.clear();
    assert!(pool(&empty, &[&d], vec![]).is_none());
}

#[test]
fn a_run_that_did_not_measure_the_check_is_not_counted() {
    let a = run(noisy(30.0, 8, 0.05), "2026-11-20T10:00:00Z");
    let mut b = run(noisy(30.0, 8, 0.05), "2026-11-21T10:00:00Z");
    b.results.retain(|r| r.id != "create.fork");
    let h = pool(&a, &[&b], vec![]).unwrap();
    assert_eq!(s030x(&h).runs, 1);
    // The history still spans both runs.
    assert_eq!(h.runs, 2);
}

#[test]
fn pooling_copies_of_a_run_never_contradicts_its_own_decision() {
    // Property: runs that agree exactly put the pooled interval around the run's own median, so
    // a check the run confirmed is never refuted over the history, nor the reverse.
    let mut rng = fastrand::Rng::with_seed(30);
    for _ in 0..15 {
        let level = 5.0 + 70.0 * rng.f64();
        let spread = 0.02 + 0.4 * rng.f64();
        let rounds = 6 + rng.usize(..10);
        let copies = 2 + rng.usize(..4);
        let values: Vec<f64> = (0..rounds)
            .map(|_| level * (1.0 + spread * (rng.f64() - 0.5)))
            .collect();
        // Judged once: the copies differ only in their start.
        let first = run(values, "2026-11-20T10:00:00Z");
        let runs: Vec<ResultDoc> = (0..copies)
            .map(|i| {
                let mut d = first.clone();
                d.started_at = format!("2026-11-2{i}T10:00:00Z");
                d
            })
            .collect();
        let others: Vec<&ResultDoc> = runs[1..].iter().collect();
        let h = pool(&runs[0], &others, vec![]).unwrap();
        for c in s030x(&h).checks.iter() {
            let opposite = matches!(
                (c.alone, c.decision),
                (Confirmed, Refuted) | (Refuted, Confirmed)
            );
            assert!(!opposite, "level {level}, spread {spread}: {c:?}");
        }
    }
}

/// A run of S0.table.create_switch: the pipe hand-overs (process 1.3x a thread) and, when
/// `create` is given, the 100,000-unit batches at that ratio.
fn create_switch_run(create: Option<f64>, at: &str) -> ResultDoc {
    let switch = |id: &str, v: f64, spread: f64| {
        result(
            id,
            "ns",
            &[("sched", json!("other")), ("working_set_kib", json!(0))],
            noisy(v, 8, spread),
        )
    };
    let mut results = vec![
        switch("switch.pipe.process", 2600.0, 0.03),
        switch("switch.pipe.thread", 2000.0, 0.01),
    ];
    if let Some(ratio) = create {
        results.push(result(
            "create.process_100k",
            "s",
            &[],
            noisy(ratio, 8, 0.03),
        ));
        results.push(result("create.thread_100k", "s", &[], around(1.0, 8)));
    }
    let mut d = concbench_analysis::synthetic::doc(results);
    d.started_at = at.into();
    d.verdicts = judge(&d);
    d
}

#[test]
fn regression_a_run_measured_in_part_pooled_as_a_whole_lost_partly_judged() {
    // `--only switch.pipe` gave "S0.table.create_switch partly judged: refuted"; its pooled
    // line said "refuted over 11 runs" while every complete run said otherwise. Pooled now over
    // what the runs together measured: the creation check the complete runs measured is pooled
    // too, and the qualifier is kept while no run measured a deciding check.
    let part = create_switch_run(None, "2026-11-28T10:00:00Z");
    let alone = part
        .verdicts
        .iter()
        .find(|v| v.source == "S0.table.create_switch")
        .unwrap();
    assert_eq!(alone.judged(), concbench_core::Judged::Partly);
    // Pooled only with runs measured in part: still partly judged, and said.
    let others = [
        create_switch_run(None, "2026-11-27T10:00:00Z"),
        create_switch_run(None, "2026-11-26T10:00:00Z"),
    ];
    let refs: Vec<&ResultDoc> = others.iter().collect();
    let h = pool(&part, &refs, vec![]).unwrap();
    let v = claim(&h, "S0.table.create_switch");
    assert_eq!(v.judged, concbench_core::Judged::Partly, "{v:?}");
    assert!(
        v.sentence().starts_with("partly judged"),
        "{}",
        v.sentence()
    );
    assert!(
        v.sentence().contains("this run alone: partly judged"),
        "{}",
        v.sentence()
    );
    // Pooled with complete runs: the creation check is pooled over the runs that measured it,
    // and the claim is judged whole.
    let complete = [
        create_switch_run(Some(1.5), "2026-11-27T10:00:00Z"),
        create_switch_run(Some(1.5), "2026-11-26T10:00:00Z"),
        create_switch_run(Some(1.5), "2026-11-25T10:00:00Z"),
    ];
    let refs: Vec<&ResultDoc> = complete.iter().collect();
    let h = pool(&part, &refs, vec![]).unwrap();
    let v = claim(&h, "S0.table.create_switch");
    assert_eq!(v.judged, concbench_core::Judged::Whole, "{v:?}");
    let create = v
        .checks
        .iter()
        .find(|c| c.condition.starts_with("create and reap"))
        .expect("pooled from the runs that measured it");
    assert_eq!(create.runs, 3);
    assert!(
        create.note.contains("not measured in this run"),
        "{}",
        create.note
    );
    assert_eq!(
        (v.verdict, create.decision),
        (Confirmed, Confirmed),
        "{v:?}"
    );
}
