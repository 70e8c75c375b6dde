//! From a check to its evidence: the results its names select, and one value of its quantity
//! per pass of the run.
//!
//! Rounds of different results taken in the same pass were measured back to back, so the
//! quantity is computed pass by pass (`fork / thread` of pass 3 divides pass 3's fork by pass
//! 3's thread): the machine's slow drift falls on both sides of each ratio and cancels.

use super::expr::Expr;
use super::spec::{CheckSpec, Selector, Take};
use crate::published::convert;
use crate::toml_json::toml_eq_json;
use concbench_core::{ResultDoc, ResultEntry};
use serde_json::Value;
use std::collections::BTreeMap;

/// One condition of a check: its name, the `for_each` values fixing it, and its results.
#[derive(Debug, Clone)]
pub struct Instance<'a> {
    pub condition: String,
    /// The check's facet with the same values filled in (see [`CheckSpec::facet`]).
    pub facet: Option<String>,
    pub results: BTreeMap<&'a str, (&'a ResultEntry, &'a Selector)>,
}

/// The quantity, pass by pass.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub values: Vec<f64>,
    /// The pass of each value (parallel to `values`), to find the rounds it came from.
    pub passes: Vec<usize>,
    /// The unit of the values: the result's unit (converted to the check's) for a single name,
    /// "x" for ratios.
    pub unit: String,
    /// Passes where some result had no usable round (missing, excluded, or not positive where a
    /// ratio needs it).
    pub dropped: usize,
    /// Of those, the passes where some result had no round at all: a result the check shares
    /// with another was measured there for that one alone (S4's ten-thread read, in the passes
    /// that gave S4.degrade its rounds), which is the plan, not a lost round.
    pub apart: usize,
}

/// Whether `entry` is what `sel` selects, with the `fixed` params too. A fixed (`for_each`)
/// value applies to a result that has the param and whose selector does not name it: a name
/// that states `files = 10` stays the ten-file baseline, and a result of another experiment
/// without the param (the alternation beside a lock's thread counts) is not excluded.
pub fn selects(sel: &Selector, entry: &ResultEntry, fixed: &[(String, Value)]) -> bool {
    entry.id == sel.id
        && sel
            .params
            .iter()
            .all(|(k, v)| entry.params.get(k).is_some_and(|m| toml_eq_json(v, m)))
        && fixed
            .iter()
            .all(|(k, v)| sel.params.contains_key(k) || entry.params.get(k).is_none_or(|m| m == v))
}

fn resolve<'a>(
    doc: &'a ResultDoc,
    alternatives: &'a [Selector],
    fixed: &[(String, Value)],
) -> Option<(&'a ResultEntry, &'a Selector)> {
    alternatives.iter().find_map(|sel| {
        doc.results
            .iter()
            .find(|e| selects(sel, e, fixed))
            .map(|e| (e, sel))
    })
}

/// The conditions of a check present in `doc`: one per combination of `for_each` values whose
/// every name resolves (or the one condition when there is no `for_each`).
pub fn instances<'a>(doc: &'a ResultDoc, spec: &'a CheckSpec) -> Vec<Instance<'a>> {
    combinations(doc, spec)
        .into_iter()
        .filter(|fixed| spec.admits(fixed))
        .filter_map(|fixed| {
            let mut results = BTreeMap::new();
            for (name, s) in &spec.uses {
                results.insert(name.as_str(), resolve(doc, s.alternatives(), &fixed)?);
            }
            Some(Instance {
                condition: fill(&spec.condition, &fixed),
                facet: spec.facet.as_deref().map(|f| fill(f, &fixed)),
                results,
            })
        })
        .collect()
}

/// `text` with each `{key}` replaced by the value `fixed` gives it.
fn fill(text: &str, fixed: &[(String, Value)]) -> String {
    let mut out = text.to_string();
    for (k, v) in fixed {
        let shown = v
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string());
        out = out.replace(&format!("{{{k}}}"), &shown);
    }
    out
}

