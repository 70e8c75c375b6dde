//! Seed S2's own table: the article's Java + Netty and PHP + Swoole beside what this run measured
//! of them — Netty at both readings of the article (its printed code's default 4 worker loops,
//! its prose's 2), Swoole, PHP-FPM, and the coroutine servers standing in — without and with
//! the 10 ms blocking call: requests/s with its interval and rounds, response times (minimum,
//! median, 99th percentile, maximum of the closed loop; the open loop's 99th percentile at half
//! and nine tenths of the levelled rate), memory, and when each server levelled.
//!
//! The article's cells are its own: its QPS column did not survive (only its words: "about the
//! same" without blocking, "6x" with it), its response times are printed as
//! 「响应时间ms(max,min)」, its memory as 600+ / 100+ / 30+ MB (RSS of a container).

use crate::layout::table;
use concbench_core::vocab::{id, key};
use concbench_core::{human, ResultDoc, ResultEntry};

/// A server of the table: its design, its worker loops (Netty's two readings), its label.
struct Server {
    design: &'static str,
    loops: Option<u64>,
    label: &'static str,
}

/// The servers, the article's first, stand-ins after.
const SERVERS: [Server; 8] = [
    Server {
        design: "netty",
        loops: Some(4),
        label: "Java + Netty, as the printed code: boss 2, default 4 worker loops",
    },
    Server {
        design: "netty",
        loops: Some(2),
        label: "Java + Netty, as the prose: 2 worker loops",
    },
    Server {
        design: "swoole",
        loops: None,
        label: "PHP + Swoole: 2 workers, coroutines",
    },
    Server {
        design: "php-fpm",
        loops: None,
        label: "PHP-FPM (5 processes) behind nginx",
    },
    Server {
        design: "netty-business-pool",
        loops: None,
        label: "beside: Netty, blocking in a 200-thread pool",
    },
    Server {
        design: "go-net-http",
        loops: None,
        label: "stand-in: Go net/http",
    },
    Server {
        design: "java-virtual-threads",
        loops: None,
        label: "stand-in: Java virtual threads",
    },
    Server {
        design: "php-fibers",
        loops: None,
        label: "stand-in: PHP 8 Fibers, 2 workers",
    },
];

pub const HEADER: [&str; 6] = [
    "server",
    "requests/s",
    "response ms: min / median / p99 / max",
    "open loop p99 ms at 50% / 90%",
    "memory",
    "steady after (s), per start",
];

/// The article's rows for a scenario, from `data/published.toml` (its words where its cells were
/// lost).
fn article_rows(blocking: bool) -> Vec<[String; 6]> {
    let scenario = if blocking { "blocking" } else { "keep-alive" };
    (concbench_analysis::published::shared().article_rows_of("S2", scenario))
        .map(|r| {
            [
                &r.server,
                &r.requests,
                &r.response_ms,
                &r.open_loop,
                &r.memory,
                &r.steady,
            ]
            .map(|cell| cell.to_string())
        })
        .collect()
}

/// The result of `id` for `server` (concbench's load generator, not ab).
fn result<'a>(doc: &'a ResultDoc, id: &str, server: &Server) -> Option<&'a ResultEntry> {
    doc.results.iter().find(|r| {
        r.id == id
            && r.params.get_str(key::DESIGN) == Some(server.design)
            && server
                .loops
                .is_none_or(|l| r.params.get_f64(key::EVENT_LOOPS) == Some(l as f64))
    })
}

/// "41,200 [32,000, 48,200], 6 rounds" or "41,200, 1 round (no interval)".
fn rate(r: &ResultEntry) -> String {
    let n = r.rounds.len().max(1);
    let rounds = if n == 1 {
        "1 round".to_string()
    } else {
        format!("{n} rounds")
    };
    format!(
        "{}, {rounds}",
        human::measured(r.summary.median, r.summary.ci95, "req/s")
    )
}

