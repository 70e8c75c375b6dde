//! Replay recorded runs as a host meets them: each document, in start order, re-judged with this
//! build's rules and judged over the compatible runs before it (at most 19, newest first), as
//! `concbench run` does with its history. Writes each into OUT_DIR under its own file name, for
//! `bench/stability.py OUT_DIR/*.json`: the offline evaluation of the pooled verdicts, the
//! typical-half-width labels and the drift-widened intervals, on real data without measuring.
//!
//! Usage: cargo run --release -p concbench-analysis --example replay_history -- OUT_DIR RUN.json...

use anyhow::{Context, Result};
use concbench_analysis::verdicts::{compatible, judge, over_history};
use concbench_core::ResultDoc;
use std::path::{Path, PathBuf};

/// Runs pooled at most, as `concbench run` (this one included).
const WINDOW: usize = 20;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, files)) = args.split_first().filter(|(_, f)| !f.is_empty()) else {
        anyhow::bail!("usage: replay_history OUT_DIR RUN.json...");
    };
    let mut docs: Vec<(PathBuf, ResultDoc)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).with_context(|| format!("reading {f}"))?;
            let mut doc: ResultDoc =
                serde_json::from_str(&text).with_context(|| format!("parsing {f}"))?;
            doc.verdicts = judge(&doc);
            Ok((PathBuf::from(f), doc))
        })
        .collect::<Result<_>>()?;
    docs.sort_by(|a, b| a.1.started_at.cmp(&b.1.started_at));
    std::fs::create_dir_all(out).with_context(|| format!("creating {out}"))?;
    for i in 0..docs.len() {
        let mut doc = docs[i].1.clone();
        let others: Vec<&ResultDoc> = docs[..i]
            .iter()
            .rev()
            .map(|(_, d)| d)
            .filter(|d| compatible(&doc, d).is_ok())
            .take(WINDOW - 1)
            .collect();
        over_history(&mut doc, &others, Vec::new());
        let name = docs[i].0.file_name().context("a file name")?;
        let path = Path::new(out).join(name);
        std::fs::write(&path, serde_json::to_string(&doc)?)
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("{}: {} earlier runs pooled", path.display(), others.len());
    }
    Ok(())
}
