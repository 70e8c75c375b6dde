//! The answer to "processes, threads or coroutines — here, for what?" as the terminal summary
//! and the page's answer section both show it: what one unit of each kind costs, and the
//! cheapest model for each typical workload. The numbers come from the answer model
//! (`concbench_analysis::answer`), computed once per document; only the wording is here.

use crate::format;
use concbench_analysis::advice::{self, Cost, UnitCosts, Workload};
use concbench_analysis::answer::Answer;

pub const UNIT_HEADER: [&str; 5] = [
    "unit",
    "create + destroy",
    "hand-over",
    "bare switch",
    "memory (PSS + kernel)",
];

/// What each column of the unit table measures — the same thing for every unit — in two lines
/// under the terminal's table, with the PSS part of each memory figure.
pub fn unit_definitions(rows: &[UnitRow]) -> [String; 2] {
    let pss: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            Some(format!(
                "{} {}",
                r.kind,
                r.pss.as_ref()?.text.trim_start_matches("PSS ")
            ))
        })
        .collect();
    let pss = if pss.is_empty() {
        String::new()
    } else {
        format!(" (PSS alone: {})", pss.join(", "))
    };
    [
        "hand-over: pass a value, wake the other, one CPU (pipe; channel); bare switch: the \
         switch alone"
            .to_string(),
        format!("memory: an idle unit's PSS + the kernel's share{pss}"),
    ]
}

/// The unit table as single-line cells, a header first, and the notes its marks refer to: a
/// kind measured in several variants is marked "*" where the billed one is shown, and the note
/// names it and gives the other ("* coroutine: a reused stack, billed; a fresh stack: 15.5 µs
/// [11.2, 16.7]").
pub fn unit_cells(rows: &[UnitRow]) -> (Vec<Vec<String>>, Vec<String>) {
    let header = [
        "unit",
        "create + destroy",
        "hand-over",
        "bare switch",
        "memory",
    ];
    let mut cells = vec![header.map(String::from).to_vec()];
    let mut notes = Vec::new();
    let cell = |f: &Option<Figure>| {
        f.as_ref()
            .map_or_else(|| "not measured".to_string(), |f| f.plain.clone())
    };
    for r in rows {
        let mut create = cell(&r.create);
        let variant = r.create.as_ref().and_then(|f| f.variant.clone());
        if let Some(variant) = variant {
            let mark = "*".repeat(notes.len() + 1);
            create += &mark;
            let other = r
                .create_other
                .as_ref()
                .map(|o| {
                    format!(
                        "; {}: {}",
                        o.variant.as_deref().unwrap_or("the other"),
                        o.plain
                    )
                })
                .unwrap_or_default();
            notes.push(format!("{mark} {}: a {variant}, billed{other}", r.kind));
        }
        cells.push(vec![
            r.kind.to_string(),
            create,
            cell(&r.handover),
            cell(&r.bare_switch),
            cell(&r.memory),
        ]);
    }
    (cells, notes)
}

/// What each column of the unit table measures, the same thing for every unit, under it.
pub const UNIT_DEFINITIONS: [&str; 2] = [
    "hand-over: one unit passes a value and wakes the other on the same CPU (a pipe between \
     processes or threads; the runtime's channel between coroutines or tasks)",
    "bare switch: the switch alone (the pipe ping-pong less its transport; a coroutine resume; a \
     task yield); memory: what an idle unit costs the machine, PSS plus the kernel's share \
     (stack, task structures, page tables) for processes and threads",
];

/// One measured cost as people read it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Figure {
    /// "309 ns (reused stack)".
    pub text: String,
    /// "309 ns [300, 320] (reused stack)": with the 95% interval.
    pub with_interval: String,
    /// "309 ns [300, 320]": with the interval, without the variant.
    pub plain: String,
    /// "reused stack": which variant of the kind it is, when the kind has several.
    pub variant: Option<String>,
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
    /// A hand-over that wakes the other unit.
    pub handover: Option<Figure>,
    /// The switch alone.
    pub bare_switch: Option<Figure>,
    /// What an idle unit costs the machine (PSS plus the kernel's share).
    pub memory: Option<Figure>,
    /// The PSS part, when the kernel's share is added (processes and threads).
    pub pss: Option<Figure>,
}

