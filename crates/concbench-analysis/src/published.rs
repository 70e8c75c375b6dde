//! The seed articles' published figures (`data/published.toml`) and their match to results.
//!
//! The file is compiled into the binary so a report never depends on the working directory.

use concbench_core::{Params, ResultDoc, ResultEntry};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The published figures and claims, as shipped.
pub const PUBLISHED_TOML: &str = include_str!("../../../data/published.toml");

/// Seed S0's six-dimension table: the article's claims per dimension, as shipped.
pub const S0_TABLE_TOML: &str = include_str!("../../../data/s0_table.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Published {
    pub machines: BTreeMap<String, Machine>,
    #[serde(rename = "figure", default)]
    pub figures: Vec<Figure>,
    #[serde(rename = "claim", default)]
    pub claims: Vec<Claim>,
    /// S0's six-dimension table (from `data/s0_table.toml`).
    #[serde(skip)]
    pub dimensions: Vec<Dimension>,
}

/// One row of seed S0's comparison table.
#[derive(Debug, Clone, Deserialize)]
pub struct Dimension {
    /// The claim (in `published.toml`) whose verdict decides the row.
    pub claim: String,
    pub dimension: String,
    /// The article's claim for processes and for threads, and its verdict.
    pub processes: String,
    pub threads: String,
    pub article_verdict: String,
    /// `--only` selectors of the results the row's judge needs; empty: no benchmark decides it.
    pub needs: Vec<String>,
}

#[derive(Deserialize)]
struct S0Table {
    dimension: Vec<Dimension>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Machine {
    pub description: String,
}

/// One published number and the measured result it corresponds to.
#[derive(Debug, Clone, Deserialize)]
pub struct Figure {
    /// `S0.create`, `S1`, ...
    pub seed: String,
    pub result_id: String,
    #[serde(default)]
    pub params: BTreeMap<String, toml::Value>,
    pub what: String,
    pub value: Option<f64>,
    pub value_low: Option<f64>,
    pub value_high: Option<f64>,
    pub unit: String,
    /// Multiply a per-operation measured median by this to get the published total.
    pub per_op_times: Option<f64>,
    /// Which measured figure the published one corresponds to (default: the median).
    #[serde(default)]
    pub quantity: Quantity,
    pub machine: String,
}

/// Which number of a result a figure is compared with. Results with a subtracted method
/// overhead hold three: the net median, the median before subtraction and the overhead itself;
/// a seed that printed its raw figure and its self-test separately is compared with each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// The result's median (net of any subtracted overhead).
    #[default]
    Median,
    /// The median before the method overhead was subtracted (`overhead.raw_median`).
    RawMedian,
    /// The subtracted method overhead (`overhead.median`).
    Overhead,
}

/// A claim of a seed article and the rule that judges it (see [`crate::verdicts::spec`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub id: String,
    pub seed: String,
    pub text: String,
    /// How the checks combine into the verdict.
    #[serde(default)]
    pub combine: crate::verdicts::Combine,
    /// The checks; none: a claim no measurement bears on (shown, never judged).
    #[serde(default, rename = "check")]
    pub checks: Vec<crate::verdicts::CheckSpec>,
    /// A sentence added to the explanation per verdict (`confirmed = "..."`).
    #[serde(default)]
    pub explain: BTreeMap<String, String>,
}

impl Figure {
    /// The published value as one number (the middle of a range).
    pub fn central(&self) -> Option<f64> {
        self.value
            .or_else(|| Some((self.value_low? + self.value_high?) / 2.0))
    }

    /// The published value as printed ("8.684 s", "407-453 ms", "3.5 µs"): the article's
    /// number, its unit spelled as every other figure is.
    pub fn display(&self) -> String {
        let unit = concbench_core::human::unit_text(&self.unit);
        match (self.value, self.value_low, self.value_high) {
            (Some(v), _, _) => format!("{} {unit}", trim_float(v)),
            (None, Some(lo), Some(hi)) => {
                format!("{}-{} {unit}", trim_float(lo), trim_float(hi))
            }
            _ => "-".to_string(),
        }
    }

    /// Whether `entry` is the measured counterpart of this figure.
    pub fn matches(&self, entry: &ResultEntry) -> bool {
        self.matches_variant(&entry.id, &entry.params)
    }

