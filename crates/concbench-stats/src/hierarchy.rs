//! Evidence over several runs: a random-effects interval with the run as the top level and the
//! rounds within it, so the interval includes the variation between runs.
//!
//! Why: the rounds of one run describe that run. On the development VM the host changed speed
//! by 30-45% within an afternoon, and a 95% interval of one run's median held another run's
//! median in only 68% of ordered pairs (Kalibera and Jones ask for the variation at the highest
//! level that varies). Each run contributes its median and that median's standard error; the
//! spread between run medians beyond what those errors explain is the run-level variance τ²
//! (DerSimonian-Laird); the interval uses the Hartung-Knapp-Sidik-Jonkman variance with a
//! Student t quantile on k − 1 degrees of freedom, which keeps close to its level with few runs
//! where the plain normal interval is far too narrow.

use crate::location::{median, quantile, sorted};

/// A quantity pooled over runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pooled {
    /// The weighted mean of the runs' medians.
    pub estimate: f64,
    /// Its interval at the requested level.
    pub ci: (f64, f64),
    /// The run-level standard deviation (√τ²): how far runs differ beyond their rounds' noise.
    pub tau: f64,
    pub runs: usize,
    pub rounds: usize,
}

/// √(π/2) × σ, σ from the interquartile range: a median's standard error times √n under a
/// normal shape, robust to one outlying round.
pub(crate) fn median_scale(xs: &[f64]) -> f64 {
    let s = sorted(xs);
    let iqr = quantile(&s, 0.75) - quantile(&s, 0.25);
    (std::f64::consts::PI / 2.0).sqrt() * iqr / 1.349
}

/// The random-effects interval of a quantity measured in several runs, each a set of rounds.
/// Pass logarithms for times and ratios (run-to-run changes are multiplicative).
///
/// A run with fewer than two rounds, or no spread, borrows the median per-round scale of the
/// others (its median's error cannot be read from its own rounds). `None` with fewer than two
/// runs (one run's own interval is the answer then), a value that is not finite, or runs whose
/// rounds give no scale to weigh them by (then no figure comes out finite).
///
/// Invariants: `ci.0 <= estimate <= ci.1`; `tau >= 0`; equivariant under `a x + b` (a > 0);
/// runs that agree exactly give an interval no narrower than the one their rounds alone give.
pub fn random_effects(runs: &[&[f64]], level: f64) -> Option<Pooled> {
    let runs: Vec<&[f64]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
    let k = runs.len();
    if k < 2 || runs.iter().flat_map(|r| r.iter()).any(|x| !x.is_finite()) {
        return None;
    }
    // Every value the same (a 0/1 outcome that never varied): the interval is the point, and
    // the weights below would divide by zero.
    let first = runs[0][0];
    if runs.iter().flat_map(|r| r.iter()).all(|x| *x == first) {
        return Some(Pooled {
            estimate: first,
            ci: (first, first),
            tau: 0.0,
            runs: k,
            rounds: runs.iter().map(|r| r.len()).sum(),
        });
    }
    let medians: Vec<f64> = runs.iter().map(|r| median(r)).collect();
    let own: Vec<Option<f64>> = runs
        .iter()
        .map(|r| (r.len() >= 2).then(|| median_scale(r)).filter(|s| *s > 0.0))
        .collect();
    let known: Vec<f64> = own.iter().flatten().copied().collect();
    let spread = medians.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - medians.iter().cloned().fold(f64::INFINITY, f64::min);
    // Without any spread within runs, fall back to a scale that cannot be zero unless every
    // value is equal (then the interval is the point).
    let fallback = if known.is_empty() {
        spread.max(f64::MIN_POSITIVE)
    } else {
        median(&known)
    };
    let variances: Vec<f64> = own
        .iter()
        .zip(&runs)
        .map(|(s, r)| {
            let s = s.unwrap_or(fallback).max(f64::MIN_POSITIVE);
            s * s / r.len() as f64
        })
        .collect();
    let tau2 = dersimonian_laird(&medians, &variances);
    let weights: Vec<f64> = variances.iter().map(|v| 1.0 / (v + tau2)).collect();
    let total: f64 = weights.iter().sum();
    let estimate = weights
        .iter()
        .zip(&medians)
        .map(|(w, m)| w * m)
        .sum::<f64>()
        / total;
    let hksj = weights
        .iter()
        .zip(&medians)
        .map(|(w, m)| w * (m - estimate).powi(2))
        .sum::<f64>()
        / ((k - 1) as f64 * total);
    // The modified HKSJ: never narrower than the plain random-effects variance, which HKSJ can be
    // when the runs agree better than their rounds suggest.
    let var = hksj.max(1.0 / total);
    let half = student_t_quantile(1.0 - (1.0 - level) / 2.0, (k - 1) as f64) * var.sqrt();
    let pooled = Pooled {
        estimate,
        ci: (estimate - half, estimate + half),
        tau: tau2.sqrt(),
        runs: k,
        rounds: runs.iter().map(|r| r.len()).sum(),
    };
    // Runs whose rounds barely vary and whose medians agree (iowait shares of exactly 0 in two
    // runs) leave a scale of the smallest float, whose weights overflow: no figure then, never
    // a NaN (it became `null` in a stored document, which could no longer be read).
    [pooled.estimate, pooled.ci.0, pooled.ci.1, pooled.tau]
        .iter()
        .all(|x| x.is_finite())
        .then_some(pooled)
}

