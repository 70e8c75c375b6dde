//! `concbench compare`: runs set side by side, result by result and verdict by verdict.
//!
//! Results match when they have the same id and the same params (placement included), and are
//! compared only when they hold the same quantity. Each pair is compared on its rounds (two
//! independent runs): B/A as the Hodges-Lehmann ratio with the interval that inverts the
//! Mann-Whitney test, widened by the variation between runs of one build on one machine
//! ([`crate::variation`]: the host's history, or a stated floor), its p-value the one the
//! widened interval inverts — so a ratio and its significance mark can never disagree, and an
//! A/A pair is not a change. Over a hundred pairs, p < 0.05 alone would mark five identical ones
//! "different": significance is decided on Benjamini-Hochberg adjusted p-values. Summaries are
//! geometric means of B/A per unit (lower-is-better times and higher-is-better rates never
//! mixed).

use crate::variation::{Counted, RunVariation};
use concbench_core::{Judged, ResultDoc, ResultEntry, VerdictKind};
use concbench_stats::{benjamini_hochberg, geometric_mean, shift_ratio, with_run_variation};

/// The false discovery rate the significance marks control.
pub const ALPHA: f64 = 0.05;

/// B relative to A for one result.
#[derive(Debug, Clone, Copy)]
pub struct Comparison {
    /// Hodges-Lehmann estimate of B/A.
    pub ratio: f64,
    /// 95% interval of the ratio; `None` when the runs have too few rounds (3 and 3).
    pub ci: Option<(f64, f64)>,
    /// Mann-Whitney p-value (with the run-to-run variation counted, the one the widened
    /// interval inverts), and the same adjusted over every pair of the comparison.
    pub p_value: f64,
    pub q_value: f64,
    /// The run-to-run variation counted in `ci` and `p_value`, and where it came from.
    pub counted: Counted,
}

/// One result present in both runs.
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    pub a: &'a ResultEntry,
    pub b: &'a ResultEntry,
    /// `None` when the two cannot be compared: different units, or a value that is not positive.
    pub comparison: Option<Comparison>,
}

impl Pair<'_> {
    /// A difference that survives the false-discovery control and whose interval excludes 1.
    pub fn significant(&self) -> bool {
        self.comparison
            .is_some_and(|c| c.q_value < ALPHA && c.ci.is_some_and(|(lo, hi)| lo > 1.0 || hi < 1.0))
    }

    /// Why the pair has no comparison, when it has none.
    pub fn why_not_compared(&self) -> Option<String> {
        if self.comparison.is_some() {
            return None;
        }
        Some(if self.a.unit != self.b.unit {
            format!("units differ ({} vs {})", self.a.unit, self.b.unit)
        } else if self.a.quantity() != self.b.quantity() {
            format!(
                "different quantities (A: {}; B: {}): not set side by side",
                self.a.quantity().describe(),
                self.b.quantity().describe()
            )
        } else if !self.a.distinguishable() || !self.b.distinguishable() {
            "a difference that cannot be told from zero: no ratio".to_string()
        } else {
            "a value is not positive: no ratio".to_string()
        })
    }
}

/// The geometric mean of B/A over the compared results of one unit.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitSummary {
    pub unit: String,
    /// Rates (req/s, MiB/s) improve upward; times and sizes downward.
    pub higher_is_better: bool,
    pub geometric_mean: f64,
    pub count: usize,
}

/// Two runs compared.
#[derive(Debug, Clone)]
pub struct RunComparison<'a> {
    /// In A's order.
    pub pairs: Vec<Pair<'a>>,
    pub only_in_a: Vec<&'a ResultEntry>,
    pub only_in_b: Vec<&'a ResultEntry>,
}

impl RunComparison<'_> {
    /// The geometric mean of B/A per unit, in order of first appearance.
    pub fn by_unit(&self) -> Vec<UnitSummary> {
        let mut units: Vec<&str> = Vec::new();
        for p in &self.pairs {
            if p.comparison.is_some() && !units.contains(&p.a.unit.as_str()) {
                units.push(&p.a.unit);
            }
        }
        units
            .into_iter()
            .filter_map(|unit| {
                let ratios: Vec<f64> = self
                    .pairs
                    .iter()
                    .filter(|p| p.a.unit == unit)
                    .filter_map(|p| p.comparison.map(|c| c.ratio))
                    .collect();
                Some(UnitSummary {
                    unit: unit.to_string(),
                    higher_is_better: higher_is_better(unit),
                    geometric_mean: geometric_mean(&ratios)?,
                    count: ratios.len(),
                })
            })
            .collect()
    }

    /// How many compared pairs differ significantly.
    pub fn significant_count(&self) -> usize {
        self.pairs.iter().filter(|p| p.significant()).count()
    }

    /// What each compared pair counted between the runs.
    pub fn counted(&self) -> Vec<Counted> {
        self.pairs
            .iter()
            .filter_map(|p| p.comparison.map(|c| c.counted))
            .collect()
    }
}

