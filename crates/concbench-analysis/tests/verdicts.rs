//! Every claim's rule on synthetic documents, one test per outcome it can reach: the rules in
//! `data/published.toml` decide as their numbers say, a small or noisy sample is inconclusive —
//! never refuted — and a claim without its evidence is not judged.

mod common;

use common::*;
use concbench_analysis::synthetic::doc;
use concbench_analysis::verdicts::judge;
use concbench_core::{ResultDoc, ResultEntry, VerdictKind};
use serde_json::json;
use VerdictKind::*;

fn batches(process: Vec<f64>, thread: Vec<f64>) -> Vec<ResultEntry> {
    vec![
        result("create.process_100k", "ns", &[], process),
        result("create.thread_100k", "ns", &[], thread),
    ]
}

fn fork_thread(fork: Vec<f64>, thread: Vec<f64>) -> Vec<ResultEntry> {
    vec![
        result(
            "create.fork",
            "ns",
            &[("parent", json!("single-threaded"))],
            fork,
        ),
        result(
            "create.thread",
            "ns",
            &[("stack", json!("default"))],
            thread,
        ),
    ]
}

// ---- S0.30x: the space far less (kernel memory, at least 2x); creation and switching beside.

fn kernel_doc(process_kib: f64, thread_kib: f64, rounds: usize) -> Vec<ResultEntry> {
    let unit = |id: &str, params: &[(&str, serde_json::Value)], kib: f64| {
        counter(
            result(id, "KiB", params, around(30.0, rounds)),
            "kernel_kib_per_unit",
            &around(kib, rounds),
        )
    };
    vec![
        unit("memory.process", &[("units", json!(1000))], process_kib),
        unit(
            "memory.thread",
            &[("units", json!(1000)), ("stack", json!("default"))],
            thread_kib,
        ),
    ]
}

#[test]
fn s0_30x_far_confirmed_refuted_and_inconclusive() {
    assert_eq!(
        decision(&doc(kernel_doc(64.0, 19.0, 8)), "S0.30x.far"),
        Confirmed
    );
    let v = verdict(&doc(kernel_doc(30.0, 20.0, 8)), "S0.30x.far");
    assert_eq!(v.verdict, Refuted);
    assert!(v.checks[0].rule.contains(">= 2.00"), "{:?}", v.checks);
    // The switch is shown beside, never deciding.
    let mut r = kernel_doc(64.0, 19.0, 8);
    r.extend(vec![
        result("switch.alone.process", "ns", &[], around(1900.0, 8)),
        result("switch.alone.thread", "ns", &[], around(1800.0, 8)),
    ]);
    let v = verdict(&doc(r), "S0.30x.far");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(v.checks[1].beside && v.checks[1].decision == Refuted);
}

#[test]
fn s0_30x_far_with_too_few_rounds_is_inconclusive_never_refuted() {
    let v = verdict(&doc(kernel_doc(30.0, 20.0, 3)), "S0.30x.far");
    assert_eq!(v.verdict, Inconclusive);
    assert!(
        v.checks[0].note.contains("no 95% interval"),
        "{:?}",
        v.checks[0]
    );
}

#[test]
fn s0_30x_is_judged_on_creation_and_the_c_programs_are_beside() {
    let d = doc(fork_thread(around(1_200_000.0, 8), around(40_000.0, 8)));
    assert_eq!(decision(&d, "S0.30x"), Confirmed);
    let mut r = fork_thread(around(170_000.0, 8), around(40_000.0, 8));
    r.extend(vec![
        result("probes.c.process_100k", "ns", &[], around(720_000.0, 8)),
        result("probes.c.thread_100k", "ns", &[], around(24_000.0, 8)),
    ]);
    let v = verdict(&doc(r), "S0.30x");
    assert_eq!(v.verdict, Refuted);
    assert!(
        v.checks[0].rule.contains("within [20.0, 45.0]"),
        "{:?}",
        v.checks
    );
    assert!(v.checks[1].beside && v.checks[1].decision == Confirmed);
    // A hedged figure S0 quotes: the refutation says the hedge allowed it.
    assert!(
        v.explanation.contains("the quoted sentence allows for"),
        "{}",
        v.explanation
    );
    // Right at the band's edge with noise: the interval straddles 20.
    let d = doc(fork_thread(noisy(800_000.0, 8, 0.15), around(40_000.0, 8)));
    assert_eq!(decision(&d, "S0.30x"), Inconclusive);
}

