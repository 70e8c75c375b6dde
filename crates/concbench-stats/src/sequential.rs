//! Error control across the adaptive looks: a distribution-free group-sequential boundary for
//! a median, with Pocock-type alpha spending, and Holm's step-down over a claim's conditions.
//!
//! Why: a run judges its checks after every pass and stops measuring a check once its interval
//! clears the margin. With a fixed 95% interval at each of the looks from 6 to 20 rounds, a
//! quantity that sits exactly on its margin is decided at some look 10.7% of the time, not 5%
//! (computed exactly below). The boundary spends the 5% over the looks instead.
//!
//! Why exact: the plain order-statistic interval `[x_(k), x_(n-k+1)]` excludes a value `m`
//! exactly when fewer than `k` or more than `n - k` of the `n` values lie below `m`. When `m` is
//! the true median, that count is a symmetric random walk whatever the distribution, so the
//! chance that any look crosses is a sum over the walk's paths — computed by dynamic programme,
//! no simulation, no normal approximation. (The interpolated interval is narrower than the plain
//! one and would not have this property, so the decision uses the plain order statistics.)

use crate::location::sorted;
use std::collections::HashMap;

/// The overall error the boundary spends over all looks.
pub const SEQUENTIAL_ALPHA: f64 = 0.05;

/// Pocock-type spending (Lan and DeMets): the share of the error spent by information fraction
/// `t` in `[0, 1]`, `ln(1 + (e - 1) t)`. It spends early, so a clear effect can still be decided
/// at an early look; O'Brien-Fleming spending would keep nearly everything for the last look,
/// and every check would then need the run's whole cap of rounds.
pub fn pocock_spending(t: f64) -> f64 {
    (1.0 + (std::f64::consts::E - 1.0) * t.clamp(0.0, 1.0)).ln()
}

/// The exact chance that a symmetric sign walk crosses the boundary at some look: at look
/// `looks[i]` (values so far), the boundary `ks[i]` is crossed when fewer than `k` or more than
/// `n - k` values lie below the true median. `k = 0` is a look that cannot decide.
///
/// Invariants: in `[0, 1]`; 0 when every `k` is 0; more looks or larger `k`s never lower it.
/// `looks` must be ascending and as long as `ks`.
pub fn crossing_probability(looks: &[usize], ks: &[usize]) -> f64 {
    assert_eq!(looks.len(), ks.len(), "one boundary per look");
    // dist[b] = P(b values below so far, and no crossing yet).
    let mut dist = vec![1.0f64];
    let mut n = 0;
    let mut crossed = 0.0;
    for (&look, &k) in looks.iter().zip(ks) {
        while n < look {
            let mut next = vec![0.0; dist.len() + 1];
            for (b, p) in dist.iter().enumerate() {
                next[b] += p / 2.0;
                next[b + 1] += p / 2.0;
            }
            dist = next;
            n += 1;
        }
        if k == 0 {
            continue;
        }
        for (b, p) in dist.iter_mut().enumerate() {
            if b < k || b > n - k {
                crossed += *p;
                *p = 0.0;
            }
        }
    }
    crossed.min(1.0)
}

/// The boundary for looks at every round count from `first` to `horizon`: for each look, the
/// largest `k` such that the exact chance of a crossing by that look stays within
/// `alpha × pocock_spending(n / horizon)` — or, when `alpha` allows it, within what the first
/// look's `[min, max]` costs (`2 / 2^first`). Greedy in look order, so a look never spends what
/// a later one was promised.
///
/// Why the floor at the first look: a run judges its checks first at six rounds, and with
/// Pocock spending alone six rounds could never decide (their `[min, max]` costs 3.1%, the
/// spending allows 2.1% by then), so every check would need a seventh pass of its variants —
/// which a full run on a slow host does not always have. `[min, max]` at every later look is
/// then free (a walk that crosses it at n crossed it at six), and the looks from twelve rounds
/// on reach the same `k` as without the floor.
///
/// Invariants: `crossing_probability(looks, ks) <= alpha`; each `k <= n / 2`.
pub fn sign_boundary(first: usize, horizon: usize, alpha: f64) -> Vec<usize> {
    let looks: Vec<usize> = (first..=horizon).collect();
    let mut ks: Vec<usize> = Vec::with_capacity(looks.len());
    let first_cost = 2.0 / 2f64.powi(first.min(1000) as i32);
    let floor = if first_cost <= alpha { first_cost } else { 0.0 };
    for (i, &n) in looks.iter().enumerate() {
        let allowed = (alpha * pocock_spending(n as f64 / horizon as f64)).max(floor) + 1e-12;
        let mut best = 0;
        ks.push(0);
        for k in 1..=n / 2 {
            ks[i] = k;
            if crossing_probability(&looks[..=i], &ks) <= allowed {
                best = k;
            } else {
                break;
            }
        }
        ks[i] = best;
    }
    ks
}

