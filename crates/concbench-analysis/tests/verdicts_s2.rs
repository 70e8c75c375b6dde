//! Seed S2's server claims on synthetic rounds: what decides them (Netty at both readings of the
//! article, "more" and never the factor), what only stands in (Go, Java virtual threads, PHP
//! Fibers, concbench's designs: the claim is then partly judged), and the servers a guard
//! withholds (one that never levelled, one still compiling).

mod common;

use common::{counter, result, verdict};
use concbench_analysis::synthetic::doc;
use concbench_core::{ResultEntry, VerdictKind};
use concbench_stats::{first_steady, Criterion, Window};
use serde_json::{json, Value};

const ROUNDS: usize = 8;

/// A server result: `rps` requests/s in every round, steady, with a quiet JIT, and the counters
/// the memory and response-time claims read.
fn server(id: &str, design: &str, loops: Option<u64>, rps: f64) -> ResultEntry {
    let mut params: Vec<(&str, Value)> = vec![("design", json!(design))];
    if let Some(l) = loops {
        params.push(("event_loops", json!(l)));
    }
    let e = result(id, "req/s", &params, common::around(rps, ROUNDS));
    let e = counter(e, "steady", &[1.0; ROUNDS]);
    let e = counter(e, "jit_cpu_share", &[0.001; ROUNDS]);
    let e = counter(
        e,
        "server_pss_kib",
        &[if design == "netty" { 300e3 } else { 20e3 }; ROUNDS],
    );
    // Little's law in a closed loop of 1000 connections: the median response is 1000 / rate.
    counter(e, "latency_p50_us", &[1e9 / rps; ROUNDS])
}

fn both(design: &str, loops: Option<u64>, keepalive: f64, blocking: f64) -> Vec<ResultEntry> {
    vec![
        server("server.keepalive", design, loops, keepalive),
        server("server.blocking", design, loops, blocking),
    ]
}

/// Swoole, Netty at both readings (4 loops as the printed code, 2 as the prose) and `more`.
fn articles_systems(more: Vec<ResultEntry>) -> Vec<ResultEntry> {
    let mut v = both("swoole", None, 73e3, 45e3);
    v.extend(both("netty", Some(4), 70e3, 390.0));
    v.extend(both("netty", Some(2), 75e3, 195.0));
    v.extend(more);
    v
}

#[test]
fn a_run_without_swoole_and_netty_leaves_s2_partly_judged() {
    // A quick run: concbench's designs only.
    let mut results = both("tokio-current", None, 90e3, 80e3);
    results.push(server("server.keepalive", "epoll", None, 91e3));
    results.push(server(
        "server.blocking",
        "epoll-naive-blocking",
        None,
        98.0,
    ));
    let d = doc(results);
    for claim in ["S2.no_blocking", "S2.blocking"] {
        let v = verdict(&d, claim);
        assert_eq!(
            v.verdict,
            VerdictKind::Confirmed,
            "{claim}: the stand-in decides"
        );
        assert!(v.partly_judged(), "{claim}: {:?}", v.unmeasured);
        assert!(
            v.unmeasured
                .iter()
                .all(|u| u.contains("decided in its place")),
            "{claim}: {:?}",
            v.unmeasured
        );
    }
    // The memory claim has no stand-in among concbench's designs: measured, it is shown beside.
    let memory = verdict(&d, "S2.memory");
    assert!(memory.partly_judged(), "{:?}", memory.unmeasured);
    assert_eq!(memory.verdict, VerdictKind::Inconclusive);
}

#[test]
fn go_stands_in_for_swoole_and_the_claim_says_so() {
    let mut results = both("go-net-http", None, 120e3, 60e3);
    results.extend(both("netty", Some(4), 70e3, 390.0));
    results.extend(both("netty", Some(2), 75e3, 195.0));
    let v = verdict(&doc(results), "S2.blocking");
    assert_eq!(v.verdict, VerdictKind::Confirmed);
    assert!(v.partly_judged(), "{:?}", v.unmeasured);
    let deciding: Vec<_> = v.checks.iter().filter(|c| !c.beside).collect();
    assert_eq!(deciding.len(), 2, "one per reading of Netty: {deciding:?}");
    assert!(deciding.iter().all(|c| c.condition.contains("Go net/http")));
}

#[test]
fn with_swoole_and_netty_at_both_readings_the_claims_are_judged_whole() {
    let d = doc(articles_systems(both("go-net-http", None, 120e3, 60e3)));
    for claim in [
        "S2.no_blocking",
        "S2.blocking",
        "S2.memory",
        "S2.response_time",
    ] {
        let v = verdict(&d, claim);
        assert!(!v.partly_judged(), "{claim}: {:?}", v.unmeasured);
        let deciding: Vec<&str> = (v.checks.iter())
            .filter(|c| !c.beside)
            .map(|c| c.condition.as_str())
            .collect();
        assert!(
            deciding
                .iter()
                .all(|c| !c.contains("stand-in") && !c.contains("Go")),
            "{claim}: {deciding:?}"
        );
    }
    let blocking = verdict(&d, "S2.blocking");
    let readings: Vec<&str> = (blocking.checks.iter())
        .filter(|c| !c.beside)
        .map(|c| c.condition.as_str())
        .collect();
    assert_eq!(readings.len(), 2, "{readings:?}");
    assert!(readings[0].contains("printed code") && readings[0].contains("4 worker loops"));
    assert!(readings[1].contains("prose") && readings[1].contains("2 worker loops"));
    // Netty's median response rises 1000 / 390 s over 1000 / 70k s; Swoole's 73k -> 45k is
    // 1.6x: a rise too (refuted), as Little's law says of any closed loop.
    let rt = verdict(&d, "S2.response_time");
    assert_eq!(rt.verdict, VerdictKind::Refuted, "{}", rt.explanation);
}

