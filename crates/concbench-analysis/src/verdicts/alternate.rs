//! S1.alternate: "forcing two threads to alternate costs about 400x doing the same work on one
//! thread: work is done by CPUs, not threads".
//!
//! Judged on time per increment: `contend.alternate` (unpinned, like the seed; same-CPU if that
//! is all the run has) against `contend.single`. The factor is a ratio of two machine-specific
//! costs — one hand-over against one increment — so a factor far from 400 with the same lesson
//! (alternation is orders of magnitude slower) depends on the machine and the language rather
//! than refuting the point.

use super::process_vs_thread::human_ns;
use super::{about, compare, find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, Verdict, VerdictKind};
use serde_json::json;

/// The seed's factor: 161.5 s / 0.407 s.
const CLAIMED_FACTOR: f64 = 400.0;

/// Below this factor (lower CI bound), alternation is not "orders of magnitude" slower.
const ORDERS_OF_MAGNITUDE: f64 = 100.0;

pub fn alternate(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let single = find(doc, "contend.single", &[])?;
    let alternating = find(
        doc,
        "contend.alternate",
        &[("placement", json!("unpinned"))],
    )
    .or_else(|| find(doc, "contend.alternate", &[]))?;
    let c = compare(single, alternating)?;
    let mut explanation = format!(
        "Two threads alternating ({}) take {} per increment, one thread {}: {:.0}x (95% CI \
         {:.0}-{:.0}x). The seed measured 1.6 us and 4.1 ns per increment (C# on Windows).",
        alternating.params.get_str("placement").unwrap_or("?"),
        human_ns(alternating.summary.median),
        human_ns(single.summary.median),
        c.ratio,
        c.ci.0,
        c.ci.1
    );
    let kind = if about(c.ci, CLAIMED_FACTOR) {
        VerdictKind::Confirmed
    } else if c.differs() && c.ci.0 >= ORDERS_OF_MAGNITUDE {
        explanation.push_str(
            " The lesson holds — every forced hand-over costs a context switch, orders of \
             magnitude more than the work — but the factor is a ratio of two machine- and \
             language-specific costs (one hand-over, one increment), not a constant.",
        );
        VerdictKind::Depends
    } else {
        explanation.push_str(" Alternation is not orders of magnitude slower here.");
        VerdictKind::Refuted
    };
    verdict(
        published,
        "S1.alternate",
        kind,
        vec![alternating.id.clone(), single.id.clone()],
        explanation,
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{around, doc, entry};
    use super::*;
    use crate::published::published;

    fn judge(single_ns: f64, alternating: &[(&str, f64)]) -> Option<Verdict> {
        let mut results = vec![entry(
            "contend.single",
            &[("placement", json!("same-cpu"))],
            around(single_ns),
        )];
        for (placement, ns) in alternating {
            results.push(entry(
                "contend.alternate",
                &[("placement", json!(placement)), ("event", json!("eventfd"))],
                around(*ns),
            ));
        }
        alternate(&doc(results), &published())
    }

    #[test]
    fn about_four_hundred_times_is_confirmed() {
        let v = judge(4.0, &[("unpinned", 1600.0)]).unwrap();
        assert_eq!(v.verdict, VerdictKind::Confirmed, "{}", v.explanation);
    }

    #[test]
    fn a_larger_factor_keeps_the_lesson_but_depends() {
        let v = judge(0.85, &[("unpinned", 2400.0)]).unwrap();
        assert_eq!(v.verdict, VerdictKind::Depends, "{}", v.explanation);
    }

    #[test]
    fn the_unpinned_variant_is_preferred_like_the_seed() {
        let v = judge(4.0, &[("same-cpu", 40.0), ("unpinned", 1600.0)]).unwrap();
        assert_eq!(v.verdict, VerdictKind::Confirmed, "{}", v.explanation);
        assert!(v.explanation.contains("(unpinned)"), "{}", v.explanation);
    }

    #[test]
    fn cheap_alternation_refutes() {
        let v = judge(4.0, &[("same-cpu", 40.0)]).unwrap();
        assert_eq!(v.verdict, VerdictKind::Refuted, "{}", v.explanation);
    }

    #[test]
    fn no_verdict_without_both_results() {
        assert!(judge(4.0, &[]).is_none());
    }
}
