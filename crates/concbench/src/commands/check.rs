//! `concbench check`: one screen of every setting on this machine that bends the figures — idle
//! states and PM QoS, frequency governor and boost, SMT, isolated CPUs, THP, perf access, ASLR,
//! IRQ balancing, steal and the hypervisor, cgroup limits, swap — each with its value, why it
//! matters and how to change it (`pyperf system show` for concurrency costs). Where a stored
//! run measured the effect (the wake-up experiment), the figure is shown beside the setting.
//!
//! Exit code 0 when nothing bends the figures, 1 when something does, so a CI job can insist on
//! a tuned machine. The settings are read by [`concbench_measure::tuning`]; this file only shows
//! them.

use crate::args::CheckArgs;
use crate::stdout::out;
use anyhow::{Context, Result};
use concbench_core::ResultDoc;
use concbench_measure::idle::Root;
use concbench_measure::tuning::{self, Effect, Reader, Setting};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The experiment whose figures `check` shows beside the idle settings.
const WAKE_ID: &str = "switch.wake.thread";

pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let root = Root::new(args.root.clone().unwrap_or_else(|| PathBuf::from("/")));
    let is_root = concbench_measure::awake::is_root();
    // The live machine's hypervisor also shows in CPUID, which a recorded tree cannot hold.
    let hypervisor = match args.root {
        None => concbench_measure::host::hypervisor().1,
        Some(_) => None,
    };
    let settings = tuning::read(
        &root,
        Reader {
            is_root,
            hypervisor,
        },
    );
    let measured = match &args.from {
        Some(path) => Some(read_doc(path)?),
        None => newest_doc_with_wake(Path::new(crate::output::DEFAULT_DIR)),
    }
    .and_then(|doc| wake_figures(&doc));
    let bends = tuning::any_bends(&settings);
    if args.json {
        let doc = serde_json::json!({
            "bends": bends,
            "is_root": is_root,
            "settings": settings,
            "measured_wake_up": measured,
        });
        out!("{}\n", serde_json::to_string_pretty(&doc)?);
    } else {
        let width = concbench_report::terminal::stdout_width().map_or(100, usize::from);
        out!(
            "{}",
            render(&settings, measured.as_deref(), is_root, args.all, width)
        );
    }
    Ok(if bends {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The screen: a line per setting; why and how under the ones that bend or limit (under every
/// one with `--all`).
pub fn render(
    settings: &[Setting],
    measured: Option<&str>,
    is_root: bool,
    all: bool,
    width: usize,
) -> String {
    let mut s = String::new();
    let who = if is_root {
        "as root"
    } else {
        "as an ordinary user: some values need root"
    };
    let _ = writeln!(
        s,
        "concbench check — what on this machine bends the figures ({who})\n"
    );
    let key_width = settings.iter().map(|x| x.key.len()).max().unwrap_or(0);
    let pad = " ".repeat(8 + key_width + 2);
    let text_width = width.saturating_sub(pad.len()).max(40);
    for x in settings {
        let _ = writeln!(
            s,
            "{:<7} {:<key_width$}  {}",
            mark(x.effect),
            x.key,
            x.value
        );
        let mut detail = |label: &str, text: &str| {
            for line in wrap(&format!("{label}: {text}"), text_width) {
                let _ = writeln!(s, "{pad}{line}");
            }
        };
        if all || matches!(x.effect, Effect::Bends | Effect::Limits) {
            detail("why", &x.why);
            if !x.how.is_empty() {
                detail("how", &x.how);
            }
        }
        if let (Some(m), "idle.driver") = (measured, x.key) {
            detail("measured here", m);
        }
    }
    let n = settings
        .iter()
        .filter(|x| x.effect == Effect::Bends)
        .count();
    let _ = writeln!(
        s,
        "\n{}",
        match n {
            0 => "Nothing here bends the figures (exit code 0).".to_string(),
            1 => "1 setting bends the figures (exit code 1); --json for tools, --all for every reason."
                .to_string(),
            n => format!(
                "{n} settings bend the figures (exit code 1); --json for tools, --all for every reason."
            ),
        }
    );
    s
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

fn mark(e: Effect) -> &'static str {
    match e {
        Effect::Fine => "ok",
        Effect::Info => "info",
        Effect::Limits => "LIMITS",
        Effect::Bends => "BENDS",
        Effect::Unknown => "?",
    }
}

fn read_doc(path: &Path) -> Result<ResultDoc> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a result document", path.display()))
}

/// The newest result document in `dir` that measured the wake-up experiment (by file time).
fn newest_doc_with_wake(dir: &Path) -> Option<ResultDoc> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort();
    files.into_iter().rev().find_map(|(_, p)| {
        let text = std::fs::read_to_string(&p).ok()?;
        if !text.contains(WAKE_ID) {
            return None;
        }
        serde_json::from_str::<ResultDoc>(&text).ok()
    })
}

/// "one cross-CPU hand-over: free 21.4 µs (0.80 idle entries per hand-over), spinner 3.9 µs (run
/// of 2026-11-27T00:00:00Z)".
pub fn wake_figures(doc: &ResultDoc) -> Option<String> {
    let parts: Vec<String> = doc
        .results
        .iter()
        .filter(|r| r.id == WAKE_ID)
        .filter_map(|r| {
            let condition = r.params.get_str("idle")?.to_string();
            let us = r.summary.median / 1000.0;
            let sleeps = r
                .counters
                .get(concbench_measure::idle::SLEEPS_PER_OP)
                .map(|n| format!(" ({n:.2} idle entries per hand-over)"))
                .unwrap_or_default();
            Some(format!(
                "{} {us:.1} µs{sleeps}",
                condition.replace('_', " ")
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "one cross-CPU hand-over: {} (run of {})",
            parts.join(", "),
            doc.started_at
        )
    })
}
