//! `concbench compare A B`: two runs set side by side, result by result.
//!
//! Results match when they have the same id and the same params (placement included). For each
//! pair: the ratio of medians B/A, its percentile-bootstrap 95% interval (A and B resampled
//! independently) and a two-sided Mann-Whitney U p-value; a difference with p >= 0.05 is marked
//! not significant. The summary is the geometric mean of the ratios (the mean of ratios that
//! treats 2x and 0.5x symmetrically).

use crate::verdicts::{compare, Comparison};
use concbench_core::{ResultDoc, ResultEntry};
use concbench_stats::geometric_mean;

/// The significance level of the Mann-Whitney test.
pub const ALPHA: f64 = 0.05;

/// One result present in both runs.
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    pub a: &'a ResultEntry,
    pub b: &'a ResultEntry,
    /// `None` when the two cannot be compared: too few samples (under 3 per side), a zero
    /// median in A, or different units.
    pub comparison: Option<Comparison>,
}

impl Pair<'_> {
    /// Mann-Whitney p < [`ALPHA`].
    pub fn significant(&self) -> bool {
        self.comparison.is_some_and(|c| c.p_value < ALPHA)
    }

    /// Why the pair has no comparison, when it has none.
    pub fn why_not_compared(&self) -> Option<String> {
        if self.comparison.is_some() {
            return None;
        }
        Some(if self.a.unit != self.b.unit {
            format!("units differ ({} vs {})", self.a.unit, self.b.unit)
        } else if self.a.summary.median == 0.0 {
            "A's median is zero".to_string()
        } else {
            format!(
                "too few samples ({} and {}; at least {} each)",
                self.a.samples.len(),
                self.b.samples.len(),
                crate::verdicts::MIN_SAMPLES
            )
        })
    }
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
    /// The geometric mean of B/A over the compared pairs, and how many pairs it covers.
    pub fn geometric_mean(&self) -> Option<(f64, usize)> {
        let ratios: Vec<f64> = self
            .pairs
            .iter()
            .filter_map(|p| p.comparison.map(|c| c.ratio))
            .filter(|r| *r > 0.0 && r.is_finite())
            .collect();
        Some((geometric_mean(&ratios)?, ratios.len()))
    }

    /// How many compared pairs differ significantly.
    pub fn significant_count(&self) -> usize {
        self.pairs.iter().filter(|p| p.significant()).count()
    }
}

/// Match `b`'s results to `a`'s and compare each pair (ratios are B/A).
pub fn compare_runs<'a>(a: &'a ResultDoc, b: &'a ResultDoc) -> RunComparison<'a> {
    let same = |x: &ResultEntry, y: &ResultEntry| x.id == y.id && x.params == y.params;
    let pairs = a
        .results
        .iter()
        .filter_map(|ra| {
            let rb = b.results.iter().find(|rb| same(ra, rb))?;
            let comparison = (ra.unit == rb.unit).then(|| compare(ra, rb)).flatten();
            Some(Pair {
                a: ra,
                b: rb,
                comparison,
            })
        })
        .collect();
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
        assert!((cmp.ratio - 1.5).abs() < 1e-9, "{}", cmp.ratio);
        assert!(cmp.ci.0 <= 1.5 && 1.5 <= cmp.ci.1 && cmp.ci.0 > 1.4 && cmp.ci.1 < 1.6);
        assert!(pair.significant(), "p = {}", cmp.p_value);
        assert_eq!(c.significant_count(), 1);
        let (g, n) = c.geometric_mean().unwrap();
        assert!((g - 1.5).abs() < 1e-9 && n == 1);
    }

    #[test]
    fn overlapping_samples_are_not_significant() {
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
        assert!(pair.comparison.unwrap().ci.0 < 1.0 && pair.comparison.unwrap().ci.1 > 1.0);
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
    }

    #[test]
    fn geometric_mean_is_symmetric_in_doubling_and_halving() {
        let s = [10.0, 10.0, 10.0, 10.0, 10.0];
        let double: Vec<f64> = s.iter().map(|x| x * 2.0).collect();
        let half: Vec<f64> = s.iter().map(|x| x / 2.0).collect();
        let mut x = entry("t.x", &s);
        x.params.set("n", 1);
        let mut y = entry("t.x", &s);
        y.params.set("n", 2);
        let mut x2 = entry("t.x", &double);
        x2.params.set("n", 1);
        let mut y2 = entry("t.x", &half);
        y2.params.set("n", 2);
        let (a, b) = (doc(vec![x, y]), doc(vec![x2, y2]));
        let c = compare_runs(&a, &b);
        let (g, n) = c.geometric_mean().unwrap();
        assert_eq!(n, 2);
        assert!((g - 1.0).abs() < 1e-9, "{g}");
    }

    #[test]
    fn too_few_samples_or_other_units_give_no_comparison_and_say_why() {
        let a = doc(vec![entry("t.x", &[1.0, 2.0])]);
        let b = doc(vec![entry("t.x", &[1.0, 2.0])]);
        let c = compare_runs(&a, &b);
        assert!(c.pairs[0].comparison.is_none());
        assert!(c.pairs[0].why_not_compared().unwrap().contains("too few"));
        let mut other = entry("t.x", &[1.0, 2.0, 3.0]);
        other.unit = "KiB".into();
        let (a2, b2) = (doc(vec![entry("t.x", &[1.0, 2.0, 3.0])]), doc(vec![other]));
        let c2 = compare_runs(&a2, &b2);
        assert!(c2.pairs[0]
            .why_not_compared()
            .unwrap()
            .contains("units differ"));
        assert!(c2.geometric_mean().is_none());
    }
}