/// Whether a larger value of `unit` is better (a rate).
pub fn higher_is_better(unit: &str) -> bool {
    unit.ends_with("/s")
}

/// The values a result's statistics rest on: its usable rounds (each round's difference for a
/// result that is a difference), or its samples for documents written before rounds.
pub fn round_values(e: &ResultEntry) -> Vec<f64> {
    if e.rounds.is_empty() {
        return e.samples.clone();
    }
    e.round_values()
}

/// Whether two results may be set side by side: the same unit and the same quantity, and
/// neither a difference that cannot be told from zero (a ratio of two such says nothing).
fn comparable(a: &ResultEntry, b: &ResultEntry) -> bool {
    a.unit == b.unit && a.quantity() == b.quantity() && a.distinguishable() && b.distinguishable()
}

/// Match `b`'s results to `a`'s and compare each pair on their rounds alone (ratios are B/A).
pub fn compare_runs<'a>(a: &'a ResultDoc, b: &'a ResultDoc) -> RunComparison<'a> {
    compare_runs_with(a, b, &RunVariation::rounds_only())
}

/// Match `b`'s results to `a`'s and compare each pair, counting `variation` between the runs.
pub fn compare_runs_with<'a>(
    a: &'a ResultDoc,
    b: &'a ResultDoc,
    variation: &RunVariation,
) -> RunComparison<'a> {
    let same = |x: &ResultEntry, y: &ResultEntry| x.id == y.id && x.params == y.params;
    let mut pairs: Vec<Pair<'_>> = a
        .results
        .iter()
        .filter_map(|ra| {
            let rb = b.results.iter().find(|rb| same(ra, rb))?;
            let counted = variation.for_entry(rb);
            let comparison = comparable(ra, rb)
                .then(|| shift_ratio(&round_values(ra), &round_values(rb), 0.95))
                .flatten()
                .map(|s| with_run_variation(s, counted.tau()))
                .map(|s| Comparison {
                    ratio: s.ratio,
                    ci: s.ci,
                    p_value: s.p_value,
                    q_value: s.p_value,
                    counted,
                });
            Some(Pair {
                a: ra,
                b: rb,
                comparison,
            })
        })
        .collect();
    let ps: Vec<f64> = pairs
        .iter()
        .filter_map(|p| p.comparison.map(|c| c.p_value))
        .collect();
    let mut qs = benjamini_hochberg(&ps).into_iter();
    for c in pairs.iter_mut().filter_map(|p| p.comparison.as_mut()) {
        c.q_value = qs.next().unwrap_or(1.0);
    }
    RunComparison {
        pairs,
        only_in_a: a
            .results
            .iter()
            .filter(|ra| !b.results.iter().any(|rb| same(ra, rb)))
            .collect(),
        only_in_b: b
            .results
            .iter()
            .filter(|rb| !a.results.iter().any(|ra| same(ra, rb)))
            .collect(),
    }
}

/// One later run compared with the baseline.
#[derive(Debug, Clone)]
pub struct Compared<'a> {
    /// `B`, or `B1`, `B2`, ... when there are several.
    pub name: String,
    /// Where it came from: a file or a stored run, with its host and start time.
    pub source: String,
    pub comparison: RunComparison<'a>,
}

/// Everything `concbench compare` says: each later run against A, every run's verdicts side by
/// side (A first), and the `--fail-if` thresholds they are held to.
#[derive(Debug, Clone)]
pub struct CompareSet<'a> {
    pub a_source: String,
    pub runs: Vec<Compared<'a>>,
    pub verdicts: Vec<VerdictRow>,
    pub gates: Vec<crate::threshold::Gate>,
    /// The `--only`/`--where` selection the results were restricted to, as typed; empty for all.
    pub selection: String,
    /// The run-to-run variation the comparisons count, and where it came from.
    pub variation: RunVariation,
}

impl CompareSet<'_> {
    /// "run-to-run variation counted: this host's history (...) for N results, ...": which
    /// source every later run's comparisons used.
    pub fn variation_sentence(&self) -> String {
        let counted: Vec<Counted> = self
            .runs
            .iter()
            .flat_map(|r| r.comparison.counted())
            .collect();
        self.variation.sentence(&counted)
    }
}

