//! The cross-runtime table: what creating and switching cost per model per runtime — concbench's
//! native measurements beside the probes (Go, Java, Python, C) — plus the line that makes
//! Python's GIL visible. Rows come from a fixed list of (runtime, model) -> result ids; a row
//! none of whose results is in the document is left out.
//!
//! Like for like, as the headline's unit table: a *hand-over* (pass a value and wake the other
//! unit: a pipe between processes or threads, a channel between goroutines or tasks, park/unpark
//! between Java threads) and a *bare switch* (the switch alone: lmbench's ping-pong less its
//! transport, a coroutine resume, a task yield) are two columns, never one; each hand-over cell
//! says its mechanism, and one taken across two CPUs says so.

use crate::format;
use concbench_core::vocab::{id, key};
use concbench_core::{ResultDoc, ResultEntry};

pub const RUNTIMES_HEADER: [&str; 7] = [
    "runtime",
    "unit of concurrency",
    "create + join",
    "hand-over (one-way)",
    "bare switch",
    "memory per unit",
    "version",
];

/// A result by id and the params it must have (values compared as text).
#[derive(Clone, Copy)]
struct Pick(&'static str, &'static [(&'static str, &'static str)]);

/// A hand-over and what carries it ("pipe", "channel, two CPUs"), said in its cell.
#[derive(Clone, Copy)]
struct HandOver(Pick, &'static str);

struct Row {
    runtime: &'static str,
    model: &'static str,
    create: Option<Pick>,
    handover: Option<HandOver>,
    bare_switch: Option<Pick>,
    memory: Option<Pick>,
}

const SAME_CPU: (&str, &str) = (key::PLACEMENT, "same-cpu");
const THOUSAND: (&str, &str) = (key::UNITS, "1000");

/// A row of a runtime whose switch is measured only as a hand-over (every probe).
const fn probe(
    runtime: &'static str,
    model: &'static str,
    create: Option<Pick>,
    handover: Option<HandOver>,
    memory: Option<Pick>,
) -> Row {
    Row {
        runtime,
        model,
        create,
        handover,
        bare_switch: None,
        memory,
    }
}

const ROWS: &[Row] = &[
    // Process and thread hand over through the same mechanism (a pipe ping-pong on one CPU,
    // plain: see BASELINE), so the two rows compare; memory is quoted at 1000 units held, as in
    // the verdicts.
    Row {
        runtime: "native",
        model: "process (fork)",
        create: Some(Pick(id::CREATE_FORK, &[(key::PARENT, "single-threaded")])),
        handover: Some(HandOver(Pick(id::SWITCH_PIPE_PROCESS, &[SAME_CPU]), "pipe")),
        bare_switch: Some(Pick(id::SWITCH_ALONE_PROCESS, &[])),
        memory: Some(Pick(id::MEMORY_PROCESS, &[THOUSAND])),
    },
    Row {
        runtime: "native",
        model: "OS thread",
        create: Some(Pick(id::CREATE_THREAD, &[(key::STACK, "default")])),
        handover: Some(HandOver(Pick(id::SWITCH_PIPE_THREAD, &[SAME_CPU]), "pipe")),
        bare_switch: Some(Pick(id::SWITCH_ALONE_THREAD, &[])),
        memory: Some(Pick(
            id::MEMORY_THREAD,
            &[(key::STACK, "default"), THOUSAND],
        )),
    },
    Row {
        runtime: "native",
        model: "stackful coroutine",
        create: Some(Pick(id::CREATE_COROUTINE, &[(key::STACK_ALLOC, "reused")])),
        handover: Some(HandOver(Pick(id::SWITCH_CHANNEL_COROUTINE, &[]), "channel")),
        bare_switch: Some(Pick(id::SWITCH_COROUTINE, &[])),
        memory: Some(Pick(id::MEMORY_COROUTINE, &[THOUSAND])),
    },
    Row {
        runtime: "native",
        model: "async task (tokio)",
        create: Some(Pick(id::CREATE_ASYNC_TASK, &[])),
        handover: Some(HandOver(Pick(id::SWITCH_ASYNC_TASK, &[]), "channel")),
        bare_switch: Some(Pick(id::SWITCH_YIELD_ASYNC_TASK, &[])),
        memory: Some(Pick(id::MEMORY_ASYNC_TASK, &[THOUSAND])),
    },
    probe(
        "C (seed programs)",
        "process",
        Some(Pick(id::PROBES_C_PROCESS_100K, &[])),
        Some(HandOver(Pick(id::PROBES_C_PIPE_TOKEN, &[]), "pipe")),
        None,
    ),
    probe(
        "C (seed programs)",
        "thread",
        Some(Pick(id::PROBES_C_THREAD_100K, &[])),
        Some(HandOver(Pick(id::PROBES_C_RING, &[]), "pipe, a ring's hop")),
        None,
    ),
    probe(
        "Go",
        "goroutine (GOMAXPROCS=1)",
        Some(Pick(id::PROBES_GO_CREATE, &[])),
        Some(HandOver(
            Pick(id::PROBES_GO_PINGPONG, &[(key::GOMAXPROCS, "1")]),
            "channel",
        )),
        Some(Pick(id::PROBES_GO_MEMORY, &[])),
    ),
    probe(
        "Go",
        "goroutine (GOMAXPROCS=2, two CPUs)",
        None,
        Some(HandOver(
            Pick(id::PROBES_GO_PINGPONG, &[(key::GOMAXPROCS, "2")]),
            "channel, two CPUs",
        )),
        None,
    ),
    probe(
        "Go",
        "goroutine locked to an OS thread",
        None,
        Some(HandOver(
            Pick(id::PROBES_GO_PINGPONG_LOCKED, &[]),
            "channel, OS threads",
        )),
        None,
    ),
    probe(
        "Java",
        "platform thread",
        Some(Pick(
            id::PROBES_JAVA_CREATE,
            &[(key::THREAD_KIND, "platform")],
        )),
        Some(HandOver(
            Pick(id::PROBES_JAVA_PINGPONG, &[(key::THREAD_KIND, "platform")]),
            "park/unpark",
        )),
        Some(Pick(
            id::PROBES_JAVA_MEMORY,
            &[(key::THREAD_KIND, "platform")],
        )),
    ),
    probe(
        "Java",
        "virtual thread",
        Some(Pick(
            id::PROBES_JAVA_CREATE,
            &[(key::THREAD_KIND, "virtual")],
        )),
        Some(HandOver(
            Pick(id::PROBES_JAVA_PINGPONG, &[(key::THREAD_KIND, "virtual")]),
            "park/unpark",
        )),
        Some(Pick(
            id::PROBES_JAVA_MEMORY,
            &[(key::THREAD_KIND, "virtual")],
        )),
    ),
    probe(
        "Python",
        "thread",
        Some(Pick(id::PROBES_PYTHON_CREATE, &[(key::MODEL, "thread")])),
        Some(HandOver(
            Pick(id::PROBES_PYTHON_PINGPONG, &[(key::MODEL, "thread")]),
            "queue",
        )),
        None,
    ),
    probe(
        "Python",
        "process",
        Some(Pick(id::PROBES_PYTHON_CREATE, &[(key::MODEL, "process")])),
        Some(HandOver(
            Pick(id::PROBES_PYTHON_PINGPONG, &[(key::MODEL, "process")]),
            "pipe",
        )),
        None,
    ),
    probe(
        "Python",
        "asyncio task",
        Some(Pick(id::PROBES_PYTHON_CREATE, &[(key::MODEL, "asyncio")])),
        Some(HandOver(
            Pick(id::PROBES_PYTHON_PINGPONG, &[(key::MODEL, "asyncio")]),
            "asyncio queue",
        )),
        None,
    ),
];

/// Params a result may have that pick its plain variant: no working set, no real-time policy.
const BASELINE: [(&str, &str); 2] = [(key::WORKING_SET_KIB, "0"), (key::SCHED, "other")];

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn find<'a>(doc: &'a ResultDoc, id: &str, params: &[(&str, &str)]) -> Option<&'a ResultEntry> {
    let has =
        |r: &ResultEntry, (k, v): &(&str, &str)| r.params.get(k).is_some_and(|p| text(p) == *v);
    doc.results.iter().find(|r| {
        r.id == id
            && params.iter().all(|kv| has(r, kv))
            && BASELINE
                .iter()
                .all(|kv| r.params.get(kv.0).is_none() || has(r, kv))
    })
}