    /// Whether a variant (`id` with its recorded params, placement included) measures this
    /// figure: the same id, and every param of the figure with the same value.
    pub fn matches_variant(&self, id: &str, params: &Params) -> bool {
        id == self.result_id
            && self
                .params
                .iter()
                .all(|(k, v)| params.get(k).is_some_and(|m| toml_eq_json(v, m)))
    }

    /// The measured median in this figure's unit, or `None` when the units cannot be converted.
    pub fn measured_in_unit(&self, entry: &ResultEntry) -> Option<f64> {
        let per_op = match self.quantity {
            Quantity::Median => entry.summary.median,
            Quantity::RawMedian => entry.overhead.as_ref()?.raw_median,
            Quantity::Overhead => entry.overhead.as_ref()?.median,
        };
        let total = per_op * self.per_op_times.unwrap_or(1.0);
        convert(total, &entry.unit, &self.unit)
    }
}

fn trim_float(v: f64) -> String {
    let s = format!("{v}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

pub(crate) fn toml_eq_json(t: &toml::Value, j: &serde_json::Value) -> bool {
    match (t, j) {
        (toml::Value::String(a), serde_json::Value::String(b)) => a == b,
        (toml::Value::Integer(a), serde_json::Value::Number(b)) => b.as_f64() == Some(*a as f64),
        (toml::Value::Float(a), serde_json::Value::Number(b)) => b.as_f64() == Some(*a),
        (toml::Value::Boolean(a), serde_json::Value::Bool(b)) => a == b,
        _ => false,
    }
}

/// Nanoseconds per unit for the time units concbench uses (integers, so conversions are exact
/// for exact inputs).
fn ns_per(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    })
}

/// Convert `value` from one unit to another: time units among themselves, anything to itself.
pub fn convert(value: f64, from: &str, to: &str) -> Option<f64> {
    if from == to {
        return Some(value);
    }
    Some(value * ns_per(from)? / ns_per(to)?)
}

/// The shipped published data. Panics only if the shipped file is malformed, which a unit test
/// rules out.
pub fn published() -> Published {
    let mut p: Published =
        toml::from_str(PUBLISHED_TOML).expect("data/published.toml is valid (tested)");
    let table: S0Table =
        toml::from_str(S0_TABLE_TOML).expect("data/s0_table.toml is valid (tested)");
    p.dimensions = table.dimension;
    p
}

impl Published {
    /// Every seed named by a figure or a claim, in the file's order, without duplicates.
    pub fn seeds(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let named = self.figures.iter().map(|f| f.seed.as_str());
        for seed in named.chain(self.claims.iter().map(|c| c.seed.as_str())) {
            if !out.contains(&seed) {
                out.push(seed);
            }
        }
        out
    }

    /// The seeds `request` names: a seed (`S0.print`) or a prefix of seeds (`S0`).
    pub fn seeds_named(&self, request: &str) -> Vec<&str> {
        self.seeds()
            .into_iter()
            .filter(|s| *s == request || s.starts_with(&format!("{request}.")))
            .collect()
    }

    /// The claims a seed makes.
    pub fn claims_of<'a>(&'a self, seed: &'a str) -> impl Iterator<Item = &'a Claim> + 'a {
        self.claims.iter().filter(move |c| c.seed == seed)
    }
}

/// A published figure beside this machine's measurement.
#[derive(Debug, Clone)]
pub struct Replication<'a> {
    pub figure: &'a Figure,
    pub entry: &'a ResultEntry,
    /// Measured, in the figure's unit.
    pub measured: f64,
    /// measured / published (central value).
    pub ratio: Option<f64>,
}

