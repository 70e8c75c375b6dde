//! Two independent samples (two runs): how many times B is A, with a distribution-free interval.
//!
//! The Hodges-Lehmann estimate of the shift between `ln a` and `ln b` (the median of every
//! pairwise difference), with the interval that inverts the Mann-Whitney test: its coverage is
//! exact under a shift model, and "the interval excludes 1" is the same statement as "the
//! Mann-Whitney test rejects at that level", so a ratio and its significance mark can never
//! disagree. Exact critical values come from the Mann-Whitney null distribution for small
//! samples, the normal approximation for large ones.

use crate::location::sorted;

/// Above this many pairs the exact null distribution is replaced by its normal approximation
/// (the dynamic programme is quadratic in m * n).
const EXACT_MAX_PAIRS: usize = 2500;

/// B relative to A for two independent samples of positive values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// The Hodges-Lehmann estimate of b / a (exp of the median pairwise log difference).
    pub ratio: f64,
    /// The interval of the ratio at the requested level; `None` when the samples are too small
    /// for any pair of differences to reach it (3 and 3 at 95%).
    pub ci: Option<(f64, f64)>,
    /// Two-sided Mann-Whitney p-value of the difference.
    pub p_value: f64,
}

/// `P(U <= u)` for every `u` in `0..=m*n`, U the Mann-Whitney statistic of samples of sizes
/// m and n without ties: counts of arrangements by the recurrence f(m, n, u) = f(m-1, n, u-n) +
/// f(m, n-1, u), kept as probabilities.
fn exact_cdf(m: usize, n: usize) -> Vec<f64> {
    // counts[j][u] for the current m, over n' = 0..=n.
    let mut prev: Vec<Vec<f64>> = (0..=n).map(|_| vec![1.0]).collect();
    for mi in 1..=m {
        let mut cur: Vec<Vec<f64>> = vec![vec![1.0]];
        for nj in 1..=n {
            let len = mi * nj + 1;
            let mut row = vec![0.0; len];
            for (u, slot) in row.iter_mut().enumerate() {
                let a = if u >= nj {
                    prev[nj].get(u - nj).copied().unwrap_or(0.0)
                } else {
                    0.0
                };
                let b = cur[nj - 1].get(u).copied().unwrap_or(0.0);
                *slot = a + b;
            }
            cur.push(row);
        }
        prev = cur;
    }
    let counts = &prev[n];
    let total: f64 = counts.iter().sum();
    let mut acc = 0.0;
    counts
        .iter()
        .map(|c| {
            acc += c / total;
            acc.min(1.0)
        })
        .collect()
}

/// Exact null distributions already computed, by sample sizes.
type Tables = std::collections::HashMap<(usize, usize), std::rc::Rc<Vec<f64>>>;

/// The largest k such that `[d_(k), d_(mn-k+1)]` still has coverage >= level, and the
/// two-sided p-value of an observed U; exact or normal.
struct NullDistribution {
    m: usize,
    n: usize,
    exact: Option<std::rc::Rc<Vec<f64>>>,
}

impl NullDistribution {
    fn new(m: usize, n: usize) -> Self {
        // `compare` asks for the same few sizes hundreds of times: remember each table.
        thread_local! {
            static TABLES: std::cell::RefCell<Tables> = Default::default();
        }
        let exact = (m * n <= EXACT_MAX_PAIRS).then(|| {
            TABLES.with(|t| {
                t.borrow_mut()
                    .entry((m, n))
                    .or_insert_with(|| std::rc::Rc::new(exact_cdf(m, n)))
                    .clone()
            })
        });
        Self { m, n, exact }
    }

    /// `P(U <= u)`.
    fn cdf(&self, u: f64) -> f64 {
        if u < 0.0 {
            return 0.0;
        }
        match &self.exact {
            Some(c) => c[(u.floor() as usize).min(c.len() - 1)],
            None => {
                let (m, n) = (self.m as f64, self.n as f64);
                let mean = m * n / 2.0;
                let sd = (m * n * (m + n + 1.0) / 12.0).sqrt();
                crate::mann_whitney::normal_cdf((u + 0.5 - mean) / sd)
            }
        }
    }

    fn critical_k(&self, level: f64) -> Option<usize> {
        let alpha = (1.0 - level) / 2.0;
        let pairs = self.m * self.n;
        let mut k = 0;
        while k < pairs / 2 && self.cdf(k as f64) <= alpha {
            k += 1;
        }
        (k >= 1).then_some(k)
    }
}