/// The DerSimonian-Laird moment estimate of the between-run variance.
fn dersimonian_laird(estimates: &[f64], variances: &[f64]) -> f64 {
    let w: Vec<f64> = variances.iter().map(|v| 1.0 / v).collect();
    let sw: f64 = w.iter().sum();
    let sw2: f64 = w.iter().map(|w| w * w).sum();
    let mean = w.iter().zip(estimates).map(|(w, e)| w * e).sum::<f64>() / sw;
    let q: f64 = w
        .iter()
        .zip(estimates)
        .map(|(w, e)| w * (e - mean).powi(2))
        .sum();
    let df = (estimates.len() - 1) as f64;
    let c = sw - sw2 / sw;
    if c <= 0.0 {
        return 0.0;
    }
    ((q - df) / c).max(0.0)
}

/// The `p`-quantile of Student's t with `df` degrees of freedom (bisection on the CDF).
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -student_t_quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while student_t_cdf(hi, df) < p {
        hi *= 2.0;
        if hi > 1e12 {
            return hi;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if student_t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `P(T <= t)` for Student's t with `df` degrees of freedom, through the regularized incomplete
/// beta function: `P(|T| > t) = I_{df / (df + t²)}(df / 2, 1 / 2)`.
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The regularized incomplete beta function `I_x(a, b)` (continued fraction, Numerical
/// Recipes' `betacf`, with the symmetry that keeps it convergent).
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(x, a, b) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, nine terms: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // qt(0.975, df) in R.
        for (df, want) in [
            (1.0, 12.706_2),
            (2.0, 4.302_65),
            (4.0, 2.776_45),
            (9.0, 2.262_16),
        ] {
            let q = student_t_quantile(0.975, df);
            assert!((q - want).abs() < 1e-3, "df {df}: {q}");
        }
        assert!((student_t_quantile(0.975, 1e6) - 1.959_96).abs() < 1e-3);
        assert!((student_t_cdf(0.0, 3.0) - 0.5).abs() < 1e-12);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-10);
    }

    #[test]
    fn runs_that_differ_widen_the_interval_beyond_their_rounds() {
        // Three runs, each tight around its own level: the rounds alone would give a narrow
        // interval; the run level must not.
        let a = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98];
        let b = [1.20, 1.21, 1.19, 1.20, 1.22, 1.18];
        let c = [1.10, 1.11, 1.09, 1.10, 1.12, 1.08];
        let p = random_effects(&[&a, &b, &c], 0.95).unwrap();
        assert!((p.estimate - 1.1).abs() < 1e-9, "{p:?}");
        assert!(p.ci.0 < 1.0 && p.ci.1 > 1.2, "{p:?}");
        assert!(p.tau > 0.09, "{p:?}");
        assert_eq!((p.runs, p.rounds), (3, 18));
    }

    #[test]
    fn runs_that_agree_pool_their_rounds() {
        let a = [1.0, 1.1, 0.9, 1.05, 0.95, 1.0];
        let p = random_effects(&[&a, &a, &a, &a], 0.95).unwrap();
        assert_eq!(p.tau, 0.0);
        assert!((p.estimate - 1.0).abs() < 1e-12);
        // Four runs of six rounds: about 1.96 × 1.25 σ / √24 with σ ≈ 0.07, widened by t(3).
        assert!(p.ci.1 - p.ci.0 < 0.2, "{p:?}");
        assert!(random_effects(&[&a], 0.95).is_none());
        assert!(random_effects(&[&a, &[f64::NAN]], 0.95).is_none());
    }

    #[test]
    fn regression_an_outcome_that_never_varied_pools_to_its_value_not_nan() {
        // S0.table.reliability: a pool survived (1) in every round of every run.
        let ones = [1.0; 6];
        let p = random_effects(&[&ones, &ones, &ones], 0.95).unwrap();
        assert_eq!((p.estimate, p.ci, p.tau), (1.0, (1.0, 1.0), 0.0));
        let zeros = [0.0; 6];
        assert_eq!(
            random_effects(&[&zeros, &zeros], 0.95).unwrap().ci,
            (0.0, 0.0)
        );
    }

    #[test]
    fn regression_two_runs_of_iowait_differences_near_zero_pooled_to_nan() {
        // S4.iowait's "threads - one" in two quick runs: rounds of exactly 0 but one, medians
        // both 0, no per-round scale in either run. The pooled estimate came out NaN, was
        // stored as `null`, and the document could not be read back.
        let a = [0.0, 0.0, 0.0, 0.0, 0.0, 0.04];
        let b = [0.0, 0.0, 0.0, 0.0, -0.07, 0.0];
        match random_effects(&[&a, &b], 0.95) {
            None => {}
            Some(p) => assert!(
                p.estimate.is_finite() && p.ci.0.is_finite() && p.ci.1.is_finite(),
                "{p:?}"
            ),
        }
    }

    #[test]
    fn a_run_of_one_round_borrows_the_others_scale() {
        let a = [1.0, 1.1, 0.9, 1.05, 0.95, 1.0];
        let p = random_effects(&[&a, &[1.02], &a], 0.95).unwrap();
        assert!(p.ci.0 < 1.0 && 1.02 < p.ci.1, "{p:?}");
        assert_eq!(p.rounds, 13);
    }
}
