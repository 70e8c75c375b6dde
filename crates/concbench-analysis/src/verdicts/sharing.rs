//! S0.table row "data sharing, sync": processes share only through IPC (hard) but sync simply;
//! threads share simply but sync is hard — a tie. What a benchmark can judge is the cost of
//! moving data: processes through a pipe and through shared memory vs threads through a
//! channel (share.*, same CPU). Ease of programming is not measured.

use super::{compare, find, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, Verdict, VerdictKind};
use serde_json::{json, Value};

/// Shared memory counts as "as cheap as threads" unless it is clearly more than this factor
/// slower (the tolerance "about" uses elsewhere); being faster does not break the tie.
const AS_CHEAP: f64 = 1.5;

fn size_name(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

pub fn sharing(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let mut sizes: Vec<u64> = doc
        .find("share.memory.thread")
        .filter_map(|e| e.params.get("bytes").and_then(Value::as_u64))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut parts = Vec::new();
    let mut evidence = Vec::new();
    let mut tie = true;
    for bytes in sizes {
        let at = [("bytes", json!(bytes)), ("placement", json!("same-cpu"))];
        let Some(thread) = find(doc, "share.memory.thread", &at) else {
            continue;
        };
        let shm = find(doc, "share.shm.process", &at).and_then(|e| Some((e, compare(thread, e)?)));
        let pipe =
            find(doc, "share.pipe.process", &at).and_then(|e| Some((e, compare(thread, e)?)));
        let mut part = format!("{}: ", size_name(bytes));
        if let Some((e, c)) = shm {
            tie &= c.ci.0 <= AS_CHEAP;
            part.push_str(&format!(
                "shared memory {:.2}x the thread channel (95% CI {:.2}-{:.2})",
                c.ratio, c.ci.0, c.ci.1
            ));
            evidence.push(e.id.clone());
        }
        if let Some((e, c)) = pipe {
            part.push_str(&format!(", a pipe {:.2}x", c.ratio));
            evidence.push(e.id.clone());
        }
        evidence.push(thread.id.clone());
        parts.push(part);
    }
    if parts.is_empty() || !evidence.iter().any(|id| id == "share.shm.process") {
        return None;
    }
    evidence.sort();
    evidence.dedup();
    let kind = if tie {
        VerdictKind::Confirmed
    } else {
        VerdictKind::Depends
    };
    let explanation = format!(
        "Moving a message and getting it acknowledged, same CPU, processes relative to threads — \
         {}. {} Which is easier to program (IPC vs locking) is not something a benchmark can \
         measure.",
        parts.join("; "),
        if tie {
            "Once processes share memory they move data about as cheaply as threads, or more \
             cheaply: a tie in cost; a pipe adds a copy through the kernel and a system call \
             per 64 KiB."
        } else {
            "Processes pay clearly more than threads at some sizes even with shared memory: \
             the cost depends on the mechanism and the message size."
        }
    );
    verdict(published, "S0.table.sharing", kind, evidence, explanation)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{around, doc, entry};
    use super::*;
    use crate::published::published;

    fn share(id: &str, bytes: u64, ns: f64) -> concbench_core::ResultEntry {
        let p = [("bytes", json!(bytes)), ("placement", json!("same-cpu"))];
        entry(id, &p, around(ns))
    }

    #[test]
    fn shared_memory_as_fast_as_a_channel_is_a_tie() {
        let d = doc(vec![
            share("share.memory.thread", 64, 8000.0),
            share("share.shm.process", 64, 5000.0),
            share("share.pipe.process", 64, 5300.0),
            share("share.memory.thread", 4 << 20, 155_000.0),
            share("share.shm.process", 4 << 20, 164_000.0),
            share("share.pipe.process", 4 << 20, 2_700_000.0),
        ]);
        let v = sharing(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Confirmed);
        assert!(v.explanation.contains("4 MiB"), "{}", v.explanation);
        assert_eq!(v.evidence.len(), 3);
    }

    #[test]
    fn much_slower_shared_memory_makes_it_depend() {
        let d = doc(vec![
            share("share.memory.thread", 64, 1000.0),
            share("share.shm.process", 64, 5000.0),
        ]);
        assert_eq!(
            sharing(&d, &published()).unwrap().verdict,
            VerdictKind::Depends
        );
    }
}
