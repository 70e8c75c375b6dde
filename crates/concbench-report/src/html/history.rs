//! The page's "over this host's history" section: each claim judged over this run and the
//! compatible stored runs of its host (`doc.history`), beside what this run alone says, and
//! for a check whose pooled rounds fall in separate modes, the modes and the condition that
//! separates them. The same content as the Markdown report's section; nothing is computed here.

use concbench_core::{History, VerdictKind};
use serde::Serialize;

/// The section's view model.
#[derive(Debug, Serialize)]
pub(super) struct HistoryView {
    /// "4 runs, 2026-11-20 … 2026-11-26; left out: 1 interrupted".
    heading: String,
    /// Which claims differ from this run alone.
    summary: String,
    rows: Vec<HistoryRow>,
}

#[derive(Debug, Serialize)]
struct HistoryRow {
    source: String,
    verdict: VerdictKind,
    /// The pooled verdict as said, "partly judged" kept.
    word: String,
    /// "confirmed over 4 runs (62 rounds); this run alone: inconclusive".
    sentence: String,
    /// "condition: bimodal over the runs (…); separated by idle state: …", one per such check.
    modes: Vec<String>,
}

/// The section, when the run was judged over its host's history.
pub(super) fn view(history: Option<&History>) -> Option<HistoryView> {
    let h = history.filter(|h| !h.verdicts.is_empty())?;
    Some(HistoryView {
        heading: h.heading(),
        summary: h.summary(),
        rows: h
            .verdicts
            .iter()
            .map(|v| HistoryRow {
                source: v.source.clone(),
                verdict: v.verdict,
                word: v.word(),
                sentence: v.sentence(),
                modes: v
                    .checks
                    .iter()
                    .filter(|c| !c.modes.is_empty())
                    .map(|c| format!("{}: {}", c.condition, c.note))
                    .collect(),
            })
            .collect(),
    })
}
