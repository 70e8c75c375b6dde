//! S0.table row "create, destroy, switch": slow for processes, fast for threads.
//!
//! Judged on creation (create.fork vs create.thread) and, when the switch family ran, on the
//! same-CPU pipe ping-pong between processes vs between threads.

use super::{compare, find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, Verdict, VerdictKind};
use serde_json::json;

pub fn create_destroy_switch(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let fork = find(doc, "create.fork", &[("parent", json!("single-threaded"))])?;
    let thread = find(doc, "create.thread", &[("stack", json!("default"))])?;
    let create = compare(thread, fork)?;
    let mut evidence = vec![fork.id.clone(), thread.id.clone()];
    let mut explanation = format!(
        "Create+destroy: a process costs {:.1}x a thread (95% CI {:.1}-{:.1}x).",
        create.ratio, create.ci.0, create.ci.1
    );
    let same = [("placement", json!("same-cpu"))];
    let switch = find(doc, "switch.pipe.thread", &same)
        .zip(find(doc, "switch.pipe.process", &same))
        .and_then(|(t, p)| Some((t, p, compare(t, p)?)));
    let switch_faster_for_threads = match switch {
        Some((t, p, c)) => {
            evidence.extend([p.id.clone(), t.id.clone()]);
            explanation.push_str(&format!(
                " Switch (pipe ping-pong, same CPU): a process switch costs {} a thread switch.",
                c.describe()
            ));
            Some(c.differs() && c.ratio > 1.0)
        }
        None => None,
    };
    let create_faster = create.differs() && create.ratio > 1.0;
    let kind = match (create_faster, switch_faster_for_threads) {
        (true, Some(true)) | (true, None) => VerdictKind::Confirmed,
        (true, Some(false)) => {
            explanation.push_str(
                " Threads win on creation; on switching the two are close, because both switch \
                 through the same kernel scheduler and only the address-space change differs.",
            );
            VerdictKind::Depends
        }
        (false, _) => VerdictKind::Refuted,
    };
    verdict(
        published,
        "S0.table.create_switch",
        kind,
        evidence,
        explanation,
    )
}
