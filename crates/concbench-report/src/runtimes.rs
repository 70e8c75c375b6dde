//! The cross-runtime table: what creating and switching cost per model per runtime — concbench's
//! native measurements beside the probes (Go, Java, Python, C) — plus the line that makes
//! Python's GIL visible. Rows come from a fixed list of (runtime, model) -> result ids; a row
//! none of whose results is in the document is left out.

use crate::format;
use concbench_core::{ResultDoc, ResultEntry};

pub const RUNTIMES_HEADER: [&str; 6] = [
    "runtime",
    "unit of concurrency",
    "create + join",
    "switch (one-way)",
    "memory per unit",
    "version",
];

/// A result by id and the params it must have (values compared as text).
#[derive(Clone, Copy)]
struct Pick(&'static str, &'static [(&'static str, &'static str)]);

struct Row {
    runtime: &'static str,
    model: &'static str,
    create: Option<Pick>,
    switch: Option<Pick>,
    memory: Option<Pick>,
}

const fn row(
    runtime: &'static str,
    model: &'static str,
    create: Option<Pick>,
    switch: Option<Pick>,
    memory: Option<Pick>,
) -> Row {
    Row {
        runtime,
        model,
        create,
        switch,
        memory,
    }
}

const SAME_CPU: (&str, &str) = ("placement", "same-cpu");
const THOUSAND: (&str, &str) = ("units", "1000");

const ROWS: &[Row] = &[
    // Process and thread switch through the same mechanism (a pipe ping-pong on one CPU, plain:
    // see BASELINE), so the two rows compare; memory is quoted at 1000 units held, as in the
    // verdicts.
    row(
        "native",
        "process (fork)",
        Some(Pick("create.fork", &[("parent", "single-threaded")])),
        Some(Pick("switch.pipe.process", &[SAME_CPU])),
        Some(Pick("memory.process", &[THOUSAND])),
    ),
    row(
        "native",
        "OS thread",
        Some(Pick("create.thread", &[("stack", "default")])),
        Some(Pick("switch.pipe.thread", &[SAME_CPU])),
        Some(Pick("memory.thread", &[("stack", "default"), THOUSAND])),
    ),
    row(
        "native",
        "stackful coroutine",
        Some(Pick("create.coroutine", &[("stack_alloc", "reused")])),
        Some(Pick("switch.coroutine", &[])),
        Some(Pick("memory.coroutine", &[THOUSAND])),
    ),
    row(
        "native",
        "async task (tokio)",
        Some(Pick("create.async_task", &[])),
        Some(Pick("switch.async_task", &[])),
        Some(Pick("memory.async_task", &[THOUSAND])),
    ),
    row(
        "C (seed programs)",
        "process",
        Some(Pick("probes.c.process_100k", &[])),
        Some(Pick("probes.c.pipe_token", &[])),
        None,
    ),
    row(
        "C (seed programs)",
        "thread",
        Some(Pick("probes.c.thread_100k", &[])),
        Some(Pick("probes.c.ring", &[])),
        None,
    ),
    row(
        "Go",
        "goroutine (GOMAXPROCS=1)",
        Some(Pick("probes.go.create", &[])),
        Some(Pick("probes.go.pingpong", &[("gomaxprocs", "1")])),
        Some(Pick("probes.go.memory", &[])),
    ),
    row(
        "Go",
        "goroutine (GOMAXPROCS=2, two CPUs)",
        None,
        Some(Pick("probes.go.pingpong", &[("gomaxprocs", "2")])),
        None,
    ),
    row(
        "Go",
        "goroutine locked to an OS thread",
        None,
        Some(Pick("probes.go.pingpong_locked", &[])),
        None,
    ),
    row(
        "Java",
        "platform thread",
        Some(Pick("probes.java.create", &[("thread_kind", "platform")])),
        Some(Pick("probes.java.pingpong", &[("thread_kind", "platform")])),
        Some(Pick("probes.java.memory", &[("thread_kind", "platform")])),
    ),
    row(
        "Java",
        "virtual thread",
        Some(Pick("probes.java.create", &[("thread_kind", "virtual")])),
        Some(Pick("probes.java.pingpong", &[("thread_kind", "virtual")])),
        Some(Pick("probes.java.memory", &[("thread_kind", "virtual")])),
    ),
    row(
        "Python",
        "thread",
        Some(Pick("probes.python.create", &[("model", "thread")])),
        Some(Pick("probes.python.pingpong", &[("model", "thread")])),
        None,
    ),
    row(
        "Python",
        "process",
        Some(Pick("probes.python.create", &[("model", "process")])),
        Some(Pick("probes.python.pingpong", &[("model", "process")])),
        None,
    ),
    row(
        "Python",
        "asyncio task",
        Some(Pick("probes.python.create", &[("model", "asyncio")])),
        Some(Pick("probes.python.pingpong", &[("model", "asyncio")])),
        None,
    ),
];

/// Params a result may have that pick its plain variant: no working set, no real-time policy.
const BASELINE: [(&str, &str); 2] = [("working_set_kib", "0"), ("sched", "other")];

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

/// One row per (runtime, model) with at least one result: medians per operation.
pub fn runtime_rows(doc: &ResultDoc) -> Vec<[String; 6]> {
    ROWS.iter()
        .filter_map(|row| {
            let [create, switch, memory] = [row.create, row.switch, row.memory]
                .map(|p| p.and_then(|Pick(id, params)| find(doc, id, params)));
            let found: Vec<&ResultEntry> = [create, switch, memory].into_iter().flatten().collect();
            let first = found.first()?;
            let cell = |e: Option<&ResultEntry>| {
                e.map(|e| format::value(e.summary.median, &e.unit))
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
                cell(switch),
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
            "probes.python.cpu",
            &[("model", model), ("workers", workers)],
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
        assert_eq!(rows[0][3], "2.65 µs");
        assert_eq!(rows[0][5], "concbench 9.9");
        let go1 = &rows[1];
        assert_eq!(
            (go1[2].as_str(), go1[3].as_str(), go1[4].as_str()),
            ("400 ns", "150 ns", "-")
        );
        assert_eq!(go1[5], "go1.26");
        assert_eq!(rows[2][3], "900 ns");
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
