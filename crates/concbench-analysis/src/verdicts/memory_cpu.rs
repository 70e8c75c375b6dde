//! S0.table row "memory, CPU": processes use more memory and switch expensively; threads use
//! less and switch cheaply. Judged on what one idle unit holds (memory.process vs memory.thread
//! at the pthread default stack, PSS per unit) and, when the switch family ran, on the same-CPU
//! pipe ping-pong between processes vs between threads.

use super::{compare, find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, ResultEntry, Verdict, VerdictKind};
use serde_json::json;

/// Units held at once for the comparison: large enough to amortise fixed costs, cheap to run.
const PREFERRED_UNITS: u64 = 1000;

/// memory.process and memory.thread (default stack) at the same unit count, preferring 1000.
pub(crate) fn memory_pair(doc: &ResultDoc) -> Option<(&ResultEntry, &ResultEntry)> {
    let at = |units: u64| {
        let u = [("units", json!(units))];
        let thread = [("units", json!(units)), ("stack", json!("default"))];
        find(doc, "memory.process", &u).zip(find(doc, "memory.thread", &thread))
    };
    at(PREFERRED_UNITS).or_else(|| {
        doc.find("memory.process")
            .filter_map(|p| p.params.get("units")?.as_u64())
            .find_map(at)
    })
}

fn counter(e: &ResultEntry, name: &str) -> f64 {
    e.counters.get(name).copied().unwrap_or(f64::NAN)
}

/// A sentence on what a process and a thread hold, for this verdict and for S0.30x.
pub(crate) fn memory_sentence(doc: &ResultDoc) -> Option<String> {
    let (p, t) = memory_pair(doc)?;
    let c = compare(t, p)?;
    Some(format!(
        "Held idle ({} at once), a process adds {:.1} KiB of PSS and a thread {:.1} KiB: {:.1}x \
         (95% CI {:.1}-{:.1}); in the kernel (stacks, page tables) {:.0} vs {:.0} KiB. Summed \
         RSS would charge each forked process {:.0} KiB, counting the parent's shared pages once \
         per child. Committed address space goes the other way: {:.0} KiB per process against \
         {:.0} KiB per thread, whose whole default stack is reserved.",
        p.params.get("units").and_then(|u| u.as_u64()).unwrap_or(0),
        p.summary.median,
        t.summary.median,
        c.ratio,
        c.ci.0,
        c.ci.1,
        counter(p, "kernel_kib_per_unit"),
        counter(t, "kernel_kib_per_unit"),
        counter(p, "rss_kib_per_unit"),
        counter(p, "committed_kib_per_unit"),
        counter(t, "committed_kib_per_unit"),
    ))
}

pub fn memory_cpu(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let (p, t) = memory_pair(doc)?;
    let mem = compare(t, p)?;
    let mut evidence = vec![p.id.clone(), t.id.clone()];
    let mut explanation = memory_sentence(doc)?;
    let threads_lighter = mem.differs() && mem.ratio > 1.0;
    let same = [("placement", json!("same-cpu"))];
    let switch = find(doc, "switch.pipe.thread", &same)
        .zip(find(doc, "switch.pipe.process", &same))
        .and_then(|(st, sp)| Some((st, sp, compare(st, sp)?)));
    let switch_cheaper_for_threads = switch.map(|(st, sp, c)| {
        evidence.extend([sp.id.clone(), st.id.clone()]);
        explanation.push_str(&format!(
            " A process switch (pipe ping-pong, same CPU) costs {} a thread switch.",
            c.describe()
        ));
        c.differs() && c.ratio > 1.0
    });
    explanation.push_str(
        " The claim's \"lower CPU use\" of processes is not a property of the unit and is not \
         judged here.",
    );
    let kind = match (threads_lighter, switch_cheaper_for_threads) {
        (true, Some(true)) | (true, None) => VerdictKind::Confirmed,
        (true, Some(false)) => VerdictKind::Depends,
        (false, _) => VerdictKind::Refuted,
    };
    verdict(
        published,
        "S0.table.memory_cpu",
        kind,
        evidence,
        explanation,
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{around, doc, entry, with_counters};
    use super::*;
    use crate::published::published;

    fn mem(id: &str, stack: Option<&str>, pss: f64) -> ResultEntry {
        let mut params = vec![("units", json!(1000))];
        if let Some(s) = stack {
            params.push(("stack", json!(s)));
        }
        with_counters(
            entry(id, &params, around(pss)),
            &[
                ("rss_kib_per_unit", 500.0),
                ("committed_kib_per_unit", 400.0),
                ("kernel_kib_per_unit", 60.0),
            ],
        )
    }

    #[test]
    fn heavier_processes_confirm_and_name_rss_and_commit() {
        let d = doc(vec![
            mem("memory.process", None, 28.0),
            mem("memory.thread", Some("default"), 9.6),
        ]);
        let v = memory_cpu(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Confirmed);
        assert!(v.explanation.contains("2.9x"), "{}", v.explanation);
        assert!(v.explanation.contains("RSS"), "{}", v.explanation);
        assert_eq!(v.evidence, vec!["memory.process", "memory.thread"]);
    }

    #[test]
    fn equal_switch_costs_make_it_depend() {
        let same = [("placement", json!("same-cpu"))];
        let d = doc(vec![
            mem("memory.process", None, 28.0),
            mem("memory.thread", Some("default"), 9.6),
            entry("switch.pipe.process", &same, around(2600.0)),
            entry("switch.pipe.thread", &same, around(2600.0)),
        ]);
        let v = memory_cpu(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Depends);
        assert_eq!(v.evidence.len(), 4);
    }

    #[test]
    fn the_30x_verdict_adds_memory_when_it_was_measured() {
        let d = doc(vec![
            entry(
                "create.fork",
                &[("parent", json!("single-threaded"))],
                around(150_000.0),
            ),
            entry(
                "create.thread",
                &[("stack", json!("default"))],
                around(25_000.0),
            ),
            mem("memory.process", None, 28.0),
            mem("memory.thread", Some("default"), 9.6),
        ]);
        let v = super::super::process_vs_thread::thirty_times(&d, &published()).unwrap();
        assert!(v.explanation.contains("Held idle"), "{}", v.explanation);
        assert!(v.evidence.contains(&"memory.thread".to_string()));
    }

    #[test]
    fn no_memory_results_no_verdict() {
        assert!(memory_cpu(&doc(vec![]), &published()).is_none());
    }
}