/// Every (figure, result) pair that matches, in the published file's order.
pub fn replications<'a>(published: &'a Published, doc: &'a ResultDoc) -> Vec<Replication<'a>> {
    let mut out = Vec::new();
    for figure in &published.figures {
        for entry in doc.results.iter().filter(|e| figure.matches(e)) {
            if let Some(measured) = figure.measured_in_unit(entry) {
                let ratio = figure.central().filter(|c| *c != 0.0).map(|c| measured / c);
                out.push(Replication {
                    figure,
                    entry,
                    measured,
                    ratio,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_file_parses_and_names_known_machines() {
        let p = published();
        assert!(p.figures.len() > 50);
        for f in &p.figures {
            assert!(
                p.machines.contains_key(&f.machine),
                "unknown machine {}",
                f.machine
            );
            assert!(f.central().is_some(), "figure without a value: {}", f.what);
        }
        assert!(p.claims.iter().any(|c| c.id == "S0.30x"));
    }

    #[test]
    fn every_claim_rule_is_well_formed() {
        for c in &published().claims {
            for check in &c.checks {
                check
                    .validate()
                    .unwrap_or_else(|e| panic!("{} / {}: {e:#}", c.id, check.condition));
            }
            for key in c.explain.keys() {
                assert!(
                    ["confirmed", "refuted", "depends", "inconclusive"].contains(&key.as_str()),
                    "{}: explain.{key}",
                    c.id
                );
            }
        }
    }

    #[test]
    fn s0_table_has_six_dimensions_each_naming_a_claim() {
        let p = published();
        assert_eq!(p.dimensions.len(), 6);
        for d in &p.dimensions {
            assert!(
                p.claims
                    .iter()
                    .any(|c| c.id == d.claim && c.seed == "S0.table"),
                "{} names no S0.table claim",
                d.claim
            );
        }
    }

    #[test]
    fn seeds_resolve_by_name_and_prefix() {
        let p = published();
        assert_eq!(p.seeds_named("S0.print"), vec!["S0.print"]);
        let s0 = p.seeds_named("S0");
        assert!(
            s0.contains(&"S0.create") && s0.contains(&"S0.table"),
            "{s0:?}"
        );
        assert!(!s0.contains(&"S1"));
        assert!(p.seeds_named("S9").is_empty());
        assert!(p.seeds_named("S0.prin").is_empty());
    }

    #[test]
    fn figure_matches_a_variant_by_id_and_contained_params() {
        let p = published();
        let f = p
            .figures
            .iter()
            .find(|f| f.seed == "S0.print" && f.what == "255 threads x 5 lines")
            .unwrap();
        let params = Params::new()
            .with("model", "thread")
            .with("workers", 255)
            .with("count", 5)
            .with("line_bytes", 12)
            .with("sink", "pipe")
            .with("placement", "same-cpu");
        assert!(f.matches_variant("workload.print", &params));
        // The seed's terminal is the pipe sink; /dev/null answers another question.
        assert!(!f.matches_variant("workload.print", &params.clone().with("sink", "devnull")));
        assert!(!f.matches_variant("workload.print", &params.clone().with("count", 10)));
        assert!(!f.matches_variant("workload.other", &params));
    }

    #[test]
    fn units_convert() {
        assert_eq!(convert(1500.0, "ms", "s"), Some(1.5));
        assert_eq!(convert(2.0, "us", "ns"), Some(2000.0));
        assert_eq!(convert(3.0, "KiB", "KiB"), Some(3.0));
        assert_eq!(convert(3.0, "KiB", "s"), None);
    }

    #[test]
    fn quantity_selects_net_raw_or_overhead() {
        let p = published();
        let ring: Vec<&Figure> = p
            .figures
            .iter()
            .filter(|f| f.result_id == "switch.ring.thread")
            .collect();
        let raw = ring
            .iter()
            .find(|f| f.quantity == Quantity::RawMedian)
            .unwrap();
        let selftest = ring
            .iter()
            .find(|f| f.quantity == Quantity::Overhead)
            .unwrap();
        let mut entry: ResultEntry = serde_json::from_value(serde_json::json!({
            "id": "switch.ring.thread", "family": "switch", "title": "t", "op": "o",
            "unit": "ns", "params": {"placement": "same-cpu", "threads": 20},
            "iterations": 1, "median": 3000.0, "ci95": [2900.0, 3100.0], "min": 2900.0,
            "max": 3100.0, "mad": 10.0, "mean": 3000.0, "samples": [3000.0],
            "counters": {}, "warnings": [],
            "overhead": {"method": "self-test", "median": 1000.0, "raw_median": 4000.0,
                         "samples": [1000.0]}
        }))
        .unwrap();
        assert!(raw.matches(&entry) && selftest.matches(&entry));
        assert_eq!(raw.measured_in_unit(&entry), Some(4.0));
        assert_eq!(selftest.measured_in_unit(&entry), Some(1.0));
        entry.overhead = None;
        assert_eq!(
            raw.measured_in_unit(&entry),
            None,
            "no raw figure without an overhead"
        );
    }

    #[test]
    fn range_is_displayed_as_range() {
        let p = published();
        let f = p
            .figures
            .iter()
            .find(|f| f.result_id == "contend.single")
            .unwrap();
        assert_eq!(f.display(), "407-453 ms");
        assert_eq!(f.central(), Some(430.0));
    }
}
