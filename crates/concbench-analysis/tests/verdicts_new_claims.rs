//! The claims that had no verdict before issue 14, each on synthetic documents for every outcome
//! its rule can reach: 0.18 ms per process (against the article's own 0.087 ms), pools bring no
//! gain, still linear at 1000 workers, two cores, the lock runs of S1 and alternation per switch,
//! coroutines vs an event loop without blocking, 65,535 connections, cold caches, the readers'
//! curve and what the machine did while they read.

mod common;

use common::*;
use concbench_analysis::synthetic::doc;
use concbench_core::{ResultDoc, ResultEntry, VerdictKind};
use serde_json::{json, Value};
use VerdictKind::*;

// ---- S0.create.per_process: the stated 0.18 ms and the table's 0.087 ms.

fn per_process(ns: f64) -> ResultDoc {
    doc(vec![result(
        "probes.c.process_100k",
        "ns",
        &[],
        around(ns, 8),
    )])
}

#[test]
fn per_process_is_an_absolute_time_and_never_decides() {
    // 0.18 ms on the article's 2007 machine: shown among the figures with this machine's ratio,
    // never a verdict on today's hardware.
    let d = per_process(150_000.0);
    assert!(concbench_analysis::verdicts::judge(&d)
        .iter()
        .all(|v| v.source != "S0.create.per_process"));
}

// ---- S0.create.pools: a unit per connection costs no more than a pool?

fn stevens(fork: f64, pool: f64, tpc: f64, pthread: f64) -> ResultDoc {
    let e = |design: &str, v: f64| {
        result(
            "server.stevens",
            "us",
            &[("design", json!(design))],
            around(v, 8),
        )
    };
    doc(vec![
        e("fork-per-connection", fork),
        e("prefork", pool),
        e("prefork-flock", pool * 1.3),
        e("prefork-mutex", pool * 1.2),
        e("thread-per-connection", tpc),
        e("prethread-mutex", pthread),
        e("prethread-acceptor", pthread * 1.4),
    ])
}

#[test]
fn pools_claim_refuted_depends_confirmed() {
    assert_eq!(
        decision(&stevens(330.0, 8.0, 36.0, 8.0), "S0.create.pools"),
        Refuted
    );
    let v = verdict(&stevens(330.0, 8.0, 8.5, 8.0), "S0.create.pools");
    assert_eq!(v.verdict, Depends, "{}", v.explanation);
    assert_eq!(
        decision(&stevens(8.4, 8.0, 8.5, 8.0), "S0.create.pools"),
        Confirmed
    );
}

// ---- S0.scale.linear and S0.dualcore.speedup: the print workload's other tables.

fn print_entry(model: &str, workers: u64, count: u64, placement: &str, s: f64) -> ResultEntry {
    let p: [(&str, Value); 7] = [
        ("model", json!(model)),
        ("workers", json!(workers)),
        ("count", json!(count)),
        ("line_bytes", json!(12)),
        ("sink", json!("pipe")),
        ("placement", json!(placement)),
        ("writer", json!("write")),
    ];
    result("workload.print", "s", &p, around(s, 8))
}

/// The scale table's worker counts, the time per worker at 1000 workers `per_worker_ratio`
/// times that at 100 (the counts between on a straight line).
fn scale_doc(per_worker_ratio: f64) -> ResultDoc {
    let mut r = Vec::new();
    for model in ["process", "thread"] {
        for workers in [100u64, 255, 350, 500, 800, 1000] {
            let growth = 1.0 + (per_worker_ratio - 1.0) * (workers - 100) as f64 / 900.0;
            let s = 0.0004 * workers as f64 * growth;
            r.push(print_entry(model, workers, 1000, "same-cpu", s));
        }
    }
    doc(r)
}

#[test]
fn linear_at_every_worker_count_confirmed_and_refuted() {
    let v = verdict(&scale_doc(1.05), "S0.scale.linear");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    // Every point of the article's table, each model.
    assert_eq!(v.checks.len(), 10);
    assert!(v.checks[0].condition.starts_with("process workers"));
    assert!(
        v.checks[0].rule.contains("equal within 16%"),
        "{}",
        v.checks[0].rule
    );
    // 1.6x per worker at 1000: refuted where the line has strayed past 16%.
    let v = verdict(&scale_doc(1.6), "S0.scale.linear");
    assert_eq!(v.verdict, Depends, "{}", v.explanation);
    assert_eq!(decision(&scale_doc(2.0), "S0.scale.linear"), Refuted);
}

