//! The answer to "processes, threads or coroutines — here, for what?" as the terminal summary
//! and the page's answer section both show it: what one unit of each kind costs, and the
//! cheapest model for each typical workload. The numbers come from `concbench_analysis::advice`;
//! only the wording is here.

use crate::format;
use concbench_analysis::advice::{self, share, Cost, UnitCosts, Workload};
use concbench_core::ResultDoc;

pub const UNIT_HEADER: [&str; 4] = [
    "unit",
    "create + destroy",
    "one switch (same CPU)",
    "memory per unit",
];

/// One measured cost as people read it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Figure {
    /// "309 ns (reused stack)".
    pub text: String,
    /// "309 ns [300, 320] (reused stack)": with the 95% interval.
    pub with_interval: String,
    /// `id params` of the result it comes from.
    pub source: String,
}

/// What one unit of a kind costs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UnitRow {
    pub kind: &'static str,
    /// The creation cost the advice bills.
    pub create: Option<Figure>,
    /// The other way of creating the kind, when it costs far more or less (a coroutine on a
    /// fresh stack against a reused one).
    pub create_other: Option<Figure>,
    pub switch: Option<Figure>,
    pub memory: Option<Figure>,
}

fn time(cost: &Cost) -> Figure {
    let ci = cost.interval.map(|(lo, hi)| [lo, hi]);
    figure(
        cost,
        format::value(cost.value, "ns"),
        format::measured(cost.value, ci, "ns"),
    )
}

fn memory(cost: &Cost) -> Figure {
    // In MiB from 1 MiB up, as `format::kib` shows the value alone.
    let (f, unit) = if cost.value >= 1024.0 {
        (1.0 / 1024.0, "MiB")
    } else {
        (1.0, "KiB")
    };
    let ci = cost.interval.map(|(lo, hi)| [lo * f, hi * f]);
    figure(
        cost,
        format::kib(cost.value),
        format::measured(cost.value * f, ci, unit),
    )
}

fn figure(cost: &Cost, text: String, with_interval: String) -> Figure {
    let variant = cost
        .variant
        .as_ref()
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    Figure {
        text: format!("{text}{variant}"),
        with_interval: format!("{with_interval}{variant}"),
        source: cost.source.clone(),
    }
}

fn row(c: &UnitCosts) -> UnitRow {
    UnitRow {
        kind: c.kind.name(),
        create: c.create_ns.as_ref().map(time),
        create_other: c.create_other_ns.as_ref().map(time),
        switch: c.switch_ns.as_ref().map(time),
        memory: c.memory_kib.as_ref().map(memory),
    }
}

/// One row per kind of unit (process, thread, coroutine, async task), measured or not.
pub fn unit_rows(doc: &ResultDoc) -> Vec<UnitRow> {
    advice::unit_costs(doc).iter().map(row).collect()
}

/// Whether anything in the unit table was measured.
pub fn any_unit_cost(rows: &[UnitRow]) -> bool {
    rows.iter()
        .any(|r| r.create.is_some() || r.switch.is_some() || r.memory.is_some())
}

/// The unit table as text cells, each figure with its interval; a creation variant far from the
/// billed one on a second line of its cell.
pub fn unit_text_rows(rows: &[UnitRow]) -> Vec<[String; 4]> {
    let cell = |f: &Option<Figure>| {
        f.as_ref()
            .map_or_else(|| "not measured".to_string(), |f| f.with_interval.clone())
    };
    rows.iter()
        .map(|r| {
            let mut create = cell(&r.create);
            if let Some(other) = &r.create_other {
                create += &format!("\n{}", other.with_interval);
            }
            [r.kind.to_string(), create, cell(&r.switch), cell(&r.memory)]
        })
        .collect()
}

/// "Throwaway tasks" from "Throwaway tasks: 50,000 per second, ...".
fn short_name(name: &str) -> &str {
    name.split_once(':').map_or(name, |(head, _)| head)
}

