//! The capacity table (how many idle units of each model fit, the limit that stopped each, memory
//! and creation time per unit, units per GiB) and the CPU-limit section (the limit, what each
//! runtime sized itself for, the throttling, the server and hand-over figures under it), as rows
//! and sentences every renderer lays out its own way.

use crate::answer;
use concbench_analysis::answer::Answer;
use concbench_core::capacity::{Capacity, ModelCapacity, StopKind};
use concbench_core::container::Container;
use concbench_core::human::{kib, measured, nanos, value};
use concbench_core::ResultDoc;

pub const CAPACITY_HEADER: [&str; 6] = [
    "model",
    "units held",
    "stopped by",
    "memory per unit",
    "to create one",
    "in 1 GiB here",
];

/// "12,345".
fn count(n: u64) -> String {
    answer::thousands(n as f64)
}

/// What stopped a model, short: "kernel.pid_max 32768 (a margin kept free)", "vm.max_map_count
/// 65530", "the memory budget 5734 MiB".
pub fn stop_cell(m: &ModelCapacity) -> String {
    let Some(s) = &m.stopped_by else {
        return m
            .skipped
            .as_ref()
            .map_or("-".into(), |why| format!("skipped: {why}"));
    };
    let value = s
        .value
        .as_ref()
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    match s.kind {
        StopKind::Reached => format!("{}{value}", s.limit),
        StopKind::Margin => format!("{}{value} (a margin kept free)", s.limit),
        StopKind::Budget => format!("{}{value}", s.limit),
        StopKind::Cap => format!("--max-units{value}"),
        StopKind::Failed => {
            let first: String = s.detail.chars().take(60).collect();
            let cut = if s.detail.chars().count() > 60 {
                "…"
            } else {
                ""
            };
            format!("an error: {first}{cut}")
        }
        StopKind::Interrupted => "Ctrl-C".into(),
    }
}

/// One row per model, skipped ones included with their reason.
pub fn capacity_rows(c: &Capacity) -> Vec<[String; 6]> {
    c.models
        .iter()
        .map(|m| {
            if m.skipped.is_some() {
                let dash = || "-".to_string();
                return [
                    m.model.clone(),
                    dash(),
                    stop_cell(m),
                    dash(),
                    dash(),
                    dash(),
                ];
            }
            let memory = match (m.kib_per_unit, m.kib_per_unit_ci95) {
                (Some(k), ci) => measured(k, ci, "KiB"),
                (None, _) => "-".into(),
            };
            [
                m.model.clone(),
                count(m.units),
                stop_cell(m),
                memory,
                m.create_ns_per_unit.map_or("-".into(), nanos),
                m.per_gib.map_or("-".into(), count),
            ]
        })
        .collect()
}

pub const LIMIT_HEADER: [&str; 5] = ["limit", "value", "counts", "shared by", "set at"];

/// Every limit read, with its value (and what was free when read).
pub fn limit_rows(c: &Capacity) -> Vec<[String; 5]> {
    c.limits
        .iter()
        .map(|l| {
            let v = if l.counts.starts_with("bytes") {
                kib(l.value as f64 / 1024.0)
            } else {
                count(l.value)
            };
            let free = l
                .free
                .map(|f| format!(" ({} free)", count(f)))
                .unwrap_or_default();
            [
                l.name.clone(),
                format!("{v}{free}"),
                l.counts.clone(),
                l.scope.clone(),
                l.set_at.clone(),
            ]
        })
        .collect()
}

/// The budget, the cell, the machine before and after, in sentences.
pub fn capacity_setting_lines(c: &Capacity) -> Vec<String> {
    let mut out = vec![format!(
        "Budget: {} per model ({}; {} was available).",
        kib(c.budget.bytes as f64 / 1024.0),
        c.budget.source,
        kib(c.budget.mem_available_kib as f64)
    )];
    out.push(match (&c.cell.made, &c.cell.missing) {
        (Some(made), _) => format!("Held in a control group of its own: {made}."),
        (None, Some(why)) => format!(
            "No control group ({why}): the budget and the margins were kept by concbench's own \
             readings only."
        ),
        (None, None) => "No control group.".into(),
    });
    let state = |s: &concbench_core::capacity::HostState| {
        format!(
            "MemAvailable {}, {} tasks, {} concbench groups",
            kib(s.mem_available_kib as f64),
            count(s.tasks),
            s.cells
        )
    };
    out.push(match &c.after {
        Some(after) => format!(
            "The machine before: {}; after: {}.",
            state(&c.before),
            state(after)
        ),
        None => format!(
            "The machine before: {} (interrupted: no reading after).",
            state(&c.before)
        ),
    });
    out
}