impl CompareSet<'_> {
    /// The names of every run, A first (the columns of the verdicts).
    pub fn names(&self) -> Vec<String> {
        std::iter::once("A".to_string())
            .chain(self.runs.iter().map(|r| r.name.clone()))
            .collect()
    }
}

/// One claim across several runs.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictRow {
    pub source: String,
    pub claim: String,
    /// Each run's decision, in the runs' order; `None` where the run did not judge the claim.
    pub decisions: Vec<Option<VerdictKind>>,
    /// How much of the claim each run judged (parallel to `decisions`).
    pub judged: Vec<Option<Judged>>,
}

impl VerdictRow {
    /// Whether the runs that judged the claim disagree: in their verdict, or in how much of
    /// the claim they judged ("partly judged: refuted" and "refuted" say different things).
    pub fn changed(&self) -> bool {
        let judged: Vec<(VerdictKind, Judged)> = self
            .decisions
            .iter()
            .zip(&self.judged)
            .filter_map(|(d, j)| Some(((*d)?, j.unwrap_or_default())))
            .collect();
        judged.windows(2).any(|w| w[0] != w[1])
    }

    /// The `i`-th run's verdict as said, qualifier kept ("partly judged: refuted"); `None`
    /// where it did not judge the claim.
    pub fn word(&self, i: usize) -> Option<String> {
        let kind = (*self.decisions.get(i)?)?;
        let judged = self.judged.get(i).copied().flatten().unwrap_or_default();
        Some(judged.qualify(kind, crate::answer::verdict_word(kind)))
    }
}