fn time(cost: &Cost) -> Figure {
    let ci = cost.interval.map(|(lo, hi)| [lo, hi]);
    if !cost.distinguishable {
        // A difference that cannot be told from zero: the most its interval allows, said.
        let text = format!(
            "{} (not distinguishable from zero)",
            format::at_most(ci, "ns")
        );
        return figure(cost, text.clone(), text);
    }
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
        plain: with_interval.clone(),
        with_interval: format!("{with_interval}{variant}"),
        variant: cost.variant.clone(),
        source: cost.source.clone(),
    }
}

fn row(c: &UnitCosts) -> UnitRow {
    UnitRow {
        kind: c.kind.name(),
        create: c.create_ns.as_ref().map(time),
        create_other: c.create_other_ns.as_ref().map(time),
        handover: c.handover_ns.as_ref().map(time),
        bare_switch: c.bare_switch_ns.as_ref().map(time),
        memory: c.memory_kib.as_ref().map(memory),
        pss: c
            .pss_kib
            .as_ref()
            .filter(|p| Some(*p) != c.memory_kib.as_ref())
            .map(|p| {
                let mut f = memory(p);
                f.text = format!("PSS {}", f.text);
                f.with_interval = format!("PSS {}", f.with_interval);
                f
            }),
    }
}

/// One row per kind of unit (process, thread, coroutine, async task), measured or not.
pub fn unit_rows(answer: &Answer<'_>) -> Vec<UnitRow> {
    answer.units.iter().map(row).collect()
}

/// Whether anything in the unit table was measured.
pub fn any_unit_cost(rows: &[UnitRow]) -> bool {
    rows.iter().any(|r| {
        r.create.is_some() || r.handover.is_some() || r.bare_switch.is_some() || r.memory.is_some()
    })
}

/// The unit table as text cells, each figure with its interval; a creation variant far from the
/// billed one on a second line of its cell (the PSS part of the memory is in
/// [`unit_definitions`], under the table).
pub fn unit_text_rows(rows: &[UnitRow]) -> Vec<[String; 5]> {
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
            let memory = cell(&r.memory);
            [
                r.kind.to_string(),
                create,
                cell(&r.handover),
                cell(&r.bare_switch),
                memory,
            ]
        })
        .collect()
}

/// "Throwaway tasks" from "Throwaway tasks: 50,000 per second, ...".
fn short_name(name: &str) -> &str {
    name.split_once(':').map_or(name, |(head, _)| head)
}

/// "50,000/s × 2.00 µs, never blocked": the rate times the CPU each unit's work takes.
fn workload_terms(w: &Workload) -> String {
    let blocked = if w.blocked_share > 0.0 {
        format!("{:.0}% blocked", w.blocked_share * 100.0)
    } else {
        "never blocked".into()
    };
    let isolated = if w.isolation { ", isolated" } else { "" };
    format!(
        "{}/s × {}, {blocked}{isolated}",
        thousands(w.units_per_sec),
        format::value(w.cpu_us, "us")
    )
}

/// "50,000": a whole number with thousands separators.
pub(crate) fn thousands(v: f64) -> String {
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

/// "10% of one CPU fits 972/s (next: a thread pool, 968/s); the model's overhead: 2.85% of
/// the work": the question the card answers, for the cheapest model and the next one, and the
/// cheapest model's overhead beside the work it carries (the figures: [`advice::Card`]).
pub fn capacity_answer(a: &advice::Advice) -> Option<String> {
    let card = a.card.as_ref()?;
    let mut text = format!(
        "{:.0}% of one CPU fits {}",
        card.cpu_share * 100.0,
        fit_text(&card.best, false)
    );
    if let Some(next) = &card.next {
        text += &format!(
            " (next: {}, {})",
            next.model.short_name(),
            fit_text(next, false)
        );
    }
    if let Some(share) = card.overhead_share {
        text += &format!("; the model's overhead: {} of the work", percent(share));
    }
    Some(text)
}

/// "2.8%", "0.0021%", "340%": a share in percent, two significant digits (the costs it comes
/// from have intervals of several percent).
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 {
        format!("{p:.0}%")
    } else {
        let decimals = (1 - p.log10().floor() as i32).clamp(1, 6) as usize;
        format!("{p:.decimals$}%")
    }
}

