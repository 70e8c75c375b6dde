//! S2.blocking: "with a 10 ms blocking call per request, a coroutine server serves about 6x an
//! event-loop server". Judged on `server.blocking`: tokio (coroutines: the blocking call is
//! `tokio::time::sleep`) against an event loop that sleeps in its loop (what a Netty handler
//! calling a blocking API does) and against one that turns the call into a timer.

use super::{about, compare, find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, ResultEntry, Verdict, VerdictKind};
use serde_json::json;

fn blocking<'a>(doc: &'a ResultDoc, design: &str) -> Option<&'a ResultEntry> {
    find(doc, "server.blocking", &[("design", json!(design))])
}

pub fn coroutine_vs_event_loop(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let naive = blocking(doc, "epoll-naive-blocking")?;
    let coroutine = blocking(doc, "tokio-multi").or_else(|| blocking(doc, "tokio-current"))?;
    let vs_naive = compare(naive, coroutine)?;
    let mut evidence = vec![naive.id.clone(), coroutine.id.clone()];
    let design = coroutine.params.get_str("design").unwrap_or("tokio");
    let mut explanation = format!(
        "With 10 ms of blocking per request, {design} (coroutines) served {:.0} req/s and an epoll \
         loop that sleeps inside the loop {:.0} req/s: {:.1}x (95% CI {:.1}-{:.1}x; published: \
         about 6x). Little's law bounds them at 1000 connections / 10 ms = 100,000 req/s and \
         1 loop / 10 ms = 100 req/s.",
        coroutine.summary.median,
        naive.summary.median,
        vs_naive.ratio,
        vs_naive.ci.0,
        vs_naive.ci.1
    );
    let timer = blocking(doc, "epoll").and_then(|t| Some((t, compare(t, coroutine)?)));
    let timer_matches = match timer {
        Some((t, c)) => {
            evidence.push(t.id.clone());
            explanation.push_str(&format!(
                " An epoll loop that turns the call into a timer served {:.0} req/s ({design} / \
                 it = {:.2}x).",
                t.summary.median, c.ratio
            ));
            Some(c.ratio > 0.67 && c.ratio < 1.5)
        }
        None => None,
    };
    // With --quick's 3 samples a rank test cannot reach p < 0.05 however large the gap, so
    // a bootstrap interval of the ratio that excludes 1 also counts.
    let coroutines_win = vs_naive.ratio > 1.0 && (vs_naive.differs() || vs_naive.ci.0 > 1.0);
    let kind = match (coroutines_win, timer_matches) {
        (false, _) => VerdictKind::Refuted,
        (true, Some(true)) => {
            explanation.push_str(
                " So it depends on the event loop, not on coroutines: only a loop that blocks \
                 loses; one that never blocks keeps up with coroutines.",
            );
            VerdictKind::Depends
        }
        (true, _) if about(vs_naive.ci, 6.0) => VerdictKind::Confirmed,
        (true, _) => {
            explanation.push_str(" Coroutines win, by a factor other than 6.");
            VerdictKind::Depends
        }
    };
    verdict(published, "S2.blocking", kind, evidence, explanation)
}