#[test]
fn s0_create_confirmed_and_refuted() {
    let batch = |p: f64, t: f64| {
        doc(vec![
            result("create.process_100k", "ns", &[], around(p, 6)),
            result("create.thread_100k", "ns", &[], around(t, 6)),
        ])
    };
    assert_eq!(
        decision(&batch(130_000.0, 10_000.0), "S0.create"),
        Confirmed
    );
    assert_eq!(decision(&batch(140_000.0, 35_000.0), "S0.create"), Refuted);
}

// ---- S0.table.create_switch and memory_cpu: conditions decided differently depend.

#[test]
fn create_switch_depends_when_only_creation_differs() {
    let mut r = batches(around(170_000.0, 8), around(40_000.0, 8));
    r.push(pipe("switch.pipe.process", around(2500.0, 8)));
    r.push(pipe("switch.pipe.thread", around(2480.0, 8)));
    let v = verdict(&doc(r), "S0.table.create_switch");
    assert_eq!(v.verdict, Depends, "{}", v.explanation);
    assert_eq!(v.checks.len(), 2);
    assert_eq!(
        (v.checks[0].decision, v.checks[1].decision),
        (Confirmed, Refuted)
    );
}

#[test]
fn create_switch_confirmed_when_both_differ_and_refuted_when_neither_does() {
    let mut r = batches(around(170_000.0, 8), around(40_000.0, 8));
    r.push(pipe("switch.pipe.process", around(4000.0, 8)));
    r.push(pipe("switch.pipe.thread", around(2500.0, 8)));
    assert_eq!(decision(&doc(r), "S0.table.create_switch"), Confirmed);
    let mut r = batches(around(41_000.0, 8), around(40_000.0, 8));
    r.push(pipe("switch.pipe.process", around(2500.0, 8)));
    r.push(pipe("switch.pipe.thread", around(2500.0, 8)));
    assert_eq!(decision(&doc(r), "S0.table.create_switch"), Refuted);
}

#[test]
fn regression_a_plain_order_is_judged_at_its_5_percent_not_a_default_15() {
    // "切换复杂,速度慢" names no size: a 7% slower process switch is slower (the old global 15%
    // refuted it), a 2% one is not.
    let switch = |ratio: f64| {
        let mut r = batches(around(170_000.0, 8), around(40_000.0, 8));
        r.push(pipe("switch.pipe.process", around(2700.0 * ratio, 8)));
        r.push(pipe("switch.pipe.thread", around(2700.0, 8)));
        verdict(&doc(r), "S0.table.create_switch")
    };
    let v = switch(1.07);
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(v.checks[1].rule.contains(">= 1.05"), "{:?}", v.checks[1]);
    assert_eq!(switch(1.02).verdict, Depends);
}

// ---- S2.switch_order: all parts must hold.

fn order_doc(process: Vec<f64>, thread: Vec<f64>, coroutine: Vec<f64>) -> ResultDoc {
    doc(vec![
        pipe("switch.pipe.process", process),
        pipe("switch.pipe.thread", thread),
        result("switch.coroutine", "ns", &[], coroutine),
    ])
}