/// Every claim judged by any of `docs`, with each run's decision, in first-appearance order.
pub fn verdicts_side_by_side(docs: &[&ResultDoc]) -> Vec<VerdictRow> {
    let mut rows: Vec<VerdictRow> = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        for v in &doc.verdicts {
            let pos = match rows.iter().position(|r| r.source == v.source) {
                Some(p) => p,
                None => {
                    rows.push(VerdictRow {
                        source: v.source.clone(),
                        claim: v.claim.clone(),
                        decisions: vec![None; docs.len()],
                        judged: vec![None; docs.len()],
                    });
                    rows.len() - 1
                }
            };
            rows[pos].decisions[i] = Some(v.verdict);
            rows[pos].judged[i] = Some(v.judged());
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{doc, entry};

    #[test]
    fn a_clear_shift_is_significant_with_its_ratio_inside_the_interval() {
        let a = doc(vec![entry(
            "switch.pipe.thread",
            &[
                100.0, 101.0, 99.0, 102.0, 98.0, 100.5, 99.5, 101.5, 98.5, 100.0,
            ],
        )]);
        let b = doc(vec![entry(
            "switch.pipe.thread",
            &[
                150.0, 151.0, 149.0, 152.0, 148.0, 150.5, 149.5, 151.5, 148.5, 150.0,
            ],
        )]);
        let c = compare_runs(&a, &b);
        let pair = &c.pairs[0];
        let cmp = pair.comparison.unwrap();
        assert!((cmp.ratio - 1.5).abs() < 0.01, "{}", cmp.ratio);
        let (lo, hi) = cmp.ci.unwrap();
        assert!(lo <= cmp.ratio && cmp.ratio <= hi && lo > 1.4 && hi < 1.6);
        assert!(pair.significant(), "p = {}", cmp.p_value);
        assert_eq!(c.significant_count(), 1);
        let u = c.by_unit();
        assert_eq!(u.len(), 1);
        assert!((u[0].geometric_mean - cmp.ratio).abs() < 1e-9 && !u[0].higher_is_better);
    }

    #[test]
    fn overlapping_samples_are_not_significant_and_the_interval_says_so_too() {
        let a = doc(vec![entry(
            "create.fork",
            &[100.0, 120.0, 90.0, 110.0, 105.0, 95.0],
        )]);
        let b = doc(vec![entry(
            "create.fork",
            &[102.0, 118.0, 92.0, 108.0, 107.0, 97.0],
        )]);
        let c = compare_runs(&a, &b);
        let pair = &c.pairs[0];
        assert!(!pair.significant(), "{:?}", pair.comparison);
        let (lo, hi) = pair.comparison.unwrap().ci.unwrap();
        assert!(lo < 1.0 && hi > 1.0);
    }

    #[test]
    fn regression_a_ratio_is_never_not_significant_beside_an_interval_excluding_one() {
        // compare printed "1.40x (n.s.)" beside [1.25, 1.71]: the interval and the mark now
        // come from the same test.
        let a = doc(vec![entry("t.x", &[10.0, 11.0, 12.0, 10.5, 11.5, 10.2])]);
        let b = doc(vec![entry("t.x", &[14.0, 15.5, 16.0, 14.5, 15.0, 14.2])]);
        let c = compare_runs(&a, &b);
        let cmp = c.pairs[0].comparison.unwrap();
        let (lo, _) = cmp.ci.unwrap();
        assert!(lo > 1.0);
        assert!(c.pairs[0].significant() && cmp.p_value < 0.05);
    }

    #[test]
    fn many_identical_pairs_are_not_marked_different() {
        let mut ra = Vec::new();
        let mut rb = Vec::new();
        let mut rng = fastrand::Rng::with_seed(3);
        for i in 0..100 {
            let mut x = entry(
                "t.x",
                &(0..6).map(|_| 100.0 + rng.f64()).collect::<Vec<_>>(),
            );
            x.params.set("n", i);
            let mut y = entry(
                "t.x",
                &(0..6).map(|_| 100.0 + rng.f64()).collect::<Vec<_>>(),
            );
            y.params.set("n", i);
            ra.push(x);
            rb.push(y);
        }
        let (a, b) = (doc(ra), doc(rb));
        let c = compare_runs(&a, &b);
        assert_eq!(c.pairs.len(), 100);
        assert_eq!(c.significant_count(), 0);
    }

    #[test]
    fn matching_is_by_id_and_params_and_the_rest_is_listed() {
        let mut only_a = entry("create.thread", &[1.0, 1.0, 1.0]);
        only_a.params.set("stack", "small");
        let a = doc(vec![entry("create.thread", &[10.0, 11.0, 12.0]), only_a]);
        let b = doc(vec![
            entry("create.thread", &[20.0, 22.0, 24.0]),
            entry("io.read", &[5.0, 5.0, 5.0]),
        ]);
        let c = compare_runs(&a, &b);
        assert_eq!(c.pairs.len(), 1);
        assert_eq!(c.only_in_a.len(), 1);
        assert_eq!(c.only_in_b[0].id, "io.read");
        // Three rounds against three: a ratio, but no 95% interval and never significant.
        let cmp = c.pairs[0].comparison.unwrap();
        assert!(cmp.ci.is_none() && !c.pairs[0].significant());
    }

    #[test]
    fn units_are_summarised_apart_and_rates_point_up() {
        let mut rate_a = entry("server.keepalive", &[1000.0; 6]);
        rate_a.unit = "req/s".into();
        let mut rate_b = entry("server.keepalive", &[2000.0; 6]);
        rate_b.unit = "req/s".into();
        let a = doc(vec![entry("t.x", &[10.0; 6]), rate_a]);
        let b = doc(vec![entry("t.x", &[5.0; 6]), rate_b]);
        let u = compare_runs(&a, &b).by_unit();
        assert_eq!(u.len(), 2);
        assert_eq!((u[0].unit.as_str(), u[0].higher_is_better), ("ns", false));
        assert_eq!((u[1].unit.as_str(), u[1].higher_is_better), ("req/s", true));
        assert!(
            (u[0].geometric_mean - 0.5).abs() < 1e-9 && (u[1].geometric_mean - 2.0).abs() < 1e-9
        );
    }

    #[test]
    fn other_units_give_no_comparison_and_say_why() {
        let mut other = entry("t.x", &[1.0, 2.0, 3.0]);
        other.unit = "KiB".into();
        let (a, b) = (doc(vec![entry("t.x", &[1.0, 2.0, 3.0])]), doc(vec![other]));
        let c = compare_runs(&a, &b);
        assert!(c.pairs[0]
            .why_not_compared()
            .unwrap()
            .contains("units differ"));
        assert!(c.by_unit().is_empty());
    }

    #[test]
    fn regression_compare_read_plus_1685_percent_between_a_difference_and_a_raw_figure() {
        use concbench_core::{Overhead, Quantity};
        let with = |values: &[f64], quantity: Quantity| {
            let mut e = entry("switch.pipe.process", values);
            e.overhead = Some(Overhead {
                method: "one side reading its working set once, warm".into(),
                median: 38.0,
                raw_median: 40.8,
                samples: vec![],
                distinguishable: true,
                difference: None,
                difference_ci95: None,
            });
            e.quantity = Some(quantity);
            e
        };
        let a = doc(vec![with(
            &[2.2, 2.3, 2.28, 2.25, 2.31, 2.27],
            Quantity::Difference,
        )]);
        let b = doc(vec![with(
            &[40.8, 40.7, 40.9, 40.6, 41.0, 40.8],
            Quantity::Measured,
        )]);
        let c = compare_runs(&a, &b);
        assert!(c.pairs[0].comparison.is_none());
        assert!(!c.pairs[0].significant());
        assert!(c.pairs[0]
            .why_not_compared()
            .unwrap()
            .starts_with("different quantities"));
        // Both differences, one that cannot be told from zero: no ratio either.
        let mut zero = with(&[0.0, 0.1, 0.0, 0.2, 0.0, 0.1], Quantity::Difference);
        zero.overhead.as_mut().unwrap().distinguishable = false;
        let b = doc(vec![zero]);
        let c = compare_runs(&a, &b);
        assert!(c.pairs[0]
            .why_not_compared()
            .unwrap()
            .contains("told from zero"));
    }

    #[test]
    fn regression_an_a_a_pair_breached_on_every_cross_cpu_hand_over() {
        // Two quick runs of one build, --only syscall,create,switch: every cross-CPU hand-over
        // read +33-39% over the rounds alone. With the run-to-run variation counted (the floor
        // across CPUs here), the same rounds are no significant change.
        let cross = |level: f64| {
            let mut e = entry(
                "switch.pipe.thread",
                &[0.99, 1.0, 1.01, 1.0, 0.995, 1.005].map(|x| x * level),
            );
            e.params.set("placement", "cross-cpu");
            e
        };
        let (a, b) = (doc(vec![cross(20_000.0)]), doc(vec![cross(27_000.0)]));
        let alone = compare_runs(&a, &b);
        assert!(alone.pairs[0].significant());
        let counted = compare_runs_with(&a, &b, &RunVariation::from_history(&[], None));
        let c = counted.pairs[0].comparison.unwrap();
        assert!(!counted.pairs[0].significant(), "{c:?}");
        assert_eq!(
            c.counted,
            Counted::Floor {
                tau: crate::variation::floor(&b.results[0])
            }
        );
        // A doubling on one CPU still shows through the floor.
        let (a, b) = (
            doc(vec![entry(
                "create.fork",
                &[100.0, 101.0, 99.0, 100.5, 99.5, 100.0],
            )]),
            doc(vec![entry(
                "create.fork",
                &[200.0, 202.0, 198.0, 201.0, 199.0, 200.0],
            )]),
        );
        let c = compare_runs_with(&a, &b, &RunVariation::from_history(&[], None));
        assert!(c.pairs[0].significant(), "{:?}", c.pairs[0].comparison);
    }

    #[test]
    fn verdicts_side_by_side_flag_a_change() {
        use concbench_core::Verdict;
        let v = |k| Verdict {
            claim: "c".into(),
            source: "S0.30x".into(),
            verdict: k,
            evidence: vec!["create.fork".into()],
            explanation: "e".into(),
            checks: vec![],
            robustness: None,
            rounds: None,
            unmeasured: vec![],
            judged: Default::default(),
            full_run: Vec::new(),
        };
        let mut a = doc(vec![]);
        a.verdicts.push(v(VerdictKind::Refuted));
        let mut b = doc(vec![]);
        b.verdicts.push(v(VerdictKind::Refuted));
        let mut c = doc(vec![]);
        c.verdicts.push(v(VerdictKind::Inconclusive));
        let rows = verdicts_side_by_side(&[&a, &b]);
        assert!(!rows[0].changed());
        let rows = verdicts_side_by_side(&[&a, &b, &c, &doc(vec![])]);
        assert!(rows[0].changed());
        assert_eq!(rows[0].decisions[3], None);
    }

    #[test]
    fn regression_partly_judged_was_lost_in_compare() {
        use concbench_core::Verdict;
        let v = |unmeasured: Vec<String>| Verdict {
            claim: "c".into(),
            source: "S0.table.create_switch".into(),
            verdict: VerdictKind::Refuted,
            evidence: vec!["switch.pipe.thread".into()],
            explanation: "e".into(),
            checks: vec![],
            robustness: None,
            rounds: None,
            judged: Judged::from_unmeasured(&unmeasured),
            unmeasured,
            full_run: vec![],
        };
        let mut a = doc(vec![]);
        a.verdicts.push(v(vec!["creating and destroying".into()]));
        let mut b = doc(vec![]);
        b.verdicts.push(v(vec![]));
        let rows = verdicts_side_by_side(&[&a, &b]);
        assert_eq!(rows[0].word(0).as_deref(), Some("partly judged: refuted"));
        assert_eq!(rows[0].word(1).as_deref(), Some("refuted"));
        assert!(
            rows[0].changed(),
            "a part judged and the whole say different things"
        );
    }
}