/// "50,000/s, 2.00 µs CPU, never blocked".
fn workload_terms(w: &Workload) -> String {
    let blocked = if w.blocked_share > 0.0 {
        format!("{:.0}% blocked", w.blocked_share * 100.0)
    } else {
        "never blocked".into()
    };
    let isolated = if w.isolation { ", isolated" } else { "" };
    format!(
        "{}/s, {} CPU, {blocked}{isolated}",
        thousands(w.units_per_sec),
        format::value(w.cpu_us, "us")
    )
}

/// "50,000": a whole number with thousands separators.
fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One row per typical workload: its name, its terms, the cheapest model, and that model's
/// overhead (or what is missing for an answer).
pub fn workload_rows(doc: &ResultDoc) -> Vec<[String; 4]> {
    advice::typical_workloads()
        .into_iter()
        .map(|(name, w)| {
            let a = advice::advise(doc, w);
            let workload = short_name(name).to_string();
            let terms = workload_terms(&w);
            let Some(best) = a.best else {
                let mut needs: Vec<&str> = a
                    .bills
                    .iter()
                    .flat_map(|b| &b.missing)
                    .filter_map(|m| m.split_whitespace().next())
                    .collect();
                needs.sort();
                needs.dedup();
                return [
                    workload,
                    terms,
                    "no answer".into(),
                    format!("missing: {} measurements", needs.join(", ")),
                ];
            };
            let bill = a.bills.iter().find(|b| b.model == best).expect("billed");
            let mut overhead = bill.overhead_cpu.map(share).unwrap_or_default();
            if let Some(note) = a.capacity_note(bill) {
                overhead += &format!("; {note}");
            }
            [workload, terms, best.name().to_string(), overhead]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_analysis::synthetic::{doc, entry_with};
    use concbench_core::Params;

    fn create_coroutine(stack: &str, ns: f64) -> concbench_core::ResultEntry {
        let params = Params::new().with("stack_alloc", stack);
        entry_with("create.coroutine", "ns", params, &[ns; 8])
    }

    #[test]
    fn the_coroutine_row_says_which_stack_and_shows_a_far_dearer_one_beside() {
        let d = doc(vec![
            create_coroutine("reused", 14.0),
            create_coroutine("fresh", 10_800.0),
        ]);
        let rows = unit_rows(&d);
        let co = rows.iter().find(|r| r.kind == "coroutine").unwrap();
        assert_eq!(co.create.as_ref().unwrap().text, "14.0 ns (reused stack)");
        assert_eq!(
            co.create_other.as_ref().unwrap().text,
            "10.8 µs (fresh stack)"
        );
        let cells = unit_text_rows(&rows);
        let create = &cells.iter().find(|c| c[0] == "coroutine").unwrap()[1];
        let lines: Vec<&str> = create.lines().collect();
        assert_eq!(lines.len(), 2, "{create}");
        assert!(lines[0].starts_with("14.0 ns [") && lines[0].ends_with("(reused stack)"));
        assert!(lines[1].starts_with("10.8 µs [") && lines[1].ends_with("(fresh stack)"));
    }

    #[test]
    fn every_kind_has_a_row_and_unmeasured_cells_say_so() {
        let rows = unit_rows(&doc(vec![]));
        let kinds: Vec<&str> = rows.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, ["process", "thread", "coroutine", "async task"]);
        assert!(!any_unit_cost(&rows));
        assert!(unit_text_rows(&rows)
            .iter()
            .all(|r| r[1..].iter().all(|c| c == "not measured")));
    }

    #[test]
    fn workloads_without_measurements_name_what_is_missing() {
        let rows = workload_rows(&doc(vec![]));
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0][0], "Throwaway tasks");
        assert_eq!(rows[0][1], "50,000/s, 2.00 µs CPU, never blocked");
        assert_eq!(rows[0][2], "no answer");
        assert_eq!(rows[0][3], "missing: create, memory, switch measurements");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(50_000.0), "50,000");
        assert_eq!(thousands(100.0), "100");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
    }
}