#[test]
fn switch_order_confirmed_refuted_inconclusive() {
    let d = order_doc(around(4000.0, 8), around(2500.0, 8), around(2.0, 8));
    assert_eq!(decision(&d, "S2.switch_order"), Confirmed);
    let d = order_doc(around(2500.0, 8), around(2500.0, 8), around(2.0, 8));
    let v = verdict(&d, "S2.switch_order");
    assert_eq!(v.verdict, Refuted, "{}", v.explanation);
    assert!(v.explanation.contains("PCID"), "{}", v.explanation);
    let d = order_doc(noisy(2900.0, 8, 0.4), around(2500.0, 8), around(2.0, 8));
    assert_eq!(decision(&d, "S2.switch_order"), Inconclusive);
}

#[test]
fn regression_three_rounds_at_a_1000x_gap_never_refute_that_coroutines_switch_faster() {
    // With MIN_SAMPLES = 3 the old rank test could never reach p < 0.05 and refuted.
    let d = order_doc(around(4000.0, 3), around(2500.0, 3), around(2.5, 3));
    let v = verdict(&d, "S2.switch_order");
    assert_eq!(v.verdict, Inconclusive, "{}", v.explanation);
    assert!(v.checks.iter().all(|c| c.decision != Refuted));
}

// ---- S3.switch: the relations the seed drew decide; its absolute figures are shown beside.

fn s3_doc(process: f64, thread: f64, syscall: f64) -> ResultDoc {
    doc(vec![
        pipe("switch.pipe.process", around(process, 8)),
        pipe("switch.pipe.thread", around(thread, 8)),
        result("syscall.getppid", "ns", &[], around(syscall, 8)),
    ])
}

#[test]
fn s3_confirmed_when_a_switch_costs_more_than_a_system_call() {
    let v = verdict(&s3_doc(2600.0, 2550.0, 230.0), "S3.switch");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    // The one relation the seed drew, on concbench's hand-over (the article's programs are
    // absent); the thread/process equality and the system call's 200 ns beside.
    let deciding: Vec<_> = v.checks.iter().filter(|c| !c.beside).collect();
    assert_eq!(deciding.len(), 1, "{:?}", v.checks);
    assert!(deciding[0].condition.contains("system call"));
    let syscall = check(&v, "200 ns");
    assert!(
        syscall.beside && syscall.note.contains("1.15x the article's"),
        "{syscall:?}"
    );
}

/// Regression: 「线程和进程测试差不多」 says how the thread test was built, not what a switch
/// costs, yet it decided that a thread switch costs what a process switch does: a thread
/// hand-over 1.5x a process's made S3 "depends".
#[test]
fn regression_the_thread_process_equality_is_shown_beside_never_deciding() {
    let v = verdict(&s3_doc(2600.0, 4000.0, 230.0), "S3.switch");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    let eq = check(&v, "beside: a thread hand-over");
    assert!(eq.beside && eq.decision == Refuted, "{eq:?}");
}

#[test]
fn s3_refuted_when_nothing_holds() {
    let v = verdict(&s3_doc(2600.0, 5200.0, 5000.0), "S3.switch");
    assert_eq!(v.verdict, Refuted, "{}", v.explanation);
}

#[test]
fn s3_the_articles_programs_decide_and_the_ring_is_beside() {
    let mut d = s3_doc(2600.0, 2550.0, 230.0);
    let mut ring = result("probes.c.ring", "ns", &[], around(5200.0, 8));
    ring = counter(ring, "selftest_ns", &[1300.0; 8]);
    d.results.push(ring);
    d.results
        .push(result("probes.c.pipe_token", "ns", &[], around(2600.0, 8)));
    let v = verdict(&d, "S3.switch");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    let decider = check(&v, "the article's own pipe-token program");
    assert!(
        !decider.beside && decider.decision == Confirmed,
        "{decider:?}"
    );
    let ring = v
        .checks
        .iter()
        .find(|c| {
            c.condition
                .contains("the ring's hop over the pipe token's pass")
        })
        .unwrap();
    assert!(ring.beside && ring.decision == Refuted, "{ring:?}");
    let implied = check(&v, "1.84 µs");
    assert_eq!(implied.estimate, Some(3.9), "{implied:?}");
}