/// A model's rate within the card's share: "972/s", or "22.4k/s" for a narrow table (`short`);
/// "any rate" when a unit costs nothing.
fn fit_text(fit: &advice::Fit, short: bool) -> String {
    match fit.rate {
        None => "any rate".to_string(),
        Some(r) if short => format!("{}/s", abbreviated(r)),
        Some(r) => format!("{}/s", rounded(r)),
    }
}

/// A rate in a narrow cell: three significant digits and a suffix ("6.28M", "22.4k", "512").
fn abbreviated(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", format::sig3(v / 1e6))
    } else if v >= 1e4 {
        format!("{}k", format::sig3(v / 1e3))
    } else {
        rounded(v)
    }
}

/// A rate for people: three significant digits with thousands separators ("142,000").
fn rounded(v: f64) -> String {
    if v < 1000.0 {
        return format!("{v:.0}");
    }
    let magnitude = 10f64.powi(v.log10().floor() as i32 - 2);
    thousands((v / magnitude).round() * magnitude)
}

/// One row per typical workload: its name, its terms, the cheapest model, and how many units
/// per second fit in a tenth of one CPU with it — each unit's work billed with the model's
/// overhead — and that overhead as a share of the work (or what is missing for an answer). The
/// next model is on the page and in `advise`: its rate is close beside work that dominates.
pub fn workload_rows(answer: &Answer<'_>) -> Vec<[String; 4]> {
    answer
        .workloads
        .iter()
        .map(|wa| {
            let a = &wa.advice;
            let workload = short_name(wa.name).to_string();
            let terms = workload_terms(&wa.workload);
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
            let card = a.card.as_ref();
            let mut answer = card.map(|c| fit_text(&c.best, true)).unwrap_or_default();
            if let Some(share) = card.and_then(|c| c.overhead_share) {
                answer += &format!(", +{} overhead", percent(share));
            }
            if let Some(note) = card.and_then(|c| c.capacity_note.as_ref()) {
                answer += &format!("; at this rate it {note}");
            }
            [workload, terms, best.short_name().to_string(), answer]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_analysis::synthetic::{doc, entry_with};
    use concbench_core::{Params, ResultDoc};

    fn unit_rows(d: &ResultDoc) -> Vec<UnitRow> {
        super::unit_rows(&Answer::of(d))
    }

    fn workload_rows(d: &ResultDoc) -> Vec<[String; 4]> {
        super::workload_rows(&Answer::of(d))
    }

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
        assert_eq!(rows[0][1], "50,000/s × 2.00 µs, never blocked");
        assert_eq!(rows[0][2], "no answer");
        assert_eq!(rows[0][3], "missing: create, memory, switch measurements");
    }

    #[test]
    fn rates_are_rounded_to_three_digits() {
        assert_eq!(rounded(35_087.7), "35,100");
        assert_eq!(rounded(1_234_567.0), "1,230,000");
        assert_eq!(rounded(512.4), "512");
        assert_eq!(abbreviated(6_283_000.0), "6.28M");
        assert_eq!(abbreviated(22_410.0), "22.4k");
        assert_eq!(abbreviated(8_333.0), "8,330");
    }

    #[test]
    fn overhead_shares_have_two_significant_digits() {
        assert_eq!(percent(0.0285), "2.9%");
        assert_eq!(percent(0.155), "16%");
        assert_eq!(percent(0.00141), "0.14%");
        assert_eq!(percent(3.4), "340%");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(50_000.0), "50,000");
        assert_eq!(thousands(100.0), "100");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
    }
}