/// B relative to A: Hodges-Lehmann ratio, its interval at `level`, and the Mann-Whitney p.
///
/// `None` when a sample is empty or holds a value that is not positive and finite (ratios of
/// times, rates and sizes only). Invariants: `ci.0 <= ratio <= ci.1`; swapping the samples
/// gives the reciprocal ratio and interval; scaling b by c scales the ratio and interval by c.
pub fn shift_ratio(a: &[f64], b: &[f64], level: f64) -> Option<Shift> {
    let ok = |xs: &[f64]| !xs.is_empty() && xs.iter().all(|x| x.is_finite() && *x > 0.0);
    if !ok(a) || !ok(b) {
        return None;
    }
    let (la, lb): (Vec<f64>, Vec<f64>) = (
        a.iter().map(|x| x.ln()).collect(),
        b.iter().map(|x| x.ln()).collect(),
    );
    let diffs = sorted(
        &la.iter()
            .flat_map(|x| lb.iter().map(move |y| y - x))
            .collect::<Vec<f64>>(),
    );
    let estimate = crate::location::quantile(&diffs, 0.5);
    let null = NullDistribution::new(a.len(), b.len());
    let ci = null.critical_k(level).map(|k| {
        let (lo, hi) = (diffs[k - 1], diffs[diffs.len() - k]);
        (lo.min(estimate).exp(), hi.max(estimate).exp())
    });
    let p_value = if null.exact.is_some() && !has_ties(&la, &lb) {
        // U counts the pairs where b is below a; its null distribution is symmetric about
        // m n / 2, so the two-sided p-value is twice the smaller tail.
        let u = diffs.iter().filter(|d| **d < 0.0).count() as f64;
        let pairs = (a.len() * b.len()) as f64;
        (2.0 * null.cdf(u.min(pairs - u))).min(1.0)
    } else {
        crate::mann_whitney_p(a, b)
    };
    Some(Shift {
        ratio: estimate.exp(),
        ci,
        p_value,
    })
}

fn has_ties(a: &[f64], b: &[f64]) -> bool {
    let all = sorted(&a.iter().chain(b).copied().collect::<Vec<f64>>());
    all.windows(2).any(|w| w[0] == w[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_null_distribution_of_three_and_three() {
        // 20 arrangements; U = 0 and U = 9 once each, U = 1 once, U = 4 and 5 three times.
        let c = exact_cdf(3, 3);
        assert_eq!(c.len(), 10);
        assert!((c[0] - 0.05).abs() < 1e-12);
        assert!((c[1] - 0.10).abs() < 1e-12);
        assert!((c[9] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn three_against_three_has_no_95_percent_interval_and_four_against_four_has() {
        let a = [1.0, 1.1, 1.2];
        let b = [2.0, 2.1, 2.2];
        let s = shift_ratio(&a, &b, 0.95).unwrap();
        assert!(s.ci.is_none());
        let s = shift_ratio(&[1.0, 1.1, 1.2, 1.3], &[2.0, 2.1, 2.2, 2.3], 0.95).unwrap();
        let (lo, hi) = s.ci.unwrap();
        assert!(lo > 1.0 && lo <= s.ratio && s.ratio <= hi, "{s:?}");
    }

    #[test]
    fn separated_samples_are_significant_and_their_interval_excludes_one() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 + i as f64).collect();
        let b: Vec<f64> = a.iter().map(|x| x * 1.4).collect();
        let s = shift_ratio(&a, &b, 0.95).unwrap();
        assert!((s.ratio - 1.4).abs() < 0.05, "{s:?}");
        let (lo, _) = s.ci.unwrap();
        assert!(lo > 1.0 && s.p_value < 0.05, "{s:?}");
    }

    #[test]
    fn identical_samples_are_not_significant_and_straddle_one() {
        let a: Vec<f64> = (1..=8).map(f64::from).collect();
        let s = shift_ratio(&a, &a, 0.95).unwrap();
        let (lo, hi) = s.ci.unwrap();
        assert!(lo < 1.0 && hi > 1.0 && s.p_value > 0.5, "{s:?}");
        assert!((s.ratio - 1.0).abs() < 1e-12);
    }

    #[test]
    fn exact_and_normal_critical_values_agree_near_the_switch() {
        let exact = NullDistribution::new(40, 40);
        let normal = NullDistribution {
            m: 40,
            n: 40,
            exact: None,
        };
        let (ke, kn) = (
            exact.critical_k(0.95).unwrap(),
            normal.critical_k(0.95).unwrap(),
        );
        assert!(ke.abs_diff(kn) <= 3, "{ke} vs {kn}");
    }
}