// ---- S1.alternate.

fn alternate_doc(single: f64, alternate: f64) -> ResultDoc {
    doc(vec![
        result("contend.single", "ns", &[], around(single, 8)),
        result(
            "contend.alternate",
            "ns",
            &[
                ("placement", json!("unpinned")),
                ("event", json!("eventfd")),
            ],
            around(alternate, 8),
        ),
    ])
}

#[test]
fn s1_orders_of_magnitude_decide_and_the_factor_is_beside() {
    assert_eq!(
        decision(&alternate_doc(4.0, 1600.0), "S1.alternate"),
        Confirmed
    );
    // 15,700x: far from the article's 385x, which is its machine's ratio, not its claim.
    let v = verdict(&alternate_doc(0.7, 11_000.0), "S1.alternate");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    let factor = check(&v, "385x");
    assert!(factor.beside && factor.decision == Refuted, "{factor:?}");
    assert_eq!(
        decision(&alternate_doc(100.0, 1000.0), "S1.alternate"),
        Refuted
    );
}

// ---- S0.print: the paper's crossover, and the author's "the same".

fn print_doc(ratio_at: impl Fn(u64) -> f64) -> ResultDoc {
    let mut results = Vec::new();
    for count in [10u64, 100, 1000, 5000] {
        for (model, s) in [("process", 0.1), ("thread", 0.1 * ratio_at(count))] {
            let p = [
                ("model", json!(model)),
                ("workers", json!(255)),
                ("count", json!(count)),
                ("line_bytes", json!(12)),
                ("sink", json!("pipe")),
                ("placement", json!("same-cpu")),
                ("writer", json!("write")),
            ];
            results.push(result("workload.print", "s", &p, around(s, 8)));
        }
    }
    doc(results)
}

#[test]
fn s0_print_is_judged_as_a_crossover_with_where_it_falls() {
    // The article's own shape: threads ahead below COUNT 1000, processes ahead from 1000 on.
    let v = verdict(
        &print_doc(|c| if c < 1000 { 0.87 } else { 1.2 }),
        "S0.print",
    );
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    let deciding: Vec<&str> = v
        .checks
        .iter()
        .filter(|c| !c.beside)
        .map(|c| c.condition.as_str())
        .collect();
    assert_eq!(deciding.len(), 3, "{deciding:?}");
    assert!(deciding[0].starts_with("threads lead, a small job: COUNT = 10,"));
    assert!(deciding[2].starts_with("processes lead, a large job: COUNT = 5000,"));
    // Where the lead changes hands is shown, from the checks beside the crossing too.
    assert!(
        v.explanation.contains("cross between COUNT 100 and 1000"),
        "{}",
        v.explanation
    );
    assert!(v.explanation.contains("at 600"), "{}", v.explanation);
    // Threads ahead at both ends: no crossover.
    let v = verdict(&print_doc(|_| 0.5), "S0.print");
    assert_eq!(v.verdict, Refuted, "{}", v.explanation);
    assert!(v.explanation.contains("neither model overtakes"));
    // The crossing elsewhere than the paper's 600 still confirms: its place is shown.
    let v = verdict(&print_doc(|c| if c < 5000 { 0.8 } else { 1.3 }), "S0.print");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(v.explanation.contains("between COUNT 1000 and 5000"));
    assert_eq!(
        decision(&print_doc(|c| if c < 1000 { 1.2 } else { 0.5 }), "S0.print"),
        Refuted
    );
}

