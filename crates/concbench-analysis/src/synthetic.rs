//! Small result documents for tests: synthetic samples, never measurements. Public so the tests
//! of every crate build results the one way real ones are summarised.

use crate::entry::{blank, summary};
use concbench_core::{Check, Host, Params, ResultDoc, ResultEntry, Round, VerdictKind};
use concbench_stats::summarize;

/// A result whose `samples` are the values of as many rounds (pass 0, 1, ...; unit ns,
/// same-cpu), summarised like a real one.
pub fn entry(id: &str, samples: &[f64]) -> ResultEntry {
    entry_with(
        id,
        "ns",
        Params::new().with("placement", "same-cpu"),
        samples,
    )
}

/// A result with the given unit, params (include `placement`) and one round per sample value.
pub fn entry_with(id: &str, unit: &str, params: Params, samples: &[f64]) -> ResultEntry {
    ResultEntry {
        title: "synthetic".into(),
        op: "synthetic".into(),
        iterations: 1,
        summary: summary(&summarize(samples)),
        samples: samples.to_vec(),
        rounds: samples
            .iter()
            .enumerate()
            .map(|(pass, &value)| Round {
                pass,
                value,
                baseline: None,
                samples: 1,
                iterations: 1,
                within_spread: 0.0,
                counters: Default::default(),
                interference: None,
                steal: None,
                wall_s: 0.0,
                prepared_s: 0.0,
                excluded: None,
                warmup: None,
            })
            .collect(),
        ..blank(id, unit, params)
    }
}

pub fn doc(results: Vec<ResultEntry>) -> ResultDoc {
    ResultDoc {
        results,
        ..ResultDoc::new(Host::default(), "2026-01-01T00:00:00Z".into())
    }
}

/// A document of one result `id` whose six rounds sit within 1% of `level` (a run of a steady
/// machine at that level): what the history's tests set side by side.
pub fn steady_run(id: &str, level: f64) -> ResultDoc {
    doc(vec![entry(
        id,
        &[0.99, 1.0, 1.01, 0.995, 1.005, 1.0].map(|x| x * level),
    )])
}

/// A unit cost (ns) of `id` with `params`.
fn cost(id: &str, ns: f64, params: &[(&str, &str)]) -> ResultEntry {
    let mut p = Params::new().with("placement", "same-cpu");
    for (k, v) in params {
        p.set(k, *v);
    }
    entry_with(id, "ns", p, &[ns; 6])
}

/// Thread: 2 µs hand-over, 1 µs bare switch; process: 10 µs and 1.5 µs; coroutine: 5 µs create
/// (dearer than a thread pool's hand-off, so the model has the pool ahead until its workers run
/// out), 0.1 µs channel, 0.05 µs switch; the request's I/O 10 µs of server CPU.
pub fn sweep_costs() -> Vec<ResultEntry> {
    let mut io = entry_with(
        "server.keepalive",
        "req/s",
        Params::new().with("design", "epoll"),
        &[50_000.0; 6],
    );
    io.counters.insert("server_cpu_us_per_req".into(), 10.0);
    vec![
        cost("create.thread", 20_000.0, &[("stack", "default")]),
        cost("create.fork", 100_000.0, &[("parent", "single-threaded")]),
        cost("create.coroutine", 5000.0, &[("stack_alloc", "reused")]),
        cost("switch.pipe.thread", 2000.0, &[]),
        cost("switch.pipe.process", 10_000.0, &[]),
        cost("switch.alone.thread", 1000.0, &[]),
        cost("switch.alone.process", 1500.0, &[]),
        cost("switch.channel.coroutine", 100.0, &[]),
        cost("switch.coroutine", 50.0, &[]),
        io,
    ]
}

/// A point of the crossover sweep (`server.crossover`) measured at `rps` in six rounds spread by
/// 1% around it, on one server CPU, levelled.
pub fn sweep_point(
    design: &str,
    workers: Option<u64>,
    block_us: u64,
    cpu_us: u64,
    rps: f64,
) -> ResultEntry {
    let mut p = Params::new()
        .with("design", design)
        .with("connections", 1000u64)
        .with("block_us", block_us)
        .with("cpu_us", cpu_us);
    if let Some(n) = workers {
        p.set("workers", n);
    }
    let rounds = [0.99, 1.0, 1.01, 0.995, 1.005, 1.0].map(|f| f * rps);
    let mut e = entry_with(crate::sweep::SWEEP_ID, "req/s", p, &rounds);
    e.family = "server".into();
    e.counters.insert("server_cpus".into(), 1.0);
    e.counters.insert("steady".into(), 1.0);
    e
}

/// A crossover sweep with the unit costs it is predicted from (see [`sweep_costs`]), at 100 µs
/// of CPU a request: a pool of 8 threads against tokio: even up to 0.1 ms of blocking, behind
/// from 1 ms on; a pool of 8 processes behind the threads' up to 0.1 ms, even from 1 ms on.
pub fn swept() -> ResultDoc {
    let mut results = sweep_costs();
    for (block, threads, tokio, processes) in [
        (0, 8_600.0, 8_600.0, 8_000.0),
        (100, 8_550.0, 8_500.0, 8_000.0),
        (1_000, 6_500.0, 8_600.0, 6_500.0),
        (10_000, 700.0, 8_000.0, 700.0),
    ] {
        results.push(sweep_point("prethread-mutex", Some(8), block, 100, threads));
        results.push(sweep_point("tokio-multi", None, block, 100, tokio));
        results.push(sweep_point("prefork", Some(8), block, 100, processes));
    }
    doc(results)
}

/// A check of a ratio: `estimate` with the interval [0.9, 1.1] times it over six rounds, under
/// `rule`, decided `decision`; no note, not beside, not at its margin.
pub fn check(condition: &str, rule: &str, estimate: f64, decision: VerdictKind) -> Check {
    Check {
        condition: condition.into(),
        rule: rule.into(),
        estimate: Some(estimate),
        ci95: Some([estimate * 0.9, estimate * 1.1]),
        unit: "x".into(),
        rounds: 6,
        decision,
        note: String::new(),
        beside: false,
        withheld: false,
        boundary: None,
        at_margin: None,
    }
}
