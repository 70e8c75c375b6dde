//! S0.table row "reliability": processes are isolated; one thread's crash kills the whole
//! process. Judged on isolation.crash: did the pool of processes survive a worker's SIGSEGV, and
//! did the pool of threads die of it?

use super::{find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, ResultEntry, Verdict, VerdictKind};
use serde_json::json;

const ID: &str = "isolation.crash";

fn counter(e: &ResultEntry, name: &str) -> Option<f64> {
    e.counters.get(name).copied()
}

fn survived(e: &ResultEntry) -> Option<bool> {
    counter(e, "pool_survived").map(|v| v >= 0.5)
}

pub fn reliability(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let procs = find(doc, ID, &[("model", json!("process"))])?;
    let threads = find(doc, ID, &[("model", json!("thread"))])?;
    let (ps, ts) = (survived(procs)?, survived(threads)?);
    let tasks = procs.params.get_f64("tasks").unwrap_or(f64::NAN);
    let mut explanation = format!(
        "A pool of {} workers runs {tasks} tasks and one worker takes a real SIGSEGV. ",
        procs.params.get_f64("workers").unwrap_or(f64::NAN)
    );
    explanation.push_str(&if ps {
        let recovery = match (counter(procs, "detect_us"), counter(procs, "respawn_us")) {
            (Some(d), Some(r)) => format!(
                "; the supervisor reaped the dead worker {d:.0} us after its crash and had a \
                 replacement ready {r:.0} us later"
            ),
            _ => String::new(),
        };
        format!(
            "Processes: the pool survived, losing {:.0} task(s){recovery}. ",
            procs.summary.median
        )
    } else {
        format!(
            "Processes: the pool did not survive ({:.0} tasks lost). ",
            procs.summary.median
        )
    });
    explanation.push_str(&if ts {
        "Threads: the pool survived the crash.".to_string()
    } else {
        format!(
            "Threads: the fault killed the whole process — every thread of the pool — with {:.0} \
             of {tasks} tasks never done.",
            threads.summary.median
        )
    });
    let kind = match (ps, ts) {
        (true, false) => VerdictKind::Confirmed,
        (false, true) => VerdictKind::Refuted,
        _ => VerdictKind::Depends,
    };
    verdict(
        published,
        "S0.table.reliability",
        kind,
        vec![ID.to_string()],
        explanation,
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{doc, entry, with_counters};
    use super::*;
    use crate::published::published;

    fn crash(model: &str, lost: f64, survived: f64) -> ResultEntry {
        let params = [
            ("model", json!(model)),
            ("workers", json!(4)),
            ("tasks", json!(400)),
        ];
        with_counters(
            entry(ID, &params, vec![lost; 5]),
            &[
                ("pool_survived", survived),
                ("detect_us", 40.0),
                ("respawn_us", 150.0),
            ],
        )
    }

    #[test]
    fn a_surviving_process_pool_and_a_dead_thread_pool_confirm() {
        let d = doc(vec![
            crash("process", 1.0, 1.0),
            crash("thread", 300.0, 0.0),
        ]);
        let v = reliability(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Confirmed);
        assert!(v.explanation.contains("300 of 400"), "{}", v.explanation);
        assert!(
            v.explanation.contains("ready 150 us later"),
            "{}",
            v.explanation
        );
        assert!(!v.explanation.contains("NaN"), "{}", v.explanation);
    }

    #[test]
    fn a_thread_pool_that_survived_would_refute() {
        let d = doc(vec![
            crash("process", 400.0, 0.0),
            crash("thread", 1.0, 1.0),
        ]);
        let v = reliability(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Refuted);
    }
}
