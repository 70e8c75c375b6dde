//! S4.one_thread: "Do file IO from one thread: more threads reading files do not help and degrade
//! as they grow."
//!
//! Judged on cold `io.read` results of the largest file size measured (the seed's 50 MiB in a
//! full run), for each reader that ran: the seed's one-byte-per-call reader and block reads.
//! Threads "help" when N threads finish the same files at least 10% sooner than one thread, with
//! a significant difference (the seed saw 6% and called it no help); they "do not help" when even
//! the favourable end of the 95% interval is a smaller gain; anything else is inconclusive and
//! does not count. "Degrade as they grow" is checked on the time per file of 100 (or the most)
//! threads against 10 threads.

use super::{compare, verdict};
use crate::published::Published;
use concbench_core::{ResultDoc, ResultEntry, Verdict, VerdictKind};
use serde_json::{json, Value};

/// Threads must be at least this much faster (1 / ratio) to count as help.
const HELP_FACTOR: f64 = 1.1;
/// The seed's headline comparison: ten files.
const HEADLINE_FILES: u64 = 10;

/// A cold `io.read` result with these params, at `file_mib`.
fn cold<'a>(
    doc: &'a ResultDoc,
    file_mib: u64,
    model: &str,
    files: u64,
    reader: &str,
) -> Option<&'a ResultEntry> {
    let want: [(&str, Value); 5] = [
        ("cache", json!("cold")),
        ("file_mib", json!(file_mib)),
        ("model", json!(model)),
        ("files", json!(files)),
        ("reader", json!(reader)),
    ];
    doc.results.iter().find(|e| {
        e.id == "io.read"
            && want.iter().all(|(k, v)| e.params.get(k) == Some(v))
            && (reader != "block" || e.params.get("read_kib") == Some(&json!(128)))
    })
}

/// The entry with every time divided by its file count: milliseconds per file.
fn per_file(e: &ResultEntry) -> Option<ResultEntry> {
    let files = e.params.get_f64("files").filter(|f| *f > 0.0)?;
    let mut scaled = e.clone();
    scaled.samples.iter_mut().for_each(|s| *s /= files);
    scaled.summary.median /= files;
    Some(scaled)
}

/// Whether threads helped one reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Help {
    Yes,
    No,
    Unclear,
}

/// What one reader showed.
struct ReaderFinding {
    reader: &'static str,
    help: Help,
    text: String,
    evidence_warnings: Vec<String>,
}

fn judge_reader(doc: &ResultDoc, file_mib: u64, reader: &'static str) -> Option<ReaderFinding> {
    let one = cold(
        doc,
        file_mib,
        "one-thread-sequential",
        HEADLINE_FILES,
        reader,
    )?;
    let many = cold(doc, file_mib, "threads", HEADLINE_FILES, reader)?;
    let c = compare(one, many)?;
    let help = if c.differs() && c.ratio * HELP_FACTOR <= 1.0 {
        Help::Yes
    } else if c.ci.0 * HELP_FACTOR > 1.0 {
        Help::No
    } else {
        Help::Unclear
    };
    let mut text = format!(
        "{reader} reader, {HEADLINE_FILES} x {file_mib} MiB cold: one thread {:.0} ms, {HEADLINE_FILES} \
         threads {:.0} ms ({:.2}x the time, 95% CI {:.2}-{:.2}{}).",
        one.summary.median,
        many.summary.median,
        c.ratio,
        c.ci.0,
        c.ci.1,
        if c.differs() { "" } else { ", not significant" }
    );
    let mut evidence_warnings = one.warnings.clone();
    evidence_warnings.extend(many.warnings.iter().cloned());
    if let Some((n, big)) = [100, 50, 20]
        .into_iter()
        .find_map(|n| cold(doc, file_mib, "threads", n, reader).map(|e| (n, e)))
    {
        if let Some(g) = per_file(many)
            .zip(per_file(big))
            .and_then(|(a, b)| compare(&a, &b))
        {
            text.push_str(&format!(
                " Per file, {n} threads take {:.2}x the time of {HEADLINE_FILES} threads (95% CI \
                 {:.2}-{:.2}): {}.",
                g.ratio,
                g.ci.0,
                g.ci.1,
                if g.differs() && g.ratio >= HELP_FACTOR {
                    "more threads degrade"
                } else if g.differs() && g.ratio * HELP_FACTOR <= 1.0 {
                    "more threads still gain"
                } else {
                    "no marked degradation"
                }
            ));
        }
    }
    Some(ReaderFinding {
        reader,
        help,
        text,
        evidence_warnings,
    })
}