#[test]
fn s0_print_same_is_within_the_authors_own_widest_gap() {
    // His table's gaps, 12-30%, are "the same": so are they here.
    let d = print_doc(|c| if c < 1000 { 0.72 } else { 1.25 });
    assert_eq!(decision(&d, "S0.print.same"), Confirmed);
    let v = verdict(
        &print_doc(|c| if c < 1000 { 0.4 } else { 1.0 }),
        "S0.print.same",
    );
    assert_eq!(v.verdict, Depends, "{}", v.explanation);
    assert!(
        v.checks[0].rule.contains("equal within 43%"),
        "{}",
        v.checks[0].rule
    );
}

// ---- S0.table.reliability: counters, per round.

fn crash_doc(process_survived: f64, thread_survived: f64) -> ResultDoc {
    let e = |model: &str, survived: f64| {
        counter(
            result(
                "isolation.crash",
                "tasks",
                &[("model", json!(model))],
                around(1.0, 8),
            ),
            "pool_survived",
            &[survived; 8],
        )
    };
    doc(vec![
        e("process", process_survived),
        e("thread", thread_survived),
    ])
}

#[test]
fn reliability_confirmed_refuted_depends() {
    assert_eq!(
        decision(&crash_doc(1.0, 0.0), "S0.table.reliability"),
        Confirmed
    );
    assert_eq!(
        decision(&crash_doc(0.0, 1.0), "S0.table.reliability"),
        Refuted
    );
    assert_eq!(
        decision(&crash_doc(1.0, 1.0), "S0.table.reliability"),
        Depends
    );
}

// ---- S0.table.sharing: one condition per message size.

fn share_doc(ratios: &[(u64, f64)]) -> ResultDoc {
    let mut r = Vec::new();
    for (bytes, ratio) in ratios {
        let b = [("bytes", json!(bytes))];
        r.push(result(
            "share.shm.process",
            "ns",
            &b,
            around(5000.0 * ratio, 8),
        ));
        r.push(result("share.memory.thread", "ns", &b, around(5000.0, 8)));
    }
    doc(r)
}

#[test]
fn sharing_is_not_judged_its_row_is_about_programming() {
    let d = share_doc(&[(64, 0.7), (4194304, 1.65)]);
    assert!(judge(&d).iter().all(|v| v.source != "S0.table.sharing"));
}

// ---- S0.table.distribution: a ratio of two speed-ups.

fn scaling_doc(process_speedup: f64, thread_speedup: f64) -> ResultDoc {
    let mut r = Vec::new();
    for (model, speedup) in [("process", process_speedup), ("thread", thread_speedup)] {
        for (placement, s) in [("same-cpu", 0.08), ("unpinned", 0.08 / speedup)] {
            let p = [
                ("model", json!(model)),
                ("workers", json!(255)),
                ("count", json!(1000)),
                ("line_bytes", json!(12)),
                ("sink", json!("devnull")),
                ("placement", json!(placement)),
                ("writer", json!("write")),
            ];
            r.push(result("workload.print", "s", &p, around(s, 8)));
        }
    }
    doc(r)
}

#[test]
fn distribution_is_not_judged_on_one_host() {
    assert!(judge(&scaling_doc(1.8, 1.2))
        .iter()
        .all(|v| v.source != "S0.table.distribution"));
}

// ---- S2.blocking and S2.memory.

fn blocking_doc(tokio: f64, naive: f64, timer: f64) -> ResultDoc {
    let e = |design: &str, v: f64| {
        result(
            "server.blocking",
            "req/s",
            &[("design", json!(design)), ("placement", json!("cross-cpu"))],
            around(v, 8),
        )
    };
    doc(vec![
        e("tokio-multi", tokio),
        e("epoll-naive-blocking", naive),
        e("epoll", timer),
    ])
}

#[test]
fn s2_blocking_confirmed_refuted() {
    assert_eq!(
        decision(&blocking_doc(600.0, 100.0, 300.0), "S2.blocking"),
        Confirmed
    );
    // 800x: far beyond the article's "about 6x", which no longer decides (a blocked loop's rate
    // is its loop count times 100 by Little's law): more requests/s decides.
    let v = verdict(&blocking_doc(74_000.0, 93.0, 93_000.0), "S2.blocking");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(v.explanation.contains("Little's law"), "{}", v.explanation);
    assert_eq!(
        decision(&blocking_doc(100.0, 100.0, 100.0), "S2.blocking"),
        Refuted
    );
}

