//! `concbench advise`: every model's bill for the workload, the arithmetic behind it, and the
//! cheapest eligible model. The numbers come from `concbench_analysis::advice`.

use crate::format;
use crate::layout::table;
use concbench_analysis::advice::{kib_text, share, Advice};
use std::fmt::Write;

const HEADER: [&str; 5] = [
    "model",
    "CPU overhead (create + switch)",
    "overhead / work",
    "memory in flight",
    "note",
];

pub fn advice_text(a: &Advice, source: &str) -> String {
    let w = &a.workload;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Workload: {} units/s, {:.0}% of each unit's life blocked, {} of CPU per unit{}.\n\
         Lifetime {}, so {:.2} units in flight (Little's law). Costs measured in {source}.",
        w.units_per_sec,
        w.blocked_share * 100.0,
        format::value(w.cpu_us, "us"),
        if w.isolation {
            ", units must be isolated"
        } else {
            ""
        },
        format::value(w.lifetime_us(), "us"),
        w.in_flight()
    );
    let rows: Vec<[String; 5]> = a
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
                b.share_of_work
                    .map(|s| format!("{}%", crate::format::sig3(s * 100.0)))
                    .unwrap_or_else(|| "-".into()),
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
            let fits = crate::answer::capacity_answer(a)
                .map(|f| format!(" At this workload's shape, {f}."))
                .unwrap_or_default();
            // A model left unranked for lack of measurements could be cheaper: say so.
            let unranked: Vec<&str> = a
                .bills
                .iter()
                .filter(|b| b.excluded.is_none() && b.overhead_cpu.is_none())
                .map(|b| b.model.name())
                .collect();
            let among = if unranked.is_empty() {
                String::new()
            } else {
                format!(
                    " among what was measured (not measured: {})",
                    unranked.join(", ")
                )
            };
            format!(
                "Answer: {} costs least on this machine for this workload{among} (the work \
                 itself, {} per unit, is the same in every model: it does not change the \
                 ranking, and what fits in a share of a CPU counts it with the overhead).{fits}\
                 {capacity}",
                m.name(),
                format::value(w.cpu_us, "us")
            )
        }
        None => "Answer: none can be given: the measurements above are missing.".to_string(),
    };
    let _ = writeln!(out, "\n{answer}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_analysis::advice::{advise, Workload};
    use concbench_analysis::synthetic::{doc, entry_with};
    use concbench_core::{Params, ResultDoc};

    /// Coroutines' costs (a switch, a channel hand-over, 4 KiB), a thread's pipe hand-over of
    /// `pipe_ns`, and the coroutine creations given.
    fn coroutines(creations: Vec<concbench_core::ResultEntry>, pipe_ns: f64) -> ResultDoc {
        let mut results = creations;
        results.extend([
            entry_with("switch.coroutine", "ns", Params::new(), &[30.0; 8]),
            entry_with("switch.channel.coroutine", "ns", Params::new(), &[90.0; 8]),
            entry_with("switch.pipe.thread", "ns", Params::new(), &[pipe_ns; 8]),
            entry_with("memory.coroutine", "KiB", Params::new(), &[4.0; 8]),
        ]);
        doc(results)
    }

    /// 1000 units a second, half blocked, `cpu_us` of work each.
    fn workload(cpu_us: f64) -> Workload {
        Workload {
            units_per_sec: 1000.0,
            blocked_share: 0.5,
            cpu_us,
            isolation: false,
        }
    }

    #[test]
    fn regression_advise_cpu_us_100_said_49200_per_second_in_a_tenth_of_a_cpu() {
        // `advise --cpu-us 100` printed "10% of one CPU fits 49,200/s": 100 us of work caps it
        // at 1,000/s.
        let create = entry_with("create.coroutine", "ns", Params::new(), &[14.0; 8]);
        let d = coroutines(vec![create], 2000.0);
        let text = advice_text(&advise(&d, workload(100.0)), "a test");
        // 0.1 / (100 us + 2.134 us) = 979/s.
        assert!(text.contains("10% of one CPU fits 979/s"), "{text}");
        assert!(
            text.contains("the model's overhead: 2.1% of the work"),
            "{text}"
        );
    }

    #[test]
    fn durations_read_one_way_and_the_billed_coroutine_variant_is_named() {
        let create = |stack: &str, ns: f64| {
            let params = Params::new().with("stack_alloc", stack);
            entry_with("create.coroutine", "ns", params, &[ns; 8])
        };
        let d = coroutines(
            vec![create("reused", 14.0), create("fresh", 10_800.0)],
            2500.0,
        );
        let text = advice_text(&advise(&d, workload(2500.0)), "a test");
        assert!(
            text.contains("2.50 ms of CPU per unit") && text.contains("Lifetime 5.00 ms"),
            "{text}"
        );
        assert!(
            text.contains("create is billed for a reused stack; a fresh stack costs 10.8 µs"),
            "{text}"
        );
        assert!(!text.contains(" us ") && !text.contains(" us,"), "{text}");
        // 2.5 ms of work + (14 + 2500 + 90 + 30) ns of overhead per unit: 10% of one CPU fits
        // 0.1 / 2.502634 ms = 40/s (the overhead alone would have claimed 38,000/s).
        assert!(text.contains("10% of one CPU fits 40/s"), "{text}");
        assert!(
            text.contains("the model's overhead: 0.11% of the work"),
            "{text}"
        );
        // No process or thread creation measured: the answer holds among what was.
        assert!(
            text.contains(
                "costs least on this machine for this workload among what was measured \
                 (not measured: a process per unit (fork), a process pool (prefork), a thread per unit"
            ),
            "{text}"
        );
    }
}