fn dual_doc(small: f64, large: f64) -> ResultDoc {
    let mut r = Vec::new();
    for model in ["process", "thread"] {
        for (count, speedup) in [(10, small), (1000, large)] {
            r.push(print_entry(model, 255, count, "same-cpu", 1.0));
            r.push(print_entry(model, 255, count, "cross-cpu", 1.0 / speedup));
        }
    }
    doc(r)
}

/// Regression: "two cores" was every CPU (unpinned), 1 against 16 on a 16-CPU machine; the
/// article compared one core with two.
#[test]
fn two_cores_are_a_pinned_pair() {
    let mut r = Vec::new();
    for model in ["process", "thread"] {
        for count in [10, 1000] {
            r.push(print_entry(model, 255, count, "same-cpu", 1.0));
            r.push(print_entry(model, 255, count, "unpinned", 0.1));
        }
    }
    assert!(concbench_analysis::verdicts::judge(&doc(r))
        .iter()
        .all(|v| v.source != "S0.dualcore.speedup"));
}

#[test]
fn two_cores_confirmed_depends_refuted() {
    // The article's own figures: 1.73-1.84 small, 1.04-1.13 large.
    assert_eq!(
        decision(&dual_doc(1.8, 1.05), "S0.dualcore.speedup"),
        Confirmed
    );
    let v = verdict(&dual_doc(1.8, 1.8), "S0.dualcore.speedup");
    assert_eq!(v.verdict, Depends, "{}", v.explanation);
    assert_eq!(v.checks.len(), 4);
    assert_eq!(
        decision(&dual_doc(1.0, 1.8), "S0.dualcore.speedup"),
        Refuted
    );
}

#[test]
fn regression_dualcore_read_half_a_speed_up_with_the_second_cpu_taken_by_other_processes() {
    // S0.dualcore.speedup's process workers at COUNT 1000 read 0.507x in one quick run and
    // 1.131x in the next, each tight: with other processes on the machine (a build beside the
    // run), "all CPUs" were shared with them in every round of the run. Such rounds say nothing
    // of the cores: the check is withheld, with the CPUs the others used.
    let mut d = dual_doc(1.8, 0.5);
    for e in &mut d.results {
        if e.params.get_str("placement") == Some("cross-cpu") {
            for r in &mut e.rounds {
                r.interference = Some(1.1);
            }
        }
    }
    let v = verdict(&d, "S0.dualcore.speedup");
    for c in &v.checks {
        assert_eq!(c.decision, Inconclusive, "{c:?}");
        assert!(c.withheld, "{c:?}");
        assert!(
            c.note
                .starts_with("withheld: other processes used 1.10 CPUs"),
            "{}",
            c.note
        );
    }
    // A quiet machine (a tenth of a CPU used by others): judged as before.
    for e in &mut d.results {
        for r in &mut e.rounds {
            r.interference = Some(0.1);
        }
    }
    assert_eq!(decision(&d, "S0.dualcore.speedup"), Depends);
}

#[test]
fn the_stdio_writer_is_a_method_beside_the_write_workload() {
    let mut r = Vec::new();
    for (writer, thread) in [("write", 0.1), ("stdio", 0.13)] {
        for (model, s) in [("process", 0.1), ("thread", thread)] {
            let p = [
                ("model", json!(model)),
                ("workers", json!(255)),
                ("count", json!(1000)),
                ("line_bytes", json!(12)),
                ("sink", json!("pipe")),
                ("placement", json!("same-cpu")),
                ("writer", json!(writer)),
            ];
            r.push(result("workload.print", "s", &p, around(s, 8)));
        }
    }
    let v = verdict(&doc(r), "S0.print.same");
    assert_eq!(v.checks.len(), 2);
    assert!(v.checks[1].condition.contains("printf"));
    // Another method at the same COUNT, beside the write workload: "the same" holds either way.
    assert!(v.checks[1].beside && v.checks[1].decision == Confirmed);
    // The article's fork.c / thread.c not measured: the stand-in decides, partly judged.
    assert!(v.partly_judged(), "{:?}", v.unmeasured);
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
}