/// The counters in milliseconds, "a / b / c" ("-" where absent).
fn millis(r: &ResultEntry, names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            r.counters
                .get(*n)
                .map_or("-".to_string(), |us| human::sig3(us / 1e3))
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// When each start of the server levelled, from the first request: "17, 22" or "not steady
/// after 60" for a start that never did.
pub fn steady_after(r: &ResultEntry) -> Option<String> {
    let starts: Vec<String> = (r.rounds.iter())
        .filter_map(|round| round.warmup.as_ref())
        .map(|w| match w.steady_after_s {
            Some(s) => format!("{s:.0}"),
            None => format!("not steady after {:.0}", w.span_s()),
        })
        .collect();
    (!starts.is_empty()).then(|| starts.join(", "))
}

/// The JVM's activity in the measured windows: "JIT 0.4% of a CPU, 21 GC pauses (3.1 ms)".
fn runtime(r: &ResultEntry) -> Option<String> {
    let share = r.counters.get("jit_cpu_share")?;
    let mut s = format!("JIT {}% of a CPU", human::sig3(share * 100.0));
    if let (Some(n), Some(ms)) = (r.counters.get("gc_pauses"), r.counters.get("gc_pause_ms")) {
        s.push_str(&format!(
            ", {} GC pauses ({} ms) a window",
            human::sig3(*n),
            human::sig3(*ms)
        ));
    }
    Some(s)
}

fn measured_row(r: &ResultEntry, label: &str) -> [String; 6] {
    let steady = steady_after(r).unwrap_or_else(|| "-".into());
    let steady = match runtime(r) {
        Some(rt) => format!("{steady}; {rt}"),
        None => steady,
    };
    [
        format!("measured: {label}"),
        rate(r),
        millis(
            r,
            &[
                "latency_min_us",
                "latency_p50_us",
                "latency_p99_us",
                "latency_max_us",
            ],
        ),
        millis(r, &["open50_p99_us", "open90_p99_us"]),
        r.counters
            .get("server_pss_kib")
            .map_or("-".into(), |k| format!("{} PSS", human::kib(*k))),
        steady,
    ]
}

/// Where the servers ran, said once, beside where the article's ran (its `setup` in
/// `data/published.toml`).
pub fn cpu_split_line(doc: &ResultDoc) -> Option<String> {
    let cpus = (doc.results.iter())
        .filter(|r| scenario(r).is_some())
        .find_map(|r| r.counters.get("server_cpus"))?;
    let total = doc.host.logical_cpus;
    let cpus = *cpus as usize;
    let unit = if cpus == 1 { "CPU" } else { "CPUs" };
    let article = (concbench_analysis::published::shared().articles.iter())
        .find(|a| a.id == "S2")
        .and_then(|a| a.setup.as_deref())
        .map(|setup| format!(" ({setup})"))
        .unwrap_or_default();
    Some(format!(
        "Servers ran on {cpus} {unit} of this machine's {total}, the load generator on \
         another{article}; JVMs sized as in its container (-XX:MaxRAM=1g)."
    ))
}

/// One table per scenario, or `None` when the run measured none of S2's servers.
pub fn s2_table_text(doc: &ResultDoc, width: Option<u16>) -> Option<String> {
    let mut out = String::new();
    for (id, blocking, what) in [
        (id::SERVER_KEEPALIVE, false, "without blocking"),
        (
            id::SERVER_BLOCKING,
            true,
            "with a 10 ms blocking call per request",
        ),
    ] {
        let measured: Vec<[String; 6]> = SERVERS
            .iter()
            .filter_map(|s| result(doc, id, s).map(|r| measured_row(r, s.label)))
            .collect();
        if measured.is_empty() {
            continue;
        }
        let rows: Vec<[String; 6]> = article_rows(blocking).into_iter().chain(measured).collect();
        out.push_str(&format!(
            "S2's table {what}: the article's figures and this run's (1000 keep-alive \
             connections; medians over rounds with their 95% interval; response times from the \
             closed loop, the article's \"(max, min)\" as printed; memory: the article's RSS, \
             this run's PSS of the server's process tree under load):\n{}\n",
            table(HEADER, &rows, width)
        ));
    }
    if out.is_empty() {
        return None;
    }
    if let Some(line) = cpu_split_line(doc) {
        out.push_str(&line);
        out.push('\n');
    }
    Some(out)
}

/// "keep-alive" or "blocking" for the two scenarios' results, `None` for any other.
fn scenario(r: &ResultEntry) -> Option<&'static str> {
    match r.id.as_str() {
        id::SERVER_KEEPALIVE => Some("keep-alive"),
        id::SERVER_BLOCKING => Some("blocking"),
        _ => None,
    }
}

/// A server's design, with its loops where it has a reading: "netty 4 loops".
pub fn name(r: &ResultEntry) -> Option<String> {
    let design = r.params.get_str(key::DESIGN)?;
    Some(match r.params.get_f64(key::EVENT_LOOPS) {
        Some(l) => format!("{design} {l} loops"),
        None => design.to_string(),
    })
}