/// The sentence that sums the readers up.
fn conclusion(kind: VerdictKind, helped: &[&str], not_helped: &[&str]) -> &'static str {
    match kind {
        _ if helped.is_empty() && not_helped.is_empty() => {
            "Inconclusive: the intervals allow both a marked gain and none; rerun on an idle \
             machine with --repeat 30."
        }
        VerdictKind::Confirmed => {
            "Threads did not read these files markedly faster than one thread."
        }
        VerdictKind::Refuted => {
            "Threads read these files markedly faster than one thread: on this machine the \
             storage serves parallel streams (or the reader is CPU-bound and threads spread it \
             over cores)."
        }
        VerdictKind::Depends if helped == ["byte"] => {
            "Threads helped only the byte-per-call reader: they pay off when reading is CPU-bound \
             (spread over the cores), not when the device is the limit."
        }
        VerdictKind::Depends | VerdictKind::Inconclusive => {
            "Threads helped only block reads, where the storage serves parallel streams faster; \
             the byte-per-call reader stayed bound by its CPU work."
        }
    }
}

/// The largest file size at which the headline pair (one thread and threads, ten files, cold)
/// was measured. Not simply the largest size measured: a full run also reads 4 x 128 MiB for the
/// side-by-side with fio, which has no ten-file pair and used to hide the verdict.
fn headline_file_mib(doc: &ResultDoc) -> Option<u64> {
    doc.results
        .iter()
        .filter(|e| e.id == "io.read" && e.params.get_str("cache") == Some("cold"))
        .filter_map(|e| e.params.get_f64("file_mib"))
        .map(|mib| mib as u64)
        .filter(|&mib| {
            ["byte", "block"].into_iter().any(|reader| {
                cold(doc, mib, "one-thread-sequential", HEADLINE_FILES, reader).is_some()
                    && cold(doc, mib, "threads", HEADLINE_FILES, reader).is_some()
            })
        })
        .max()
}