// ---- S1: alternation per switch, and the lock runs.

/// Twelve rounds: S1.lock's two refuted switch checks among five need the correction's level
/// (5% / 4), which the boundary cannot reach at eight.
const LOCK_ROUNDS: usize = 12;

/// Alternation with `switches` context switches per increment, split 60/40 between voluntary
/// and involuntary as measured (wake-up preemption).
fn alternate(ns: f64, switches: f64) -> ResultEntry {
    let e = counter(
        result(
            "contend.alternate",
            "ns",
            &[
                ("placement", json!("unpinned")),
                ("event", json!("eventfd")),
            ],
            around(ns, LOCK_ROUNDS),
        ),
        "voluntary_switches_per_op",
        &[switches * 0.6; LOCK_ROUNDS],
    );
    counter(
        e,
        "involuntary_switches_per_op",
        &[switches * 0.4; LOCK_ROUNDS],
    )
}

fn lock(threads: u64, ns: f64, switches: f64) -> ResultEntry {
    let e = counter(
        result(
            "contend.lock",
            "ns",
            &[
                ("placement", json!("unpinned")),
                ("lock", json!("mutex")),
                ("threads", json!(threads)),
            ],
            around(ns, LOCK_ROUNDS),
        ),
        "voluntary_switches_per_op",
        &[switches; LOCK_ROUNDS],
    );
    // Every switch, as the article counted them: none of them involuntary here.
    counter(e, "involuntary_switches_per_op", &[0.0; LOCK_ROUNDS])
}

#[test]
fn alternation_is_also_judged_per_switch_in_microseconds() {
    let d = doc(vec![
        result("contend.single", "ns", &[], around(4.0, 8)),
        alternate(1600.0, 0.5),
    ]);
    let v = verdict(&d, "S1.alternate");
    let per_switch = v
        .checks
        .iter()
        .find(|c| c.unit == "us")
        .expect("per switch");
    assert!(
        (per_switch.estimate.unwrap() - 3.2).abs() < 0.05,
        "{per_switch:?}"
    );
    assert_eq!(per_switch.decision, Confirmed);
    assert!(v.explanation.contains("4.84 µs"), "{}", v.explanation);
}

fn lock_doc(t2: f64, t100: f64, switches: f64) -> ResultDoc {
    doc(vec![
        alternate(1600.0, 1.0),
        lock(2, t2, switches),
        lock(100, t100, switches),
    ])
}

#[test]
fn lock_runs_confirmed_depends_refuted() {
    // A lock at 30-37 ns per increment, 45-55x below alternation, rarely switching; 100
    // threads no faster than 2.
    let v = verdict(&lock_doc(30.0, 37.0, 1e-6), "S1.lock");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    // One condition per thread count for the first two checks, the article's 94 and 517 beside,
    // and the 100-vs-2 check.
    assert_eq!(v.checks.len(), 7);
    let counts: Vec<_> = v.checks.iter().filter(|c| c.beside).collect();
    assert_eq!(counts.len(), 2, "{:?}", v.checks);
    assert!(
        counts[0].note.contains("the article's 94"),
        "{}",
        counts[0].note
    );
    assert!(v.checks[0].condition.starts_with("2 threads"));
    // A lock that sleeps on every increment: the switch check refutes, the rest holds.
    assert_eq!(decision(&lock_doc(30.0, 37.0, 0.5), "S1.lock"), Depends);
    assert_eq!(decision(&lock_doc(800.0, 400.0, 0.9), "S1.lock"), Refuted);
}

// ---- S2: no blocking, and 65,535 connections.

fn keepalive(tokio: f64, epoll: f64) -> ResultDoc {
    let e = |design: &str, v: f64| {
        result(
            "server.keepalive",
            "req/s",
            &[("design", json!(design)), ("placement", json!("cross-cpu"))],
            around(v, 8),
        )
    };
    doc(vec![e("tokio-current", tokio), e("epoll", epoll)])
}

