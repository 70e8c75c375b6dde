//! `concbench advise`: every model's bill for the workload, the arithmetic behind it, and the
//! cheapest eligible model. The numbers come from `concbench_analysis::advice`.

use crate::terminal::table;
use concbench_analysis::advice::{kib_text, share, Advice};
use std::fmt::Write;

const HEADER: [&str; 4] = [
    "model",
    "CPU overhead (create + switch)",
    "memory in flight",
    "note",
];

pub fn advice_text(a: &Advice, source: &str) -> String {
    let w = &a.workload;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Workload: {} units/s, {:.0}% of each unit's life blocked, {} us CPU per unit{}.\n\
         Lifetime {:.1} us, so {:.2} units in flight (Little's law). Costs measured in {source}.",
        w.units_per_sec,
        w.blocked_share * 100.0,
        w.cpu_us,
        if w.isolation {
            ", units must be isolated"
        } else {
            ""
        },
        w.lifetime_us(),
        w.in_flight()
    );
    let rows: Vec<[String; 4]> = a
        .bills
        .iter()
        .map(|b| {
            let note = match (&b.excluded, a.best == Some(b.model)) {
                (Some(why), _) => format!("excluded: {why}"),
                (None, true) => "CHEAPEST".to_string(),
                (None, false) if b.overhead_cpu.is_none() => {
                    "not ranked: missing measurements".into()
                }
                _ => String::new(),
            };
            [
                b.model.name().to_string(),
                b.overhead_cpu.map(share).unwrap_or_else(|| "?".into()),
                b.memory_kib.map(kib_text).unwrap_or_else(|| "?".into()),
                note,
            ]
        })
        .collect();
    let _ = writeln!(out, "{}", table(HEADER, &rows, None));
    for b in &a.bills {
        let _ = writeln!(out, "\n{}:", b.model.name());
        for line in &b.arithmetic {
            let _ = writeln!(out, "  {line}");
        }
        for m in &b.missing {
            let _ = writeln!(out, "  missing: {m}");
        }
    }
    let answer = match a.best {
        Some(m) => {
            let bill = a
                .bills
                .iter()
                .find(|b| b.model == m)
                .expect("best is billed");
            let capacity = a
                .capacity_note(bill)
                .map(|n| format!(" Even so it {n}: spread the load over more machines."))
                .unwrap_or_default();
            format!(
                "Answer: {} costs least on this machine for this workload (the work itself, {} us \
                 per unit, is the same in every model and is not counted).{capacity}",
                m.name(),
                w.cpu_us
            )
        }
        None => "Answer: none can be given: the measurements above are missing.".to_string(),
    };
    let _ = writeln!(out, "\n{answer}");
    out
}