pub fn one_thread(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let file_mib = headline_file_mib(doc)?;
    let findings: Vec<ReaderFinding> = ["byte", "block"]
        .into_iter()
        .filter_map(|r| judge_reader(doc, file_mib, r))
        .collect();
    if findings.is_empty() {
        return None;
    }
    let with = |h: Help| -> Vec<&str> {
        findings
            .iter()
            .filter(|f| f.help == h)
            .map(|f| f.reader)
            .collect()
    };
    let (helped, not_helped, unclear) = (with(Help::Yes), with(Help::No), with(Help::Unclear));
    let kind = match (helped.is_empty(), not_helped.is_empty()) {
        (true, false) => VerdictKind::Confirmed,
        (false, true) => VerdictKind::Refuted,
        _ => VerdictKind::Depends,
    };
    let mut explanation: Vec<String> = findings.iter().map(|f| f.text.clone()).collect();
    explanation.push(conclusion(kind, &helped, &not_helped).into());
    let some_conclusive = !helped.is_empty() || !not_helped.is_empty();
    if some_conclusive && !unclear.is_empty() {
        explanation.push(format!(
            "The {} reader's comparison was inconclusive and is not counted.",
            unclear.join(" and ")
        ));
    }
    if findings.iter().any(|f| {
        f.evidence_warnings
            .iter()
            .any(|w| w.contains("faster than the first"))
    }) {
        explanation.push(
            "Caution: later cold repetitions were much faster than the first, so a cache below \
             this kernel (the hypervisor's) served reads; the seed's single spinning disk had none."
                .into(),
        );
    }
    if file_mib != 50 {
        explanation.push(format!(
            "Judged on {file_mib} MiB files (--quick); a full run uses the seed's 50 MiB."
        ));
    }
    verdict(
        published,
        "S4.one_thread",
        kind,
        vec!["io.read".to_string()],
        explanation.join(" "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_entry;
    use crate::published::published;
    use concbench_core::{Host, Meta, Params, RawMeasurement, Tool};

    fn entry(model: &str, files: u64, reader: &str, ms: [f64; 5]) -> ResultEntry {
        sized_entry(model, files, 50, reader, ms)
    }

    fn sized_entry(
        model: &str,
        files: u64,
        file_mib: u64,
        reader: &str,
        ms: [f64; 5],
    ) -> ResultEntry {
        let params = Params::new()
            .with("model", model)
            .with("files", files)
            .with("file_mib", file_mib)
            .with("read_kib", if reader == "byte" { 8 } else { 128 })
            .with("reader", reader)
            .with("cache", "cold")
            .with("placement", "unpinned");
        let meta = Meta {
            id: "io.read",
            family: "io",
            title: "t",
            op: "o",
            unit: "ms",
            expected_switches_per_op: None,
        };
        build_entry(&RawMeasurement::from_values(meta, params, ms.to_vec()))
    }

    fn doc(results: Vec<ResultEntry>) -> ResultDoc {
        ResultDoc {
            schema: concbench_core::SCHEMA_ID.into(),
            tool: Tool {
                name: "concbench".into(),
                version: "0".into(),
            },
            host: Host::default(),
            started_at: String::new(),
            duration_s: 0.0,
            settings: Default::default(),
            results,
            skipped: vec![],
            failures: vec![],
            verdicts: vec![],
            warnings: vec![],
            interrupted: false,
        }
    }

    const SEED_LIKE: [f64; 5] = [20300.0, 20310.0, 20312.0, 20320.0, 20330.0];
    const SLIGHTLY_FASTER: [f64; 5] = [19100.0, 19110.0, 19124.0, 19130.0, 19140.0];
    const TWICE_AS_FAST: [f64; 5] = [10100.0, 10110.0, 10124.0, 10130.0, 10140.0];

    #[test]
    fn the_seeds_own_figures_confirm_the_claim() {
        let d = doc(vec![
            entry("one-thread-sequential", 10, "byte", SEED_LIKE),
            entry("threads", 10, "byte", SLIGHTLY_FASTER),
        ]);
        let v = one_thread(&d, &published()).expect("evidence present");
        assert_eq!(v.verdict, VerdictKind::Confirmed, "{}", v.explanation);
    }

    #[test]
    fn threads_helping_one_reader_only_is_depends_and_both_is_refuted() {
        let mixed = doc(vec![
            entry("one-thread-sequential", 10, "byte", SEED_LIKE),
            entry("threads", 10, "byte", TWICE_AS_FAST),
            entry("one-thread-sequential", 10, "block", SEED_LIKE),
            entry("threads", 10, "block", SLIGHTLY_FASTER),
        ]);
        let v = one_thread(&mixed, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Depends);
        assert!(v.explanation.contains("byte-per-call"), "{}", v.explanation);
        let both = doc(vec![
            entry("one-thread-sequential", 10, "byte", SEED_LIKE),
            entry("threads", 10, "byte", TWICE_AS_FAST),
            entry("one-thread-sequential", 10, "block", SEED_LIKE),
            entry("threads", 10, "block", TWICE_AS_FAST),
        ]);
        assert_eq!(
            one_thread(&both, &published()).unwrap().verdict,
            VerdictKind::Refuted
        );
    }

    #[test]
    fn degradation_is_judged_per_file() {
        let per_file_doubled = SEED_LIKE.map(|v| v * 20.0);
        let d = doc(vec![
            entry("one-thread-sequential", 10, "byte", SEED_LIKE),
            entry("threads", 10, "byte", SEED_LIKE),
            entry("threads", 100, "byte", per_file_doubled),
        ]);
        let v = one_thread(&d, &published()).unwrap();
        assert!(
            v.explanation.contains("more threads degrade"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn noisy_evidence_is_inconclusive_not_a_confirmation() {
        let d = doc(vec![
            entry(
                "one-thread-sequential",
                10,
                "byte",
                [2000.0, 2500.0, 3500.0, 2400.0, 2600.0],
            ),
            entry(
                "threads",
                10,
                "byte",
                [1300.0, 1900.0, 3100.0, 1800.0, 2000.0],
            ),
        ]);
        let v = one_thread(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Depends, "{}", v.explanation);
        assert!(v.explanation.contains("Inconclusive"), "{}", v.explanation);
    }

    #[test]
    fn regression_fio_sized_files_do_not_hide_the_verdict() {
        // A full run also reads 4 x 128 MiB (beside fio); the verdict must still be judged on
        // the 50 MiB ten-file pair.
        let d = doc(vec![
            entry("one-thread-sequential", 10, "byte", SEED_LIKE),
            entry("threads", 10, "byte", SLIGHTLY_FASTER),
            sized_entry("threads", 4, 128, "block", TWICE_AS_FAST),
        ]);
        let v = one_thread(&d, &published()).expect("judged on the 50 MiB pair");
        assert_eq!(v.verdict, VerdictKind::Confirmed, "{}", v.explanation);
        assert!(!v.explanation.contains("128 MiB"), "{}", v.explanation);
    }

    #[test]
    fn no_io_results_no_verdict() {
        assert!(one_thread(&doc(vec![]), &published()).is_none());
    }
}
