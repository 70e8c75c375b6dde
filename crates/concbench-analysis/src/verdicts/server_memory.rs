//! S2.memory: "under 1000 connections Swoole (coroutines) held ~30 MB and Netty (event loop)
//! ~600 MB". Those figures compare two runtimes (a PHP process vs a JVM heap). Here every design
//! is the same Rust program, so the comparison isolates the concurrency model: the PSS of the
//! whole server tree under `server.keepalive`'s 1000 connections, per connection.

use super::verdict;
use crate::published::Published;
use concbench_core::{ResultDoc, ResultEntry, Verdict, VerdictKind};
use serde_json::json;

fn pss<'a>(doc: &'a ResultDoc, design: &str) -> Option<(&'a ResultEntry, f64, f64)> {
    let e = super::find(doc, "server.keepalive", &[("design", json!(design))])?;
    Some((
        e,
        *e.counters.get("server_pss_kib")?,
        *e.counters.get("server_pss_kib_per_conn")?,
    ))
}

pub fn memory_per_connection(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let (ev, ev_total, ev_per) = pss(doc, "epoll")?;
    let (co, co_total, co_per) = pss(doc, "tokio-current").or_else(|| pss(doc, "tokio-multi"))?;
    let mut evidence = vec![ev.id.clone(), co.id.clone()];
    let mut explanation = format!(
        "Published: Netty ~600 MB vs Swoole ~30 MB (20x), two runtimes. Here, same language, \
         1000 keep-alive connections: the epoll event loop's tree held {:.1} MiB PSS ({:.1} KiB \
         per connection), tokio's coroutines {:.1} MiB ({:.1} KiB per connection).",
        ev_total / 1024.0,
        ev_per,
        co_total / 1024.0,
        co_per
    );
    for design in ["thread-per-connection", "fork-per-connection"] {
        if let Some((e, total, per)) = pss(doc, design) {
            evidence.push(e.id.clone());
            explanation.push_str(&format!(
                " {design}: {:.1} MiB ({per:.1} KiB per connection).",
                total / 1024.0
            ));
        }
    }
    let ratio = ev_total / co_total.max(1.0);
    let kind = if ratio >= 5.0 {
        VerdictKind::Confirmed
    } else {
        explanation.push_str(&format!(
            " Event loop / coroutines = {ratio:.2}x: the 20x gap belongs to the runtimes (JVM \
             heap and Netty's buffers vs a PHP process), not to coroutines vs event loops."
        ));
        VerdictKind::Refuted
    };
    verdict(published, "S2.memory", kind, evidence, explanation)
}