/// Every combination of the `for_each` params' values among the results the names can select
/// (those that carry every one of the params), in ascending order (numbers numerically).
fn combinations(doc: &ResultDoc, spec: &CheckSpec) -> Vec<Vec<(String, Value)>> {
    if spec.for_each.is_empty() {
        return vec![Vec::new()];
    }
    let mut out: Vec<Vec<(String, Value)>> = Vec::new();
    for e in &doc.results {
        let selected = spec
            .selectors()
            .any(|s| selects(s, e, &[]) && spec.for_each.iter().all(|k| !s.params.contains_key(k)));
        if !selected {
            continue;
        }
        let combo: Option<Vec<(String, Value)>> = spec
            .for_each
            .iter()
            .map(|k| Some((k.clone(), e.params.get(k)?.clone())))
            .collect();
        if let Some(c) = combo.filter(|c| !out.contains(c)) {
            out.push(c);
        }
    }
    out.sort_by(|a, b| {
        a.iter()
            .zip(b)
            .map(|((_, x), (_, y))| match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                _ => x.to_string().cmp(&y.to_string()),
            })
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// A result's number per pass, as the selector reads it. Documents written before rounds
/// existed stand each sample in for a round.
pub fn per_pass(entry: &ResultEntry, sel: &Selector) -> BTreeMap<usize, f64> {
    if entry.rounds.is_empty() {
        return match (sel.counter.as_ref(), sel.take) {
            (None, Take::Reported) => entry.samples.iter().copied().enumerate().collect(),
            (Some(c), _) => c
                .read(&entry.counters)
                .map(|v| (0..entry.samples.len()).map(|i| (i, v)).collect())
                .unwrap_or_default(),
            _ => BTreeMap::new(),
        };
    }
    let subtracts = entry.overhead.is_some();
    // The rounds the result's own statistics use.
    concbench_core::usable_rounds(&entry.rounds)
        .into_iter()
        .filter_map(|r| {
            let v = match (&sel.counter, sel.take) {
                (Some(c), _) => c.read_round(r)?,
                (None, Take::Reported) if subtracts => r.net(),
                (None, Take::Reported | Take::Raw) => r.value,
                (None, Take::Baseline) => r.baseline?,
            };
            Some((r.pass, v))
        })
        .collect()
}

/// The check's quantity per pass for one condition.
pub fn series(instance: &Instance<'_>, quantity: &Expr, unit: Option<&str>) -> Series {
    let per: BTreeMap<&str, BTreeMap<usize, f64>> = instance
        .results
        .iter()
        .map(|(name, (e, sel))| (*name, per_pass(e, sel)))
        .collect();
    let mut passes: Vec<usize> = per.values().flat_map(|m| m.keys().copied()).collect();
    passes.sort_unstable();
    passes.dedup();
    let mut out = Series {
        unit: series_unit(instance, quantity, unit),
        ..Series::default()
    };
    for pass in passes {
        let at: Option<BTreeMap<&str, f64>> = per
            .iter()
            .map(|(n, m)| m.get(&pass).map(|v| (*n, *v)))
            .collect();
        let value = at.and_then(|at| evaluate(instance, quantity, unit, &at));
        match value {
            Some(v) => {
                out.values.push(v);
                out.passes.push(pass);
            }
            None => {
                out.dropped += 1;
                let measured = |e: &ResultEntry| e.rounds.iter().any(|r| r.pass == pass);
                if !instance.results.values().all(|(e, _)| measured(e)) {
                    out.apart += 1;
                }
            }
        }
    }
    out
}

fn series_unit(instance: &Instance<'_>, quantity: &Expr, unit: Option<&str>) -> String {
    match (quantity.single_name(), unit) {
        (_, Some(u)) => u.to_string(),
        (Some(name), None) => instance.results[name].0.unit.clone(),
        (None, None) => "x".to_string(),
    }
}

/// The quantity at one pass. A single name keeps its result's value; with a unit stated, the
/// value — of the name, or of an expression, taken to be in its first name's unit (a time over
/// counts: `alternate / switches`, a time per switch) — is converted to that unit.
fn evaluate(
    instance: &Instance<'_>,
    quantity: &Expr,
    unit: Option<&str>,
    at: &BTreeMap<&str, f64>,
) -> Option<f64> {
    let value = quantity.eval(at)?;
    match unit {
        Some(u) => {
            let first = *quantity.names().first()?;
            let result = &instance.results[first];
            // A counter is a count, not a time: the unit is the result's only when its value
            // is read.
            let from = match &result.1.counter {
                None => result.0.unit.as_str(),
                Some(_) => u,
            };
            convert(value, from, u)
        }
        None => Some(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::entry;

    #[test]
    fn regression_passes_measured_for_another_check_read_as_lost_rounds() {
        // S4.one_thread's "5 pass(es) left out: a result had no usable round there" (full run
        // F-1, 2026-11-27) were passes in which the shared ten-thread read was measured for
        // S4.degrade alone. `one` here has no round in pass 7 (measured apart) and its pass-3
        // round taken under interference (excluded: seven clean rounds remain).
        let threads = entry("io.read", &[1.0; 8]);
        let mut one = entry("io.read", &[2.0; 8]);
        one.rounds.retain(|r| r.pass != 7);
        one.rounds[3].excluded = Some("other processes used 0.50 CPUs".into());
        let sel: Selector = toml::from_str("id = \"io.read\"").unwrap();
        let instance = Instance {
            condition: "c".into(),
            facet: None,
            results: [("threads", (&threads, &sel)), ("one", (&one, &sel))].into(),
        };
        let s = series(&instance, &Expr::parse("threads / one").unwrap(), None);
        assert_eq!(s.values, vec![0.5; 6]);
        assert_eq!((s.dropped, s.apart), (2, 1));
    }
}