/// One row per (runtime, model) with at least one result: medians per operation, the
/// hand-over's mechanism in its cell.
pub fn runtime_rows(doc: &ResultDoc) -> Vec<[String; 7]> {
    ROWS.iter()
        .filter_map(|row| {
            let pick = |p: Option<Pick>| p.and_then(|Pick(id, params)| find(doc, id, params));
            let create = pick(row.create);
            let handover = row
                .handover
                .and_then(|HandOver(p, how)| Some((pick(Some(p))?, how)));
            let bare = pick(row.bare_switch);
            let memory = pick(row.memory);
            let found: Vec<&ResultEntry> = [create, handover.map(|(e, _)| e), bare, memory]
                .into_iter()
                .flatten()
                .collect();
            let first = found.first()?;
            let cell = |e: Option<&ResultEntry>| {
                e.map(crate::sections::median_cell)
                    .unwrap_or_else(|| "-".into())
            };
            let version = match first.info.get("runtime_version") {
                Some(v) => v.clone(),
                None => format!("concbench {}", doc.tool.version),
            };
            Some([
                row.runtime.to_string(),
                row.model.to_string(),
                cell(create),
                handover.map_or_else(
                    || "-".into(),
                    |(e, how)| format!("{} ({how})", cell(Some(e))),
                ),
                cell(bare),
                cell(memory),
                version,
            ])
        })
        .collect()
}

