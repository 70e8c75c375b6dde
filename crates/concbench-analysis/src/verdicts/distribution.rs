//! S0.table row "distribution": processes scale to many cores and machines, threads to many
//! cores only. One machine can judge the cores: the print workload's speedup from one CPU to all
//! of them (S0.dualcore), for processes and for threads. Many machines are out of reach.

use super::print::{pair, Shape};
use super::{compare, verdict, Comparison};
use crate::published::Published;
use concbench_core::{ResultDoc, Verdict, VerdictKind};

/// The shapes measured on one CPU and on all, best first: /dev/null has no shared consumer, so
/// it shows the cores; the pipe sweep is the seed's own workload.
const SHAPES: [(u64, u64, &str); 4] = [
    (255, 1000, "devnull"),
    (255, 10000, "pipe"),
    (255, 1000, "pipe"),
    (255, 100, "pipe"),
];

/// (processes, threads) speedups — time on one CPU / time on all — at the first shape measured
/// on both placements.
fn speedups(doc: &ResultDoc) -> Option<(Comparison, Comparison, (u64, u64, &'static str))> {
    SHAPES.iter().find_map(|&(workers, count, sink)| {
        let shape = |placement| Shape {
            placement,
            workers,
            count,
            line_bytes: 12,
            sink,
        };
        let (p1, t1, _) = pair(doc, shape("same-cpu"))?;
        let (pn, tn, _) = pair(doc, shape("unpinned"))?;
        Some((compare(pn, p1)?, compare(tn, t1)?, (workers, count, sink)))
    })
}

pub fn distribution(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let cpus = doc.host.cpus_allowed.len().max(doc.host.logical_cpus);
    if cpus < 2 {
        return None;
    }
    let (p, t, (workers, count, sink)) = speedups(doc)?;
    let processes_ahead = p.ci.0 > t.ci.1;
    let threads_ahead = t.ci.0 > p.ci.1;
    let kind = if processes_ahead {
        VerdictKind::Confirmed
    } else {
        VerdictKind::Depends
    };
    let explanation = format!(
        "From one CPU to all {cpus} ({workers} workers x {count} lines to {sink}): processes \
         finish {:.2}x faster (95% CI {:.2}-{:.2}), threads {:.2}x ({:.2}-{:.2}). {} Scaling \
         across machines needs separate programs talking over a network — a design choice a \
         single machine cannot test.",
        p.ratio,
        p.ci.0,
        p.ci.1,
        t.ratio,
        t.ci.0,
        t.ci.1,
        if processes_ahead {
            "Processes use the extra cores better here."
        } else if threads_ahead {
            "Threads use the extra cores better here: the kernel schedules both the same way, \
             and threads start faster."
        } else {
            "Both use the cores alike: the kernel schedules threads and processes the same way."
        }
    );
    verdict(
        published,
        "S0.table.distribution",
        kind,
        vec!["workload.print".to_string()],
        explanation,
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{around, doc, entry};
    use super::*;
    use crate::published::published;
    use concbench_core::ResultEntry;
    use serde_json::json;

    /// A document from a 2-CPU host (one CPU cannot show a speedup).
    fn two_cpu_doc(results: Vec<ResultEntry>) -> concbench_core::ResultDoc {
        let mut d = doc(results);
        d.host.logical_cpus = 2;
        d
    }

    fn print(model: &str, placement: &str, s: f64) -> ResultEntry {
        let p = [
            ("model", json!(model)),
            ("workers", json!(255)),
            ("count", json!(1000)),
            ("line_bytes", json!(12)),
            ("sink", json!("devnull")),
            ("placement", json!(placement)),
        ];
        entry("workload.print", &p, around(s))
    }

    #[test]
    fn equal_speedups_depend() {
        let d = two_cpu_doc(vec![
            print("process", "same-cpu", 0.086),
            print("thread", "same-cpu", 0.067),
            print("process", "unpinned", 0.045),
            print("thread", "unpinned", 0.035),
        ]);
        let v = distribution(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Depends);
        assert!(v.explanation.contains("alike"), "{}", v.explanation);
        assert_eq!(v.evidence, vec!["workload.print"]);
    }

    #[test]
    fn processes_scaling_better_confirm() {
        let d = two_cpu_doc(vec![
            print("process", "same-cpu", 0.09),
            print("thread", "same-cpu", 0.06),
            print("process", "unpinned", 0.045),
            print("thread", "unpinned", 0.055),
        ]);
        let v = distribution(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Confirmed);
    }
}