#[test]
fn s2_memory_reads_the_pss_counter() {
    let scenario = |id: &str, design: &str, pss: f64| {
        let mut params = vec![("design", json!(design))];
        if design == "netty" {
            params.push(("event_loops", json!(4)));
        }
        counter(
            result(id, "req/s", &params, around(90_000.0, 6)),
            "server_pss_kib",
            &[pss; 6],
        )
    };
    // Both of the article's pairs: without the blocking call and with it.
    let e = |design: &str, pss: f64| {
        vec![
            scenario("server.keepalive", design, pss),
            scenario("server.blocking", design, pss),
        ]
    };
    let docs = |parts: Vec<Vec<ResultEntry>>| doc(parts.into_iter().flatten().collect());
    // The article's comparison: Netty's service against the coroutine servers, at least 2.5x
    // (the least both of its pairs, 600+ vs 30+ and 100+ vs 30+ MB, allow).
    let d = docs(vec![e("netty", 60_000.0), e("swoole", 30_000.0)]);
    assert_eq!(decision(&d, "S2.memory"), Refuted);
    let d = docs(vec![e("netty", 120_000.0), e("swoole", 30_000.0)]);
    assert_eq!(decision(&d, "S2.memory"), Confirmed);
    // One scenario measured: judged in part.
    let d = doc(vec![
        scenario("server.keepalive", "netty", 120_000.0),
        scenario("server.keepalive", "swoole", 30_000.0),
    ]);
    let v = verdict(&d, "S2.memory");
    assert!(v.partly_judged(), "{:?}", v.unmeasured);
    // concbench's own designs are shown beside, never deciding: alone, they leave the claim
    // partly judged and undecided, the articles' systems named as not measured.
    let d = docs(vec![e("epoll", 9076.0), e("tokio-current", 10290.0)]);
    let v = verdict(&d, "S2.memory");
    assert_eq!(v.verdict, Inconclusive, "{}", v.explanation);
    assert!(v.partly_judged() && v.unmeasured[0].contains("Netty as the printed code"));
    let d = docs(vec![
        e("netty", 600_000.0),
        e("swoole", 30_000.0),
        e("epoll", 9076.0),
        e("tokio-current", 10290.0),
    ]);
    let v = verdict(&d, "S2.memory");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(v.checks.iter().any(|c| c.beside && c.decision == Refuted));
}

// ---- S4.one_thread: one condition per reader and file size.

fn io_doc(byte: f64, block: f64) -> ResultDoc {
    let e = |model: &str, reader: &str, v: f64| {
        result(
            "io.read",
            "ms",
            &[
                ("cache", json!("cold")),
                ("model", json!(model)),
                ("files", json!(10)),
                ("file_mib", json!(50)),
                ("reader", json!(reader)),
                ("placement", json!("unpinned")),
            ],
            around(v, 8),
        )
    };
    doc(vec![
        e("one-thread-sequential", "byte", 200.0),
        e("threads", "byte", 200.0 * byte),
        e("one-thread-sequential", "block", 40.0),
        e("threads", "block", 40.0 * block),
    ])
}

#[test]
fn s4_confirmed_depends_refuted() {
    assert_eq!(decision(&io_doc(0.98, 0.95), "S4.one_thread"), Confirmed);
    let v = verdict(&io_doc(0.58, 0.97), "S4.one_thread");
    assert_eq!(v.verdict, Depends, "{}", v.explanation);
    assert_eq!(v.checks.len(), 2);
    assert_eq!(decision(&io_doc(0.5, 0.6), "S4.one_thread"), Refuted);
}

// ---- S0.stevens.order: the relations Stevens drew, all of them.