/// Swoole serves 115x a blocked Netty's 390 req/s here, far outside the article's "about 6x"
/// band: the factor is shown, refuted, beside — and "more" alone decides the claim.
#[test]
fn the_factor_is_shown_beside_and_never_decides() {
    let d = doc(articles_systems(Vec::new()));
    let v = verdict(&d, "S2.blocking");
    assert_eq!(v.verdict, VerdictKind::Confirmed, "{}", v.explanation);
    let factors: Vec<_> = v
        .checks
        .iter()
        .filter(|c| c.condition.contains("the factor"))
        .collect();
    assert_eq!(factors.len(), 2, "one per reading");
    for f in factors {
        assert!(f.beside, "{f:?}");
        assert_eq!(f.decision, VerdictKind::Refuted, "{f:?}");
        assert!(f.condition.contains("Little's law"), "{}", f.condition);
    }
    assert!(v.checks.iter().any(|c| c.condition.contains("400 req/s")));
    assert!(v.checks.iter().any(|c| c.condition.contains("200 req/s")));
}

#[derive(serde::Deserialize)]
struct Series {
    rates: Vec<f64>,
    jit_share: Vec<f64>,
}

/// A Netty whose warm-up never levelled (the fixture's series, by the product's own criterion)
/// in one of its server starts: every check that reads it is withheld, with the reason, and the
/// other reading of Netty still decides.
#[test]
fn a_server_that_never_levelled_is_withheld_from_every_check_that_reads_it() {
    let fixture: Series = serde_json::from_str(include_str!("fixtures/s2-never-levels.json"))
        .expect("the fixture parses");
    let series: Vec<Window> = (fixture.rates.iter().zip(&fixture.jit_share))
        .map(|(&rate, &share)| Window {
            rate,
            requests: rate as u64,
            jit_share: Some(share),
        })
        .collect();
    let criterion = Criterion {
        k: 3,
        tolerance: 0.10,
        jit_share_max: 0.01,
        min_requests: 1000,
        cap: 60,
    };
    assert!(
        first_steady(&series, &criterion).is_err(),
        "the fixture never levels"
    );
    // Rounds 1-3 on a server that levelled, 4-6 on the one of the fixture (and so on).
    let steady: Vec<f64> = (0..ROUNDS)
        .map(|i| f64::from(u8::from(i % 6 < 3)))
        .collect();
    let results: Vec<ResultEntry> = articles_systems(Vec::new())
        .into_iter()
        .map(|e| {
            let printed = e.params.get("event_loops") == Some(&json!(4));
            if printed && e.id == "server.keepalive" {
                counter(e, "steady", &steady)
            } else {
                e
            }
        })
        .collect();
    let d = doc(results);
    let v = verdict(&d, "S2.no_blocking");
    let printed = v
        .checks
        .iter()
        .find(|c| c.condition.contains("Swoole") && c.condition.contains("printed code"))
        .unwrap();
    assert!(printed.withheld, "{printed:?}");
    assert_eq!(printed.decision, VerdictKind::Inconclusive);
    assert!(printed.note.contains("did not level"), "{}", printed.note);
    let prose = v
        .checks
        .iter()
        .find(|c| c.condition.contains("Swoole") && c.condition.contains("prose"))
        .unwrap();
    assert!(!prose.withheld, "{prose:?}");
    let reading_it = [
        ("S2.memory", "without blocking"),
        ("S2.response_time", "median response time"),
    ];
    for (claim, what) in reading_it {
        let v = verdict(&d, claim);
        let c = (v.checks.iter())
            .find(|c| c.condition.contains("printed code") && c.condition.contains(what))
            .unwrap_or_else(|| panic!("{claim}: no check on {what}"));
        assert!(c.withheld, "{claim}: {c:?}");
    }
}

#[test]
fn a_netty_still_compiling_is_withheld() {
    let results: Vec<ResultEntry> = articles_systems(Vec::new())
        .into_iter()
        .map(|e| {
            if e.params.get("design") == Some(&json!("netty")) && e.id == "server.keepalive" {
                counter(e, "jit_cpu_share", &[0.2; ROUNDS])
            } else {
                e
            }
        })
        .collect();
    let v = verdict(&doc(results), "S2.no_blocking");
    let deciding: Vec<_> = v.checks.iter().filter(|c| !c.beside).collect();
    assert!(deciding.iter().all(|c| c.withheld), "{deciding:?}");
    assert!(
        deciding[0].note.contains("still compiling"),
        "{}",
        deciding[0].note
    );
    assert_eq!(v.verdict, VerdictKind::Inconclusive);
}