/// Per model: what stopped it in full, the memory's parts, warnings.
pub fn model_lines(c: &Capacity) -> Vec<String> {
    let mut out = Vec::new();
    for m in &c.models {
        if let Some(why) = &m.skipped {
            out.push(format!("{}: skipped: {why}", m.model));
            continue;
        }
        let parts = [
            m.pss_kib_per_unit.map(|v| format!("PSS {}", kib(v))),
            m.kernel_kib_per_unit.map(|v| format!("kernel {}", kib(v))),
            m.charge_kib_per_unit
                .map(|v| format!("the group was charged {}", kib(v))),
        ];
        let parts: Vec<String> = parts.into_iter().flatten().collect();
        out.push(format!(
            "{} ({}; {}): {}. Per unit: {}; {} readings, {:.1} s.",
            m.model,
            m.unit,
            m.runtime,
            m.stopped_by.as_ref().map_or("-", |s| s.detail.as_str()),
            parts.join(", "),
            m.steps.len(),
            m.seconds
        ));
        for w in &m.warnings {
            out.push(format!("{}: {w}", m.model));
        }
    }
    out
}

pub const CONTAINER_HEADER: [&str; 4] = ["runtime", "sizes for", "from", "against the limit"];

/// One row per runtime: what it picked, from what, and the comparison in words.
pub fn container_rows(c: &Container) -> Vec<[String; 4]> {
    c.runtimes
        .iter()
        .map(|d| {
            let v = d.value.map_or("-".into(), |v| format!("{v:.0}"));
            let runtime = if d.version.is_empty() {
                d.runtime.clone()
            } else {
                format!("{} ({})", d.runtime, d.version)
            };
            [
                runtime,
                format!("{v}: {}", d.what),
                d.rule.clone(),
                d.note.clone(),
            ]
        })
        .collect()
}

/// "a quota of 1.00 CPU per 100 ms (cgroup v1, concbench run --cpus 1): throttled in 41% of
/// 3,012 periods, 12.3 s held back".
pub fn limit_line(c: &Container) -> String {
    let throttled = match c.throttling {
        Some(t) if c.limit.mode == "quota" => format!(
            ": throttled in {} of {} periods, {} held back",
            t.share()
                .map_or("-".into(), |s| format!("{:.0}%", s * 100.0)),
            count(t.periods),
            value(t.throttled_s, "s")
        ),
        _ => String::new(),
    };
    format!(
        "{} on {} CPUs ({}, cgroup {}){throttled}",
        capitalized(&c.limit.phrase()),
        c.host_cpus,
        c.limit.set_by,
        c.limit.cgroup
    )
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// "sizes for: tokio 1, Go 1, Java 17 1, Python 2 (more than it may use), ...".
pub fn sizes_line(c: &Container) -> String {
    let parts: Vec<String> = c
        .runtimes
        .iter()
        .filter_map(|d| {
            let v = d.value?;
            let over = if d.oversized {
                " (more than it may use)"
            } else {
                ""
            };
            Some(format!("{} {v:.0}{over}", d.runtime))
        })
        .collect();
    format!("Each runtime sizes for: {}", parts.join(", "))
}

/// The figures the limit bears on, from this run: each server's requests/s and p99, and each
/// kind of unit's hand-over.
pub fn under_limit_lines(doc: &ResultDoc) -> Vec<String> {
    let mut out = Vec::new();
    for r in doc.results.iter().filter(|r| r.unit == "req/s") {
        let p99 = r
            .counters
            .get("latency_p99_us")
            .map(|us| format!(", p99 {}", value(*us, "us")))
            .unwrap_or_default();
        out.push(format!(
            "{} {}: {}{p99}",
            r.id,
            r.params.compact(),
            measured(r.summary.median, r.summary.ci95, "req/s")
        ));
    }
    let answer = Answer::of(doc);
    for row in answer::unit_rows(&answer) {
        if let Some(h) = &row.handover {
            out.push(format!(
                "hand-over, {}: {} ({})",
                row.kind, h.plain, h.source
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(28_213), "28,213");
        assert_eq!(count(11_534_336), "11,534,336");
    }
}