fn stevens_doc(fork: f64, tpc: f64, fdpass: f64, lock: f64, pool: f64) -> ResultDoc {
    let e = |design: &str, v: f64| {
        result(
            "server.stevens",
            "us",
            &[("design", json!(design))],
            // Twelve rounds: one refuted part among four needs the correction's level (5% / 4).
            around(v, 12),
        )
    };
    doc(vec![
        e("fork-per-connection", fork),
        e("prefork", pool),
        e("prefork-flock", lock),
        e("prefork-mutex", lock),
        e("prefork-fdpass", fdpass),
        e("thread-per-connection", tpc),
        e("prethread-mutex", pool),
        e("prethread-acceptor", pool),
    ])
}

#[test]
fn stevens_confirmed_and_refuted() {
    assert_eq!(
        decision(
            &stevens_doc(330.0, 36.0, 31.0, 20.0, 8.0),
            "S0.stevens.order"
        ),
        Confirmed
    );
    assert_eq!(
        decision(
            &stevens_doc(30.0, 36.0, 31.0, 20.0, 8.0),
            "S0.stevens.order"
        ),
        Refuted
    );
}

// ---- What is not measured is not judged.

#[test]
fn a_claim_without_its_evidence_is_not_judged_and_programming_never_is() {
    let d = doc(vec![result(
        "create.fork",
        "ns",
        &[("parent", json!("single-threaded"))],
        around(1.0, 6),
    )]);
    assert!(judge(&d).is_empty());
    let everything = print_doc(|_| 1.0);
    assert!(judge(&everything)
        .iter()
        .all(|v| v.source != "S0.table.programming"));
}

#[test]
fn every_verdict_carries_its_rule_rounds_and_robustness() {
    let d = doc(fork_thread(around(170_000.0, 8), around(40_000.0, 8)));
    for v in judge(&d) {
        assert!(!v.checks.is_empty() && v.rounds == Some(8), "{v:?}");
        assert!(v.robustness.is_some_and(|r| (0.0..=1.0).contains(&r)));
        assert!(v
            .checks
            .iter()
            .all(|c| c.rule.contains(">=") || c.rule.contains("within")));
    }
}

// ---- Fragile decisions: a check decided at the edge of its band is measured again.

fn fragile_count(d: &ResultDoc, source: &str) -> (VerdictKind, usize) {
    let published = concbench_analysis::published::published();
    let judged = concbench_analysis::verdicts::judge_all(d, &published)
        .into_iter()
        .find(|j| j.verdict.source == source)
        .unwrap_or_else(|| panic!("{source} not judged"));
    (judged.verdict.verdict, judged.fragile_checks.len())
}

#[test]
fn a_decision_far_inside_its_band_is_stable_one_at_its_edge_is_fragile() {
    let batch = |p: Vec<f64>, t: Vec<f64>| {
        doc(vec![
            result("create.process_100k", "ns", &[], p),
            result("create.thread_100k", "ns", &[], t),
        ])
    };
    let far = batch(around(130_000.0, 8), around(10_000.0, 8));
    assert_eq!(fragile_count(&far, "S0.create"), (Confirmed, 0));
    // Ratio about 10.2 against a band starting at 10 (「10多倍」), rounds spread +-3%: the
    // interval clears the edge, but many resamples of the same rounds would not.
    // Twelve rounds: the boundary's interval at that look is [x_(2), x_(11)], so one round
    // below the edge leaves it confirmed, and resamples that draw that round twice do not.
    let ratios = [
        9.9, 10.1, 10.15, 10.2, 10.25, 10.3, 10.1, 10.15, 10.2, 10.25, 10.3, 10.2,
    ];
    let edge = batch(
        ratios.iter().map(|r| r * 10_000.0).collect(),
        vec![10_000.0; 12],
    );
    assert_eq!(fragile_count(&edge, "S0.create"), (Confirmed, 1));
}