/// The GIL in one sentence, when the four `probes.python.cpu` results are present: how much
/// faster two workers finish the same CPU-bound job than one, for threads and for processes.
pub fn runtime_notes(doc: &ResultDoc) -> Vec<String> {
    let median = |model: &'static str, workers: &'static str| {
        find(
            doc,
            id::PROBES_PYTHON_CPU,
            &[(key::MODEL, model), (key::WORKERS, workers)],
        )
        .map(|e| e.summary.median)
    };
    let speedup = |model| Some(median(model, "1")? / median(model, "2")?);
    match (speedup("thread"), speedup("process")) {
        (Some(t), Some(p)) => vec![format!(
            "Python, a CPU-bound job on two CPUs: two threads finish it {}x as fast as one (the GIL lets one run at a time); two processes {}x.",
            format::sig3(t),
            format::sig3(p)
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::Params;

    fn entry(
        id: &str,
        params: Params,
        median: f64,
        unit: &str,
        version: Option<&str>,
    ) -> ResultEntry {
        let mut e = concbench_analysis::synthetic::entry_with(id, unit, params, &[median]);
        e.info = version
            .map(|v| [("runtime_version".to_string(), v.to_string())].into())
            .unwrap_or_default();
        e
    }

    fn doc(results: Vec<ResultEntry>) -> ResultDoc {
        let mut d: ResultDoc = serde_json::from_value(serde_json::json!({
            "schema": concbench_core::SCHEMA_ID,
            "tool": {"name": "concbench", "version": "9.9"},
            "host": concbench_core::Host::default(),
            "started_at": "2026-01-01T00:00:00Z",
            "results": [],
        }))
        .unwrap();
        d.results = results;
        d
    }

    #[test]
    fn rows_pick_the_plain_variant_and_carry_the_version() {
        let go = |k: &str, v: i64| Params::new().with(k, v).with("placement", "same-cpu");
        let d = doc(vec![
            entry(
                "probes.go.pingpong",
                go("gomaxprocs", 2),
                900.0,
                "ns",
                Some("go1.26"),
            ),
            entry(
                "probes.go.pingpong",
                go("gomaxprocs", 1),
                150.0,
                "ns",
                Some("go1.26"),
            ),
            entry(
                "probes.go.create",
                go("gomaxprocs", 1),
                400.0,
                "ns",
                Some("go1.26"),
            ),
            entry(
                "switch.pipe.process",
                go("working_set_kib", 256),
                9000.0,
                "ns",
                None,
            ),
            entry(
                "switch.pipe.process",
                go("working_set_kib", 0),
                2650.0,
                "ns",
                None,
            ),
        ]);
        let rows = runtime_rows(&d);
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(rows[0][0], "native");
        assert_eq!(rows[0][3], "2.65 µs (pipe)");
        assert_eq!(rows[0][6], "concbench 9.9");
        let go1 = &rows[1];
        assert_eq!(
            (
                go1[2].as_str(),
                go1[3].as_str(),
                go1[4].as_str(),
                go1[5].as_str()
            ),
            ("400 ns", "150 ns (channel)", "-", "-")
        );
        assert_eq!(go1[6], "go1.26");
        assert_eq!(rows[2][3], "900 ns (channel, two CPUs)");
    }

    #[test]
    fn regression_one_column_held_pipe_hand_overs_channel_hand_overs_and_a_bare_switch() {
        // "switch (one-way)" held a pipe hand-over for processes and threads (2.07, 2.12 us), a
        // channel hand-over for goroutines and virtual threads (125, 158 ns) and concbench's
        // coroutine's bare switch (2.03 ns, where its hand-over is 6.41 ns).
        let none = Params::new();
        let same = Params::new().with("placement", "same-cpu");
        let d = doc(vec![
            entry("switch.pipe.thread", same.clone(), 2120.0, "ns", None),
            entry("switch.alone.thread", none.clone(), 1200.0, "ns", None),
            entry("switch.coroutine", none.clone(), 2.03, "ns", None),
            entry("switch.channel.coroutine", none.clone(), 6.41, "ns", None),
            entry(
                "probes.go.pingpong",
                Params::new().with("gomaxprocs", 1),
                125.0,
                "ns",
                Some("go1.26"),
            ),
        ]);
        let rows = runtime_rows(&d);
        let col = |name: &str| RUNTIMES_HEADER.iter().position(|h| *h == name).unwrap();
        let (handover, bare) = (col("hand-over (one-way)"), col("bare switch"));
        let row = |model: &str| rows.iter().find(|r| r[1] == model).unwrap();
        assert_eq!(row("OS thread")[handover], "2.12 µs (pipe)");
        assert_eq!(row("OS thread")[bare], "1.20 µs");
        assert_eq!(row("stackful coroutine")[handover], "6.41 ns (channel)");
        assert_eq!(row("stackful coroutine")[bare], "2.03 ns");
        assert_eq!(
            row("goroutine (GOMAXPROCS=1)")[handover],
            "125 ns (channel)"
        );
        assert_eq!(row("goroutine (GOMAXPROCS=1)")[bare], "-");
        // Every hand-over cell names what carries it.
        for r in &rows {
            assert!(r[handover] == "-" || r[handover].ends_with(')'), "{r:?}");
        }
    }

    #[test]
    fn the_gil_line_needs_all_four_results() {
        let cpu = |model: &str, workers: i64, median| {
            let p = Params::new().with("model", model).with("workers", workers);
            entry("probes.python.cpu", p, median, "ns", Some("CPython 3.11"))
        };
        let mut results = vec![
            cpu("thread", 1, 30.0),
            cpu("thread", 2, 31.0),
            cpu("process", 1, 30.0),
        ];
        assert!(runtime_notes(&doc(results.clone())).is_empty());
        results.push(cpu("process", 2, 15.0));
        let notes = runtime_notes(&doc(results));
        assert!(
            notes[0].contains("two threads finish it 0.968x"),
            "{notes:?}"
        );
        assert!(notes[0].contains("two processes 2.00x"), "{notes:?}");
    }
}
