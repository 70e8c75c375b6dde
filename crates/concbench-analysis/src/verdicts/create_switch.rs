//! S0.table row "create, destroy, switch": slow for processes, fast for threads.
//!
//! Judged on creation (create.fork vs create.thread) and, when the switch family ran, on the
//! same-CPU pipe ping-pong between processes vs between threads.

use super::switch_cost::plain;
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
    let switch = plain(doc, "switch.pipe.thread", "same-cpu")
        .zip(plain(doc, "switch.pipe.process", "same-cpu"))
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

#[cfg(test)]
mod tests {
    use super::super::fixtures::{around, doc, entry, switch_entry};
    use super::*;
    use crate::published::published;

    /// The switch family's ids and params: the plain pipe variants are used even when the
    /// FIFO and working-set variants come first in the document.
    #[test]
    fn judges_switching_on_the_plain_pipe_variants() {
        let d = doc(vec![
            entry(
                "create.fork",
                &[("parent", json!("single-threaded"))],
                around(140_000.0),
            ),
            entry(
                "create.thread",
                &[("stack", json!("default"))],
                around(20_000.0),
            ),
            switch_entry("switch.pipe.process", "same-cpu", "fifo", 0, 9000.0),
            switch_entry("switch.pipe.process", "same-cpu", "other", 4096, 90_000.0),
            switch_entry("switch.pipe.process", "same-cpu", "other", 0, 2900.0),
            switch_entry("switch.pipe.thread", "same-cpu", "other", 0, 2700.0),
        ]);
        let v = create_destroy_switch(&d, &published()).unwrap();
        assert!(v.evidence.contains(&"switch.pipe.process".to_string()));
        assert!(v.explanation.contains("1.07x"), "{}", v.explanation);
        assert_eq!(v.verdict, VerdictKind::Confirmed);
    }
}