/// One line for a run's summary: when each of the articles' servers levelled.
pub fn warmup_line(doc: &ResultDoc) -> Option<String> {
    let parts: Vec<String> = (doc.results.iter())
        .filter(|r| r.params.get_str(key::RUNTIME).is_some())
        .filter_map(|r| {
            Some(format!(
                "{} {} {} s",
                name(r)?,
                scenario(r)?,
                steady_after(r)?
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "Servers levelled (steady state, from the first request, per start): {}.",
            parts.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Params, Warmup};

    fn doc(results: Vec<ResultEntry>) -> ResultDoc {
        let mut d: ResultDoc = serde_json::from_value(serde_json::json!({
            "schema": concbench_core::SCHEMA_ID,
            "tool": {"name": "concbench", "version": "9.9"},
            "host": concbench_core::Host { logical_cpus: 2, ..Default::default() },
            "started_at": "2026-01-01T00:00:00Z",
            "results": [],
        }))
        .unwrap();
        d.results = results;
        d
    }

    fn server(id: &str, design: &str, loops: Option<u64>, rps: f64, pss_kib: f64) -> ResultEntry {
        let mut params = Params::new().with("design", design);
        if let Some(l) = loops {
            params = params.with("event_loops", l);
        }
        if design == "netty" || design == "swoole" {
            params = params.with("runtime", if design == "netty" { "java" } else { "php" });
        }
        let mut e = concbench_analysis::synthetic::entry_with(id, "req/s", params, &[rps; 6]);
        for (k, v) in [
            ("server_pss_kib", pss_kib),
            ("latency_min_us", 900.0),
            ("latency_p50_us", 14_000.0),
            ("latency_p99_us", 30_000.0),
            ("latency_max_us", 80_000.0),
            ("server_cpus", 1.0),
        ] {
            e.counters.insert(k.into(), v);
        }
        e.rounds[0].warmup = Some(Warmup {
            window_s: 1.0,
            rates: vec![rps; 17],
            steady_after_s: Some(17.0),
            ..Warmup::default()
        });
        e.rounds[3].warmup = Some(Warmup {
            window_s: 1.0,
            rates: vec![rps; 60],
            steady_after_s: None,
            ..Warmup::default()
        });
        e
    }

    #[test]
    fn without_s2_servers_there_is_no_table() {
        assert_eq!(s2_table_text(&doc(Vec::new()), None), None);
        let other = server("server.keepalive", "epoll", None, 1.0, 1.0);
        assert_eq!(s2_table_text(&doc(vec![other]), None), None);
    }

    #[test]
    fn both_readings_of_netty_and_swoole_sit_under_the_articles_rows_in_both_scenarios() {
        let d = doc(vec![
            server("server.keepalive", "netty", Some(4), 50_000.0, 204_800.0),
            server("server.keepalive", "netty", Some(2), 60_000.0, 204_800.0),
            server("server.blocking", "netty", Some(4), 400.0, 102_400.0),
            server("server.keepalive", "swoole", None, 40_000.0, 30_720.0),
            server("server.blocking", "swoole", None, 60_000.0, 30_720.0),
            // ab's figure is its own experiment: not this table's.
            server("server.blocking.ab", "swoole", None, 1.0, 1.0),
        ]);
        let text = s2_table_text(&d, Some(220)).unwrap();
        let without = text.find("without blocking").unwrap();
        let with = text.find("with a 10 ms blocking call").unwrap();
        assert!(without < with, "{text}");
        let netty = text.find("article: Java + Netty").unwrap();
        let printed = text.find("as the printed code").unwrap();
        let prose = text.find("as the prose").unwrap();
        assert!(netty < printed && printed < prose, "{text}");
        for cell in [
            "(11, 25)",
            "(52, 160)",
            "600+ MB",
            "100+ MB",
            "30+ MB",
            "「高了6倍」",
        ] {
            assert!(text.contains(cell), "{cell}: {text}");
        }
        assert!(
            text.contains("200 MiB PSS") && text.contains("30.0 MiB PSS"),
            "{text}"
        );
        assert!(text.contains("0.900 / 14.0 / 30.0 / 80.0"), "{text}");
        assert!(text.contains("17, not steady after 60"), "{text}");
        assert!(text.contains("6 rounds"), "{text}");
        assert!(
            text.contains("Servers ran on 1 CPU of this machine's 2"),
            "{text}"
        );
        assert!(!text.contains("Go net/http"), "{text}");
    }

    #[test]
    fn the_summary_says_when_each_article_server_levelled() {
        let d = doc(vec![server("server.keepalive", "netty", Some(4), 5e4, 1.0)]);
        let line = warmup_line(&d).unwrap();
        assert!(
            line.contains("netty 4 loops keep-alive 17, not steady after 60 s"),
            "{line}"
        );
        let designs = doc(vec![server("server.keepalive", "epoll", None, 5e4, 1.0)]);
        assert_eq!(
            warmup_line(&designs),
            None,
            "concbench's designs level at once"
        );
    }
}
