//! "A process costs about 30x a thread" (S0.table) and the 100,000-unit replication (S0.create).

use super::{about, compare, find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, Verdict, VerdictKind};
use serde_json::json;

/// The headline: a process costs ~30x a thread, judged on the full life of one unit.
pub fn thirty_times(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let fork = find(doc, "create.fork", &[("parent", json!("single-threaded"))])?;
    let thread = find(doc, "create.thread", &[("stack", json!("default"))])?;
    let c = compare(thread, fork)?;
    let kind = if about(c.ci, 30.0) {
        VerdictKind::Confirmed
    } else {
        VerdictKind::Refuted
    };
    let mut explanation = format!(
        "Creating, running and reaping a process (fork) costs {:.1}x a thread (create + join, \
         default stack) here, 95% CI {:.1}-{:.1}x ({} vs {} per unit, {}). {}",
        c.ratio,
        c.ci.0,
        c.ci.1,
        human_ns(fork.summary.median),
        human_ns(thread.summary.median),
        fork.params.get_str("placement").unwrap_or("?"),
        match kind {
            VerdictKind::Confirmed => "That is about 30x.",
            _ if c.ratio < 30.0 => "Far from 30x: threads are cheaper, but not by that much.",
            _ => "More than 30x on this machine.",
        }
    );
    let mut evidence = vec![fork.id.clone(), thread.id.clone()];
    if let Some(memory) = super::memory_cpu::memory_sentence(doc) {
        explanation.push(' ');
        explanation.push_str(&memory);
        evidence.extend(["memory.process".to_string(), "memory.thread".to_string()]);
    }
    verdict(published, "S0.30x", kind, evidence, explanation)
}

/// S0.create: 100,000 processes took 13x as long as 100,000 threads (8.684 s vs 0.661 s).
pub fn create_100k(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let procs = find(doc, "create.process_100k", &[])?;
    let threads = find(doc, "create.thread_100k", &[])?;
    let c = compare(threads, procs)?;
    let kind = if about(c.ci, 13.1) {
        VerdictKind::Confirmed
    } else {
        VerdictKind::Refuted
    };
    let explanation = format!(
        "100,000 processes took {:.2} s and 100,000 threads {:.2} s here: {:.1}x (95% CI \
         {:.1}-{:.1}x), against 13.1x published (8.684 s vs 0.661 s on a 2006 Xeon).",
        procs.summary.median * 1e5 / 1e9,
        threads.summary.median * 1e5 / 1e9,
        c.ratio,
        c.ci.0,
        c.ci.1
    );
    verdict(
        published,
        "S0.create",
        kind,
        vec![procs.id.clone(), threads.id.clone()],
        explanation,
    )
}

/// Nanoseconds in the largest unit that keeps the number above 1.
pub(crate) fn human_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
