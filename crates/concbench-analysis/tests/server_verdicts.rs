//! The server family's judges on synthetic results: what each concludes from which evidence,
//! and that each stays silent without its evidence.

use concbench_analysis::{synthetic, verdicts::judge};
use concbench_core::{Params, ResultDoc, ResultEntry, VerdictKind};
use std::collections::BTreeMap;

fn entry(id: &str, design: &str, samples: &[f64], counters: &[(&str, f64)]) -> ResultEntry {
    let unit = if id == "server.stevens" {
        "us"
    } else {
        "req/s"
    };
    let params = Params::new()
        .with("design", design)
        .with("placement", "cross-cpu");
    let mut e = synthetic::entry_with(id, unit, params, samples);
    e.counters = counters
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect::<BTreeMap<_, _>>();
    e
}

fn doc(results: Vec<ResultEntry>) -> ResultDoc {
    ResultDoc {
        schema: concbench_core::SCHEMA_ID.into(),
        tool: concbench_core::Tool {
            name: "concbench".into(),
            version: "test".into(),
        },
        host: Default::default(),
        started_at: "2026-01-01T00:00:00Z".into(),
        duration_s: 0.0,
        settings: BTreeMap::new(),
        results,
        skipped: vec![],
        failures: vec![],
        verdicts: vec![],
        warnings: vec![],
        interrupted: false,
    }
}

fn verdict(d: &ResultDoc, source: &str) -> Option<VerdictKind> {
    judge(d)
        .into_iter()
        .find(|v| v.source == source)
        .map(|v| v.verdict)
}

#[test]
fn blocking_depends_on_whether_the_event_loop_blocks() {
    let b = "server.blocking";
    let naive = entry(
        b,
        "epoll-naive-blocking",
        &[98.0, 99.0, 97.0, 99.5, 98.5],
        &[],
    );
    let tokio = entry(b, "tokio-multi", &[40e3, 41e3, 42e3, 40.5e3, 41.5e3], &[]);
    let timer = entry(b, "epoll", &[40.2e3, 41.2e3, 41.9e3, 40.7e3, 41.1e3], &[]);
    let d = doc(vec![naive.clone(), tokio.clone(), timer]);
    assert_eq!(verdict(&d, "S2.blocking"), Some(VerdictKind::Depends));
    let slow = entry(b, "tokio-multi", &[97.0, 98.0, 99.0, 98.2, 97.5], &[]);
    assert_eq!(
        verdict(&doc(vec![naive, slow]), "S2.blocking"),
        Some(VerdictKind::Refuted)
    );
    assert_eq!(verdict(&doc(vec![tokio]), "S2.blocking"), None);
}

#[test]
fn memory_claim_is_judged_per_connection_in_one_language() {
    let a = "server.keepalive";
    let mem = |total, per| [("server_pss_kib", total), ("server_pss_kib_per_conn", per)];
    let epoll = entry(a, "epoll", &[1.0, 1.0, 1.0], &mem(12_000.0, 8.5));
    let tokio = entry(a, "tokio-current", &[1.0, 1.0, 1.0], &mem(13_000.0, 9.4));
    assert_eq!(
        verdict(&doc(vec![epoll.clone(), tokio]), "S2.memory"),
        Some(VerdictKind::Refuted)
    );
    let lean = entry(a, "tokio-current", &[1.0, 1.0, 1.0], &mem(1_000.0, 0.5));
    assert_eq!(
        verdict(&doc(vec![epoll, lean]), "S2.memory"),
        Some(VerdictKind::Confirmed)
    );
}

#[test]
fn stevens_order_is_confirmed_when_ranks_agree_and_fork_costs_most() {
    let s = "server.stevens";
    // Stevens's Solaris column, rounded: the same order.
    let rows = [
        ("fork-per-connection", 500.0),
        ("prefork", 6.0),
        ("prefork-flock", 25.0),
        ("prefork-mutex", 21.0),
        ("prefork-fdpass", 36.0),
        ("thread-per-connection", 18.0),
        ("prethread-mutex", 8.0),
        ("prethread-acceptor", 14.0),
    ];
    let with = |f: &dyn Fn(f64) -> f64| -> ResultDoc {
        doc(rows
            .iter()
            .map(|(d, v)| {
                let mut e = entry(s, d, &[f(*v); 3], &[]);
                e.params.set("connections", 5000u64);
                e.params.set("bytes", 4000u64);
                e
            })
            .collect())
    };
    assert_eq!(
        verdict(&with(&|v| v), "S0.stevens.order"),
        Some(VerdictKind::Confirmed)
    );
    assert_eq!(
        verdict(&with(&|v| 1000.0 / v), "S0.stevens.order"),
        Some(VerdictKind::Refuted)
    );
}

#[test]
fn blocking_verdict_with_three_quick_samples_is_not_refuted() {
    // Regression: with --quick's 3 samples a Mann-Whitney test cannot reach p < 0.05, and an
    // 800x gap was once judged "refuted".
    let b = "server.blocking";
    let naive = entry(b, "epoll-naive-blocking", &[96.0, 97.0, 98.0], &[]);
    let tokio = entry(b, "tokio-multi", &[70e3, 77e3, 80e3], &[]);
    let timer = entry(b, "epoll", &[75e3, 81e3, 82e3], &[]);
    assert_eq!(
        verdict(&doc(vec![naive, tokio, timer]), "S2.blocking"),
        Some(VerdictKind::Depends)
    );
}
