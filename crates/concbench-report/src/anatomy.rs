//! The anatomy section as text tables (terminal): the layers of each hand-over, the victim's
//! slowdown per switch, fork against the parent's size, and the kernel's and CPU's evidence.
//! The numbers come from the answer ([`concbench_analysis::answer::Answer::anatomy`]); only
//! formatting happens here.

use crate::format;
use crate::layout::table;
use concbench_analysis::anatomy::{side::ForkCurve, Anatomy, Stack};
use std::fmt::Write;

pub const LAYER_HEADER: [&str; 5] = ["bar", "layer", "median", "95% CI", "note"];

/// Rows of every stacked bar: its layers bottom first, then its total.
pub fn layer_rows(stacks: &[Stack]) -> Vec<[String; 5]> {
    let mut rows = Vec::new();
    for s in stacks {
        for (i, l) in s.layers.iter().enumerate() {
            rows.push([
                if i == 0 {
                    s.name.clone()
                } else {
                    String::new()
                },
                l.name.clone(),
                format::value(l.median, "ns"),
                format::interval(l.median, l.interval.map(|(a, b)| [a, b]), "ns"),
                l.note().to_string(),
            ]);
        }
        rows.push([
            String::new(),
            "= total".into(),
            format::value(s.total(), "ns"),
            String::new(),
            String::new(),
        ]);
    }
    rows
}

pub const VICTIM_HEADER: [&str; 6] = [
    "partner",
    "victim's working set",
    "preempted every",
    "preemptions per pass",
    "victim's slowdown per switch (95% CI)",
    "direct switch, same CPU",
];

pub fn victim_rows(a: &Anatomy) -> Vec<[String; 6]> {
    a.victim
        .iter()
        .map(|v| {
            [
                v.partner.clone(),
                format!("{} KiB", v.working_set_kib),
                format!("{} µs", v.period_us),
                format::sig3(v.preemptions_per_pass),
                format::measured(v.per_switch_ns, v.interval.map(|(a, b)| [a, b]), "ns"),
                v.direct_switch_ns
                    .map(|d| format::value(d, "ns"))
                    .unwrap_or_else(|| "not measured".into()),
            ]
        })
        .collect()
}

pub const FORK_HEADER: [&str; 4] = [
    "creation",
    "THP",
    "cost by parent size",
    "per MiB of parent",
];

/// "the cost per MiB (interval)" and whether it depends on the size. A slope, in ns/MiB: it may
/// be below zero (a cost that falls as the parent grows), unlike a time.
pub fn per_mib_text(c: &ForkCurve) -> String {
    match c.ns_per_mib {
        None => "one size only".into(),
        Some((v, interval)) => {
            let figure = format::measured(v, interval.map(|(a, b)| [a, b]), "ns/MiB");
            let verdict = match c.depends_on_size() {
                Some(true) if v > 0.0 => "grows with the parent",
                Some(true) => "falls as the parent grows",
                Some(false) => "not distinguishable from zero: independent of the parent here",
                // `measured` already says "no interval".
                None => return figure,
            };
            format!("{figure} — {verdict}")
        }
    }
}

pub fn fork_rows(a: &Anatomy) -> Vec<[String; 4]> {
    a.fork
        .iter()
        .map(|c| {
            let points: Vec<String> = c
                .points
                .iter()
                .map(|(mib, ns, _)| format!("{mib} MiB: {}", format::value(*ns, "ns")))
                .collect();
            let huge = c
                .largest_huge_mib
                .filter(|_| c.thp == "on")
                .map(|h| format!(" ({h} MiB in huge pages)"))
                .unwrap_or_default();
            [
                c.id.clone(),
                format!("{}{huge}", c.thp),
                points.join("; "),
                per_mib_text(c),
            ]
        })
        .collect()
}

/// Threaded forks, the kernel's and CPU's evidence, and what was unavailable (each once).
pub fn lines(a: &Anatomy) -> Vec<String> {
    let mut out = Vec::new();
    for t in &a.threaded_fork {
        let single = t
            .single_median
            .map(|s| format!(" (one thread: {})", format::value(s, "ns")))
            .unwrap_or_default();
        out.push(format!(
            "fork from a parent with {} threads: {}{single}",
            t.threads,
            format::value(t.median, "ns")
        ));
    }
    for e in &a.evidence {
        let figures: Vec<String> = e
            .figures
            .iter()
            .map(|(k, v)| format!("{k} {}", format::sig3(*v)))
            .collect();
        out.push(format!(
            "kernel/CPU evidence, {}: {}",
            e.label,
            figures.join(", ")
        ));
    }
    out.extend(a.unavailable.iter().cloned());
    out
}

/// The whole section, or an empty string when the answer has no anatomy.
pub fn text(anatomy: Option<&Anatomy>, width: Option<u16>) -> String {
    let Some(a) = anatomy else {
        return String::new();
    };
    let mut out = String::new();
    if !a.stacks.is_empty() {
        let _ = writeln!(
            out,
            "\nAnatomy of a hand-over (per one-way hand-over; each layer is the difference of two \
             results, and one whose interval includes zero is not distinguishable here):"
        );
        let _ = writeln!(
            out,
            "{}",
            table(LAYER_HEADER, &layer_rows(&a.stacks), width)
        );
    }
    if !a.victim.is_empty() {
        let _ = writeln!(
            out,
            "\nThe victim's side: what a preemption costs the work it interrupts:"
        );
        let _ = writeln!(out, "{}", table(VICTIM_HEADER, &victim_rows(a), width));
    }
    if !a.fork.is_empty() {
        let _ = writeln!(
            out,
            "\nWhat makes fork expensive: creation cost by the parent's resident size:"
        );
        let _ = writeln!(out, "{}", table(FORK_HEADER, &fork_rows(a), width));
    }
    for line in lines(a) {
        let _ = writeln!(out, "{line}");
    }
    out
}
