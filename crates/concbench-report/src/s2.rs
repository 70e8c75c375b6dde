//! Seed S2's own table: the article's PHP + Swoole and Java + Netty beside what this run measured
//! of them (and of the other coroutine servers), in both scenarios — requests/s without and with
//! the 10 ms blocking call, the blocking factor against Netty, memory and CPU per request.
//!
//! The article's numbers are its own words: its QPS table did not survive, only that the two
//! were about equal without blocking, that Swoole served 6x Netty's QPS with it, and the memory
//! ("java用了600MB，php只用了30MB"; 100+ MB for Netty with blocking).

use crate::layout::table;
use concbench_core::{ResultDoc, ResultEntry};

/// The servers of the table, in order: the article's two first.
const SYSTEMS: [(&str, &str); 7] = [
    ("netty", "Java + Netty, 2 event loops, blocking in the loop"),
    ("swoole", "PHP + Swoole, 2 workers, coroutines + hooks"),
    ("php-fpm", "PHP-FPM behind nginx"),
    (
        "netty-business-pool",
        "Java + Netty, blocking in a 200-thread pool",
    ),
    ("go-net-http", "Go net/http, a goroutine per connection"),
    (
        "java-virtual-threads",
        "Java, a virtual thread per connection",
    ),
    ("php-fibers", "PHP 8 Fibers, 2 workers"),
];

const HEADER: [&str; 7] = [
    "server",
    "keep-alive req/s",
    "10 ms blocking req/s",
    "blocking vs Netty",
    "PSS (keep-alive)",
    "PSS/conn",
    "CPU/req (keep-alive)",
];

/// The article's two rows.
fn published_rows() -> Vec<[String; 7]> {
    let row = |cells: [&str; 7]| cells.map(str::to_string);
    vec![
        row([
            "article: Java + Netty (2 workers)",
            "about Swoole's",
            "1/6 of Swoole's",
            "1x",
            "600+ MB (100+ MB blocking)",
            "-",
            "-",
        ]),
        row([
            "article: PHP + Swoole (2 workers)",
            "about Netty's",
            "6x Netty's",
            "6x",
            "30+ MB",
            "-",
            "-",
        ]),
    ]
}

/// The result of `id` (concbench's load generator, not ab) for `design`.
fn result<'a>(doc: &'a ResultDoc, id: &str, design: &str) -> Option<&'a ResultEntry> {
    doc.results
        .iter()
        .find(|r| r.id == id && r.params.get_str("design") == Some(design))
}

fn rate(r: Option<&ResultEntry>) -> String {
    r.map_or("-".into(), |r| format!("{:.0}", r.summary.median))
}

fn counter(r: Option<&ResultEntry>, name: &str, show: impl Fn(f64) -> String) -> String {
    r.and_then(|r| r.counters.get(name).copied())
        .map_or("-".into(), show)
}

/// One measured row, or `None` when neither scenario of `design` is in `doc`.
fn measured_row(doc: &ResultDoc, design: &str, label: &str) -> Option<[String; 7]> {
    let keepalive = result(doc, "server.keepalive", design);
    let blocking = result(doc, "server.blocking", design);
    if keepalive.is_none() && blocking.is_none() {
        return None;
    }
    let netty = result(doc, "server.blocking", "netty").map(|r| r.summary.median);
    let factor = match (blocking.map(|r| r.summary.median), netty) {
        (Some(b), Some(n)) if n > 0.0 => format!("{:.1}x", b / n),
        _ => "-".into(),
    };
    Some([
        format!("measured: {label}"),
        rate(keepalive),
        rate(blocking),
        factor,
        counter(keepalive, "server_pss_kib", |k| {
            format!("{:.1} MB", k / 1024.0)
        }),
        counter(keepalive, "server_pss_kib_per_conn", |k| {
            format!("{k:.1} KiB")
        }),
        counter(keepalive, "server_cpu_us_per_req", |us| {
            format!("{us:.1} µs")
        }),
    ])
}

/// The table, or `None` when the run measured none of S2's servers.
pub fn s2_table_text(doc: &ResultDoc, width: Option<u16>) -> Option<String> {
    let measured: Vec<[String; 7]> = SYSTEMS
        .iter()
        .filter_map(|(design, label)| measured_row(doc, design, label))
        .collect();
    if measured.is_empty() {
        return None;
    }
    let rows: Vec<[String; 7]> = published_rows().into_iter().chain(measured).collect();
    Some(format!(
        "S2's servers, the article's figures and this run's (1000 keep-alive connections; \
         medians over rounds; the article's memory is RSS, this run's PSS of the server's \
         process tree):\n{}\n",
        table(HEADER, &rows, width)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::Params;

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

    fn server(id: &str, design: &str, rps: f64, pss_kib: f64) -> ResultEntry {
        let params = Params::new().with("design", design);
        let mut e = concbench_analysis::synthetic::entry_with(id, "req/s", params, &[rps]);
        e.counters.insert("server_pss_kib".into(), pss_kib);
        e
    }

    #[test]
    fn without_s2_servers_there_is_no_table() {
        assert_eq!(s2_table_text(&doc(Vec::new()), None), None);
        let other = server("server.keepalive", "epoll", 1.0, 1.0);
        assert_eq!(s2_table_text(&doc(vec![other]), None), None);
    }

    #[test]
    fn swoole_and_netty_sit_under_the_articles_rows_with_the_blocking_factor() {
        let text = s2_table_text(
            &doc(vec![
                server("server.keepalive", "netty", 50_000.0, 204_800.0),
                server("server.blocking", "netty", 200.0, 204_800.0),
                server("server.keepalive", "swoole", 40_000.0, 30_720.0),
                server("server.blocking", "swoole", 60_000.0, 30_720.0),
                // ab's figure is its own experiment: not this table's.
                server("server.blocking.ab", "swoole", 1.0, 1.0),
            ]),
            Some(200),
        )
        .unwrap();
        let netty = text.find("article: Java + Netty").unwrap();
        let swoole = text.find("measured: PHP + Swoole").unwrap();
        assert!(netty < swoole, "{text}");
        assert!(text.contains("300.0x"), "{text}");
        assert!(
            text.contains("200.0 MB") && text.contains("30.0 MB"),
            "{text}"
        );
        assert!(!text.contains("Go net/http"), "{text}");
    }
}