/// Boundaries already computed, by (first look, horizon, alpha's bits).
type Tables = HashMap<(usize, usize, u64), std::rc::Rc<Vec<usize>>>;

/// The boundary's `k` for `n` values when looks run from `first` to `horizon` (`horizon`
/// raised to `n` when a check has more values than the plan's cap). 0 below the first look.
///
/// Invariant: never larger at a level below [`SEQUENTIAL_ALPHA`] than at it.
pub fn boundary_k(n: usize, first: usize, horizon: usize, alpha: f64) -> usize {
    if n < first || first == 0 {
        return 0;
    }
    thread_local! {
        static TABLES: std::cell::RefCell<Tables> = Default::default();
    }
    let horizon = horizon.max(n);
    let ks = TABLES.with(|t| {
        t.borrow_mut()
            .entry((first, horizon, alpha.to_bits()))
            .or_insert_with(|| std::rc::Rc::new(sign_boundary(first, horizon, alpha)))
            .clone()
    });
    let k = ks[n - first];
    // A stricter level never decides where the run's own level would not: the run's boundary
    // spends part of its error on the first look's [min, max], so at some middle looks a
    // stricter boundary without that floor would be the narrower one. Taking the smaller k
    // only makes crossings rarer, so the error stays within `alpha`, and rejection becomes
    // monotone in the level, which the family-wise step-up relies on.
    if alpha < SEQUENTIAL_ALPHA {
        k.min(boundary_k(n, first, horizon, SEQUENTIAL_ALPHA))
    } else {
        k
    }
}

/// The interval a sequential decision uses at the look with `xs.len()` values:
/// `[x_(k), x_(n-k+1)]` with `k` from [`boundary_k`]. `None` when the look cannot decide
/// (`k = 0`) or a value is not finite.
///
/// Invariants: `min <= lo <= median <= hi <= max`; contains the interpolated 95% interval of the
/// same values whenever both exist at the same level or stricter.
pub fn sequential_interval(
    xs: &[f64],
    first: usize,
    horizon: usize,
    alpha: f64,
) -> Option<(f64, f64)> {
    let n = xs.len();
    let k = boundary_k(n, first, horizon, alpha);
    if k == 0 || xs.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let s = sorted(xs);
    Some((s[k - 1], s[n - k]))
}

/// Holm's step-down over `m` hypotheses, by levels: `rejects(i, level)` says whether hypothesis
/// `i`'s test rejects at `level`. Step `r` (r rejected so far) tests the others at
/// `alpha / (m - r)`; it stops when a step rejects nothing. Returns which were rejected.
///
/// Why by levels and not p-values: a sequential boundary gives a decision at a level, not a
/// p-value; "p_i <= alpha / (m - r)" is the same statement as "test i rejects at that level"
/// when a test that rejects at a level also rejects at every larger one.
///
/// Invariants: with `m = 1` it is the test at `alpha`; every hypothesis rejected is rejected by
/// its own test at `alpha`; one rejected at `alpha / m` always is.
pub fn holm_step_down(
    m: usize,
    alpha: f64,
    mut rejects: impl FnMut(usize, f64) -> bool,
) -> Vec<bool> {
    let mut rejected = vec![false; m];
    let mut count = 0;
    while count < m {
        let level = alpha / (m - count) as f64;
        let new: Vec<usize> = (0..m)
            .filter(|&i| !rejected[i] && rejects(i, level))
            .collect();
        if new.is_empty() {
            break;
        }
        for i in new {
            rejected[i] = true;
            count += 1;
        }
    }
    rejected
}

/// Hochberg's step-up over `m` hypotheses, by levels: the largest `j` such that at least `j`
/// hypotheses reject at `alpha / (m - j + 1)`; those are rejected. Returns which were rejected.
///
/// Why beside Holm: a distribution-free test on eight rounds cannot reach Holm's first level
/// for seven conditions (`alpha / 7`), so a claim whose every condition is plainly refuted would
/// stay undecided; Hochberg rejects them all when each rejects at `alpha`. It controls the
/// family-wise error under independence or positive dependence, which checks that share a run's
/// rounds and machine have. Uniformly at least as many rejections as Holm.
///
/// Invariants: with `m = 1` it is the test at `alpha`; every hypothesis Holm rejects it rejects;
/// when all reject at `alpha`, all are rejected.
pub fn hochberg_step_up(
    m: usize,
    alpha: f64,
    mut rejects: impl FnMut(usize, f64) -> bool,
) -> Vec<bool> {
    for j in (1..=m).rev() {
        let level = alpha / (m - j + 1) as f64;
        let at: Vec<bool> = (0..m).map(|i| rejects(i, level)).collect();
        if at.iter().filter(|r| **r).count() >= j {
            return at;
        }
    }
    vec![false; m]
}

