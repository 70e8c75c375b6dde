//! S2.switch_order: "process switches cost more than thread switches, which cost more than
//! coroutine switches".
//!
//! Judged on one CPU with one mechanism for both kinds of OS unit (the pipe ping-pong, plain
//! variant), against the stackful coroutine's resume/suspend. Each step of the order must be a
//! significant difference to count.

use super::process_vs_thread::human_ns;
use super::switch_cost::plain;
use super::{compare, find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, Verdict, VerdictKind};

pub fn switch_order(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let process = plain(doc, "switch.pipe.process", "same-cpu")?;
    let thread = plain(doc, "switch.pipe.thread", "same-cpu")?;
    let coroutine = find(doc, "switch.coroutine", &[])?;
    let pt = compare(thread, process)?;
    let tc = compare(coroutine, thread)?;
    let mut evidence = vec![process.id.clone(), thread.id.clone(), coroutine.id.clone()];
    let mut explanation = format!(
        "Per one-way switch on one CPU: process {}, thread {} ({:.2}x, 95% CI {:.2}-{:.2}), \
         stackful coroutine {} (the thread switch costs {:.0}x a coroutine switch).",
        human_ns(process.summary.median),
        human_ns(thread.summary.median),
        pt.ratio,
        pt.ci.0,
        pt.ci.1,
        human_ns(coroutine.summary.median),
        tc.ratio
    );
    if let Some(task) = find(doc, "switch.async_task", &[]) {
        evidence.push(task.id.clone());
        explanation.push_str(&format!(
            " An async task hand-over (tokio) costs {}.",
            human_ns(task.summary.median)
        ));
    }
    let kind = if !(tc.differs() && tc.ratio > 1.0) {
        explanation.push_str(" The coroutine switch is not cheaper than a thread switch here.");
        VerdictKind::Refuted
    } else if pt.differs() && pt.ratio > 1.0 {
        VerdictKind::Confirmed
    } else if pt.differs() {
        explanation.push_str(
            " A thread switch costs more than a process switch here: the first step of the \
             order is reversed.",
        );
        VerdictKind::Refuted
    } else {
        explanation.push_str(
            " Process and thread switches are not clearly apart: both go through the same \
             kernel scheduler, and the change of address space is cheap with tagged TLBs \
             (PCID). The real gap is between kernel and user-space switches.",
        );
        VerdictKind::Depends
    };
    verdict(published, "S2.switch_order", kind, evidence, explanation)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{around, doc, entry, plain_switch};
    use super::*;
    use crate::published::published;
    use concbench_core::ResultEntry;

    fn pipe(id: &str, ns: f64) -> ResultEntry {
        plain_switch(id, "same-cpu", ns)
    }

    fn judge(process: f64, thread: f64, coroutine: f64) -> Verdict {
        let d = doc(vec![
            pipe("switch.pipe.process", process),
            pipe("switch.pipe.thread", thread),
            entry("switch.coroutine", &[], around(coroutine)),
        ]);
        switch_order(&d, &published()).expect("evidence is complete")
    }

    #[test]
    fn a_strict_order_is_confirmed() {
        let v = judge(3000.0, 2500.0, 2.0);
        assert_eq!(v.verdict, VerdictKind::Confirmed, "{}", v.explanation);
        assert_eq!(v.evidence.len(), 3);
    }

    #[test]
    fn equal_process_and_thread_switches_depend() {
        let v = judge(2600.0, 2600.0, 2.0);
        assert_eq!(v.verdict, VerdictKind::Depends, "{}", v.explanation);
    }

    #[test]
    fn a_thread_switch_dearer_than_a_process_switch_refutes() {
        let v = judge(2500.0, 3000.0, 2.0);
        assert_eq!(v.verdict, VerdictKind::Refuted, "{}", v.explanation);
        assert!(v.explanation.contains("reversed"), "{}", v.explanation);
    }

    #[test]
    fn a_coroutine_as_dear_as_a_thread_refutes() {
        let v = judge(3000.0, 2500.0, 2500.0);
        assert_eq!(v.verdict, VerdictKind::Refuted, "{}", v.explanation);
    }

    #[test]
    fn no_verdict_without_the_coroutine() {
        let d = doc(vec![
            pipe("switch.pipe.process", 3000.0),
            pipe("switch.pipe.thread", 2500.0),
        ]);
        assert!(switch_order(&d, &published()).is_none());
    }
}