#[test]
fn without_blocking_coroutines_and_an_event_loop_confirmed_refuted_inconclusive() {
    assert_eq!(
        decision(&keepalive(95_000.0, 100_000.0), "S2.no_blocking"),
        Confirmed
    );
    assert_eq!(
        decision(&keepalive(60_000.0, 100_000.0), "S2.no_blocking"),
        Refuted
    );
    let e = |design: &str, v: Vec<f64>| {
        result(
            "server.keepalive",
            "req/s",
            &[("design", json!(design)), ("placement", json!("cross-cpu"))],
            v,
        )
    };
    let d = doc(vec![
        e("tokio-current", noisy(88_000.0, 8, 0.2)),
        e("epoll", around(100_000.0, 8)),
    ]);
    assert_eq!(decision(&d, "S2.no_blocking"), Inconclusive);
}

/// Results of `id` for each design; "netty" at both readings of the article (the printed
/// code's 4 worker loops and the prose's 2), alike.
fn servers(id: &str, designs: &[(&str, f64)]) -> ResultDoc {
    let e = |design: &str, loops: Option<u64>, v: f64| {
        let mut params = vec![("design", json!(design)), ("placement", json!("cross-cpu"))];
        params.extend(loops.map(|l| ("event_loops", json!(l))));
        result(id, "req/s", &params, around(v, 8))
    };
    let mut results = Vec::new();
    for &(d, v) in designs {
        if d == "netty" {
            results.push(e(d, Some(4), v));
            results.push(e(d, Some(2), v));
        } else {
            results.push(e(d, None, v));
        }
    }
    doc(results)
}

#[test]
fn the_articles_systems_are_judged_beside_the_rust_designs() {
    let d = servers(
        "server.keepalive",
        &[
            ("tokio-current", 98_000.0),
            ("epoll", 100_000.0),
            ("netty", 28_000.0),
            ("php-fibers", 70_000.0),
            ("go-net-http", 27_000.0),
            ("java-virtual-threads", 62_000.0),
        ],
    );
    let v = verdict(&d, "S2.no_blocking");
    // The article's language decides (Swoole absent: PHP Fibers), against each reading of the
    // article's Netty; the other systems and the Rust designs are rows beside it.
    assert_eq!(v.verdict, Refuted, "{}", v.explanation);
    let deciding: Vec<_> = v.checks.iter().filter(|c| !c.beside).collect();
    assert_eq!(deciding.len(), 2, "{:?}", v.checks);
    assert!(deciding.iter().all(|c| c.condition.contains("PHP Fibers")));
    let rust = v
        .checks
        .iter()
        .find(|c| c.condition.contains("tokio"))
        .expect("the Rust designs beside");
    assert!(rust.beside && rust.decision == Confirmed);
    assert!(
        rust.note.contains("disagree") && rust.note.contains("PHP Fibers"),
        "{}",
        rust.note
    );
}

#[test]
fn the_articles_systems_decide_when_they_are_all_that_ran() {
    // `run --only server.blocking --where design=...`: no Rust design, Netty and Go only.
    let d = servers(
        "server.blocking",
        &[("netty", 176.0), ("go-net-http", 24_000.0)],
    );
    let v = verdict(&d, "S2.blocking");
    let deciding: Vec<_> = v.checks.iter().filter(|c| !c.beside).collect();
    // "More", on Go against each reading of Netty; "about 6x" (136x here) never decides.
    assert_eq!(deciding.len(), 2, "{:?}", v.checks);
    assert!(deciding.iter().all(|c| c.condition.contains("Go net/http")));
    assert!(deciding.iter().all(|c| c.decision == Confirmed));
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(
        v.partly_judged(),
        "Go stood in for Swoole: {:?}",
        v.unmeasured
    );
}

fn connections(held: f64, per_port: f64) -> ResultDoc {
    doc(vec![counter(
        result(
            "limits.connections",
            "connections",
            &[("target", json!(70_000)), ("side", json!("server"))],
            around(held, 8),
        ),
        "max_per_local_port",
        &[per_port; 8],
    )])
}

#[test]
fn connections_at_one_server_address_refuted_and_confirmed() {
    let v = verdict(&connections(70_000.0, 3.0), "S2.connections");
    assert_eq!(v.verdict, Refuted, "{}", v.explanation);
    assert!(v.explanation.contains("four"), "{}", v.explanation);
    assert_eq!(
        decision(&connections(28_000.0, 1.0), "S2.connections"),
        Confirmed
    );
}

// ---- S3.cold: the working-set sweep.

