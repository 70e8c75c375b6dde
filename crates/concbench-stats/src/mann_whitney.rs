//! The Mann-Whitney U test: are two samples drawn from the same distribution?
//!
//! Used by `compare` to mark differences that are not significant. Written by hand because the
//! normal approximation with tie correction is short and no small, maintained crate offers it
//! without a large dependency tree.

/// Two-sided p-value of the Mann-Whitney U test (normal approximation with tie correction and
/// continuity correction). Returns 1.0 when either sample is empty or every value is tied.
///
/// Invariants: `0 <= p <= 1`; symmetric in its arguments; shifting both samples by the same
/// constant does not change it.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    // Rank the pooled sample, giving tied values their average rank.
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = pooled.len();
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        rank_sum_a += pooled[i..=j].iter().filter(|p| p.1).count() as f64 * avg_rank;
        i = j + 1;
    }
    let (n1f, n2f, nf) = (n1 as f64, n2 as f64, n as f64);
    let u1 = rank_sum_a - n1f * (n1f + 1.0) / 2.0;
    let mean_u = n1f * n2f / 2.0;
    let var_u = n1f * n2f / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)));
    if var_u <= 0.0 {
        return 1.0;
    }
    let z = ((u1 - mean_u).abs() - 0.5).max(0.0) / var_u.sqrt();
    (2.0 * normal_sf(z)).clamp(0.0, 1.0)
}

/// The standard normal distribution function, Phi(z).
pub(crate) fn normal_cdf(z: f64) -> f64 {
    1.0 - normal_sf(z)
}

/// Survival function of the standard normal, 1 - Phi(z), via erfc (Abramowitz-Stegun 7.1.26,
/// absolute error < 1.5e-7: far below what a significance mark needs).
fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    poly * (-x * x).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separated_samples_are_significant() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 + i as f64).collect();
        let b: Vec<f64> = (0..10).map(|i| 200.0 + i as f64).collect();
        assert!(mann_whitney_p(&a, &b) < 0.001);
    }

    #[test]
    fn interleaved_samples_are_not() {
        let a = [1.0, 3.0, 5.0, 7.0, 9.0, 11.0];
        let b = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0];
        assert!(mann_whitney_p(&a, &b) > 0.5);
    }

    #[test]
    fn known_value_matches_scipy() {
        // scipy.stats.mannwhitneyu([1,2,3,4,5],[6,7,8,9,10], method="asymptotic") -> p = 0.01193
        let p = mann_whitney_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!((p - 0.01193).abs() < 5e-4, "{p}");
    }

    #[test]
    fn erfc_known_values() {
        assert!((erfc(0.0) - 1.0).abs() < 1e-6);
        assert!((erfc(1.0) - 0.157_299_2).abs() < 1e-6);
    }
}
