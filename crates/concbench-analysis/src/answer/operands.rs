//! The figures a check's quantity is computed from, named by the result they come from, so that
//! a reader can recompute a verdict's ratio from what is printed beside it ("fork 197 µs
//! (create.fork) / thread 49.6 µs (create.thread)") and see which program each side measured
//! (concbench's own fork or the article's forkcreat.c).
//!
//! A figure read as the result reports it is that result's median, the number every other part
//! of the report prints for it: one number per quantity.

use crate::published::{convert, Published};
use crate::verdicts::series::{instances, per_pass, Instance};
use crate::verdicts::spec::{CheckSpec, Counter, Take};
use concbench_core::{Check, ResultDoc, Verdict};
use std::collections::BTreeMap;

/// One name of a check's quantity and the measured figure it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    /// The name in the rule ("fork", "thread").
    pub name: String,
    /// The result it reads: id, and the params the check fixes ("probes.c.process_100k").
    pub source: String,
    /// What is read when it is not the result's own figure ("counter voluntary_switches_per_op",
    /// "baseline", "raw").
    pub reading: Option<String>,
    /// The median across the rounds the check pairs (those where every name has a value).
    pub value: f64,
    /// How many rounds the check pairs, when fewer than the result's own (its median then differs
    /// from the one printed for the result elsewhere, and says so).
    pub paired: Option<usize>,
    /// Its unit ("ns", "KiB"; "" for a counter).
    pub unit: String,
}

/// The operands of `check` (a check of `verdict`) and the quantity recomputed from their
/// medians; empty when the claim or the condition is not among `published`'s (an older
/// document).
pub fn operands(
    doc: &ResultDoc,
    published: &Published,
    verdict: &Verdict,
    check: &Check,
) -> (Vec<Operand>, Option<f64>) {
    let Some(claim) = published.claims.iter().find(|c| c.id == verdict.source) else {
        return (Vec::new(), None);
    };
    for spec in &claim.checks {
        let Ok(quantity) = spec.quantity() else {
            continue;
        };
        for instance in instances(doc, spec) {
            if instance.condition != check.condition {
                continue;
            }
            let mut names: Vec<&str> = quantity.names();
            let mut seen: Vec<&str> = Vec::new();
            names.retain(|n| {
                let first = !seen.contains(n);
                seen.push(n);
                first
            });
            let passes = paired_passes(&instance, &names);
            let figures: Vec<Operand> = names
                .iter()
                .filter_map(|n| operand(spec, &instance, n, &passes))
                .collect();
            let values: BTreeMap<&str, f64> =
                figures.iter().map(|f| (f.name.as_str(), f.value)).collect();
            let recomputed = quantity.eval(&values).and_then(|v| match &spec.unit {
                // As the series does: a stated unit converts from the first name's unit.
                Some(u) => convert(v, figures.first().map_or(u, |f| &f.unit), u).or(Some(v)),
                None => Some(v),
            });
            return (figures, recomputed);
        }
    }
    (Vec::new(), None)
}

/// The passes where every name has a value: the rounds the check's quantity is computed on.
fn paired_passes(instance: &Instance<'_>, names: &[&str]) -> Vec<usize> {
    let per: Vec<BTreeMap<usize, f64>> = names
        .iter()
        .filter_map(|n| instance.results.get(n))
        .map(|(e, sel)| per_pass(e, sel))
        .collect();
    let Some(first) = per.first() else {
        return Vec::new();
    };
    first
        .keys()
        .filter(|p| per.iter().all(|m| m.contains_key(p)))
        .copied()
        .collect()
}

/// The figure `name` stands for in `instance`, over the check's paired `passes`.
fn operand(
    spec: &CheckSpec,
    instance: &Instance<'_>,
    name: &str,
    passes: &[usize],
) -> Option<Operand> {
    let (entry, sel) = instance.results.get(name)?;
    let own = sel.counter.is_none() && sel.take == Take::Reported;
    let all = per_pass(entry, sel);
    let mut values: Vec<f64> = passes.iter().filter_map(|p| all.get(p)).copied().collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    // All of the result's rounds: its own median, the number printed for it everywhere.
    let (value, paired) = if own && values.len() == all.len() {
        (entry.summary.median, None)
    } else if values.len() == all.len() {
        (concbench_stats::median(&values), None)
    } else {
        (concbench_stats::median(&values), Some(values.len()))
    };
    // A difference is a time, as its result's median is: bounded at zero like it, never shown
    // below (the median of paired rounds' differences can be).
    let value = if own && entry.quantity() == concbench_core::Quantity::Difference {
        concbench_stats::bound_at_zero(value, None).0
    } else {
        value
    };
    let (unit, reading) = match (&sel.counter, own) {
        (Some(c), _) => (String::new(), Some(format!("counter {}", counter_name(c)))),
        (None, true) => (entry.unit.clone(), None),
        (None, false) => (
            entry.unit.clone(),
            Some(format!("{:?}", sel.take).to_lowercase()),
        ),
    };
    let fixed: Vec<&String> = sel.params.keys().chain(spec.for_each.iter()).collect();
    let mut params = entry.params.clone();
    params.0.retain(|k, _| fixed.contains(&k));
    let source = if params.is_empty() {
        entry.id.clone()
    } else {
        format!("{} {}", entry.id, params.compact())
    };
    Some(Operand {
        name: name.to_string(),
        source,
        reading,
        value,
        paired,
        unit,
    })
}

/// "voluntary_switches_per_op", or "a + b" for a sum of counters.
fn counter_name(c: &Counter) -> String {
    match c {
        Counter::One(name) => name.clone(),
        Counter::Sum(parts) => parts.join(" + "),
    }
}