fn cold_doc(cold_ns: f64) -> ResultDoc {
    doc(vec![
        pipe("switch.pipe.process", around(2800.0, 8)),
        result(
            "switch.pipe.process",
            "ns",
            &[("sched", json!("other")), ("working_set_kib", json!(4096))],
            around(cold_ns, 8),
        ),
    ])
}

#[test]
fn cold_caches_confirmed_and_refuted() {
    assert_eq!(decision(&cold_doc(40_000.0), "S3.cold"), Confirmed);
    // Cold caches add 18%: larger, as the article says; the 3.5 µs of its machine is shown
    // beside with this machine's ratio, never deciding.
    let v = verdict(&cold_doc(3_300.0), "S3.cold");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(v.checks[1].beside && v.checks[1].note.contains("0.943x the article's"));
    assert_eq!(decision(&cold_doc(2_850.0), "S3.cold"), Refuted);
}

// ---- S4: the curve, and iowait and switches per second.

fn io(model: &str, files: u64, ms: f64, counters: &[(&str, f64)]) -> ResultEntry {
    let mut e = result(
        "io.read",
        "ms",
        &[
            ("cache", json!("cold")),
            ("model", json!(model)),
            ("files", json!(files)),
            ("file_mib", json!(50)),
            ("reader", json!("byte")),
            ("placement", json!("unpinned")),
        ],
        around(ms, 8),
    );
    e = counter(e, "device_read_share", &[1.0; 8]);
    for (name, v) in counters {
        e = counter(e, name, &[*v; 8]);
    }
    e
}

/// Threads and one thread in turn over 10 to 100 files: each model's time per file grows by
/// its factor for every doubling of the files.
fn curve(threads_growth: f64, one_growth: f64) -> ResultDoc {
    let per_file = 40.0;
    let at = |model: &str, n: u64, growth: f64| {
        let g = growth.powf((n as f64 / 10.0).log2());
        io(
            model,
            n,
            per_file * n as f64 * g,
            &[("reader_cpu_share", 0.1)],
        )
    };
    doc([10u64, 20, 50, 100]
        .iter()
        .flat_map(|&n| {
            [
                at("threads", n, threads_growth),
                at("one-thread-sequential", n, one_growth),
            ]
        })
        .collect())
}

#[test]
fn the_contrast_of_the_thread_curve_with_one_thread_confirmed_and_refuted() {
    let v = verdict(&curve(1.3, 1.0), "S4.degrade");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert_eq!(v.checks.len(), 3);
    assert!(v.checks[2].condition.starts_with("100 files vs 10"));
    assert_eq!(decision(&curve(1.0, 1.0), "S4.degrade"), Refuted);
    // Both slow down alike: more data served slower, not the threads' doing.
    assert_eq!(decision(&curve(1.3, 1.3), "S4.degrade"), Refuted);
    // The control itself: one thread's time per file flat, or not.
    assert_eq!(decision(&curve(1.3, 1.0), "S4.one_thread_flat"), Confirmed);
    assert_eq!(decision(&curve(1.3, 1.3), "S4.one_thread_flat"), Refuted);
}

/// Regression: S4.degrade judged the threads alone above 10 files, though the article's claim is
/// the contrast with one thread (「在单线程情况下,性能没有降低。但多线程情况下,性能降低的很明显」):
/// without the one-thread control it is not judged at all.
#[test]
fn the_thread_curve_without_its_control_is_not_judged() {
    let d = doc([10u64, 20, 50, 100]
        .iter()
        .map(|&n| io("threads", n, 40.0 * n as f64 * 2.0, &[]))
        .collect());
    assert!(concbench_analysis::verdicts::judge(&d)
        .iter()
        .all(|v| v.source != "S4.degrade"));
}

#[test]
fn iowait_and_switch_rates_confirmed_and_refuted() {
    let d = |threads_rate: f64, threads_iowait: f64| {
        doc(vec![
            io(
                "one-thread-sequential",
                10,
                400.0,
                &[("switches_per_s", 250.0), ("iowait_share", 0.01)],
            ),
            io(
                "threads",
                10,
                390.0,
                &[
                    ("switches_per_s", threads_rate),
                    ("iowait_share", threads_iowait),
                ],
            ),
        ])
    };
    let v = verdict(&d(550.0, 0.15), "S4.iowait");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert_eq!(v.checks.len(), 2);
    assert_eq!(decision(&d(250.0, 0.01), "S4.iowait"), Refuted);
}