/// Holm-adjusted p-values, in the input's order: `max over j <= rank of (m - j + 1) p_(j)`,
/// capped at 1.
///
/// Invariants: `q[i] >= p[i]`; `q[i] <= 1`; ordering the p-values orders the q-values the same
/// way; a single p-value is returned unchanged.
pub fn holm(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| ps[i].total_cmp(&ps[j]));
    let mut q = vec![1.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max((ps[i] * (m - rank) as f64).min(1.0));
        q[i] = running;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_95_percent_interval_at_every_look_errs_more_than_5_percent() {
        // The plain order-statistic k of a 95% interval at n = 6..20 (coverage >= 95%).
        let looks: Vec<usize> = (6..=20).collect();
        let fixed = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 6];
        let p = crossing_probability(&looks, &fixed);
        assert!((p - 0.1066).abs() < 1e-3, "{p}");
        // One look alone: exactly the interval's own error, 2 / 64 at n = 6.
        assert!((crossing_probability(&[6], &[1]) - 2.0 / 64.0).abs() < 1e-12);
        assert_eq!(crossing_probability(&looks, &[0; 15]), 0.0);
    }

    #[test]
    fn the_boundary_spends_at_most_alpha_and_decides_from_six_rounds() {
        for horizon in [20, 30, 40] {
            let ks = sign_boundary(6, horizon, SEQUENTIAL_ALPHA);
            let looks: Vec<usize> = (6..=horizon).collect();
            let p = crossing_probability(&looks, &ks);
            assert!(p <= SEQUENTIAL_ALPHA && p > 0.04, "{horizon}: {p}");
            // Six rounds decide with their [min, max] (3.1% of the 5%).
            assert_eq!(ks[0], 1);
        }
        // Known tables (exact DP, checked against a Python replica): a quick run's cap, and a
        // level that cannot afford the first look's [min, max].
        assert_eq!(
            sign_boundary(6, 20, 0.05),
            vec![1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4, 5]
        );
        assert_eq!(sign_boundary(6, 20, 0.0125)[0], 0);
    }

    #[test]
    fn the_sequential_interval_is_plain_order_statistics() {
        let xs: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(sequential_interval(&xs, 6, 20, 0.05), Some((5.0, 16.0)));
        assert_eq!(sequential_interval(&xs[..6], 6, 20, 0.05), Some((1.0, 6.0)));
        assert_eq!(
            sequential_interval(&xs[..12], 6, 20, 0.05),
            Some((2.0, 11.0))
        );
        assert_eq!(sequential_interval(&xs[..6], 6, 20, 0.0125), None);
        assert_eq!(boundary_k(5, 6, 20, 0.05), 0);
        // More values than the cap: the horizon grows with them.
        assert!(boundary_k(25, 6, 20, 0.05) > 0);
    }

    #[test]
    fn holm_adjusts_as_r_does() {
        // p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") in R: 0.03 0.06 0.06 0.02
        let q = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (a, b) in q.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
        assert_eq!(holm(&[0.3]), vec![0.3]);
    }

    #[test]
    fn holm_by_levels_matches_holm_by_p_values() {
        let ps = [0.01, 0.04, 0.03, 0.005];
        let q = holm(&ps);
        let by_levels = holm_step_down(4, 0.05, |i, level| ps[i] <= level);
        let by_q: Vec<bool> = q.iter().map(|q| *q <= 0.05).collect();
        assert_eq!(by_levels, by_q);
        assert_eq!(by_levels, vec![true, false, false, true]);
        assert_eq!(holm_step_down(1, 0.05, |_, l| l >= 0.05), vec![true]);
        assert_eq!(holm_step_down(3, 0.05, |_, _| false), vec![false; 3]);
    }

    #[test]
    fn hochberg_rejects_all_when_all_reject_at_alpha_and_holm_would_not() {
        let ps = [0.04, 0.03, 0.045];
        assert_eq!(holm_step_down(3, 0.05, |i, l| ps[i] <= l), vec![false; 3]);
        assert_eq!(hochberg_step_up(3, 0.05, |i, l| ps[i] <= l), vec![true; 3]);
        // p.adjust(c(0.01, 0.04, 0.03, 0.005), "hochberg") in R: 0.03 0.04 0.04 0.02.
        let ps = [0.01, 0.04, 0.03, 0.005];
        assert_eq!(
            hochberg_step_up(4, 0.035, |i, l| ps[i] <= l),
            vec![true, false, false, true]
        );
        assert_eq!(hochberg_step_up(4, 0.04, |i, l| ps[i] <= l), vec![true; 4]);
    }
}
