//! Property tests: the invariants each statistics function states, on random finite samples.

use concbench_stats::*;
use proptest::prelude::*;

fn sample() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1.0e6f64..1.0e6, 1..60)
}

proptest! {
    #[test]
    fn median_lies_between_min_and_max(xs in sample()) {
        let m = median(&xs);
        let lo = xs.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(lo <= m && m <= hi);
    }

    #[test]
    fn median_and_mad_respect_shift_and_scale(xs in sample(), c in -1e3f64..1e3, k in 0.0f64..100.0) {
        let shifted: Vec<f64> = xs.iter().map(|x| x + c).collect();
        let scaled: Vec<f64> = xs.iter().map(|x| x * k).collect();
        let tol = 1e-6 * (1.0 + median(&xs).abs() * (1.0 + k) + c.abs());
        prop_assert!((median(&shifted) - (median(&xs) + c)).abs() <= tol);
        prop_assert!((median(&scaled) - k * median(&xs)).abs() <= tol);
        prop_assert!((mad(&shifted) - mad(&xs)).abs() <= tol);
        prop_assert!((mad(&scaled) - k * mad(&xs)).abs() <= tol * (1.0 + mad(&xs)));
        prop_assert!(mad(&xs) >= 0.0);
    }

    #[test]
    fn summary_orders_its_fields(xs in sample()) {
        let s = summarize(&xs);
        if let Some((lo, hi)) = s.ci95 {
            prop_assert!(s.min <= lo && lo <= s.median && s.median <= hi && hi <= s.max);
        }
        prop_assert_eq!(s.ci95.is_some(), xs.len() >= MIN_VALUES_95);
        prop_assert!(s.min <= s.median && s.median <= s.max);
        prop_assert!(s.min <= s.mean + 1e-9 * s.mean.abs().max(1.0) && s.mean <= s.max + 1e-9 * s.max.abs().max(1.0));
    }

    #[test]
    fn median_interval_is_equivariant_under_positive_affine_maps(xs in sample(), a in 0.01f64..100.0, b in -1e3f64..1e3) {
        let mapped: Vec<f64> = xs.iter().map(|x| a * x + b).collect();
        match (median_interval(&xs, 0.95), median_interval(&mapped, 0.95)) {
            (Some((lo, hi)), Some((mlo, mhi))) => {
                let tol = 1e-6 * (1.0 + (a * lo).abs() + (a * hi).abs() + b.abs());
                prop_assert!((mlo - (a * lo + b)).abs() <= tol && (mhi - (a * hi + b)).abs() <= tol);
            }
            (None, None) => {}
            other => prop_assert!(false, "{:?}", other),
        }
    }

    #[test]
    fn paired_ratio_interval_contains_its_estimate(pairs in prop::collection::vec((1.0f64..1e6, 1.0f64..1e6), 1..40)) {
        let (a, b): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
        let (r, ci) = paired_ratio(&a, &b, 0.95).unwrap();
        if let Some((lo, hi)) = ci {
            prop_assert!(lo <= r && r <= hi && lo > 0.0);
        }
    }

    #[test]
    fn mann_whitney_is_a_symmetric_probability(a in sample(), b in sample(), c in -1e3f64..1e3) {
        let p = mann_whitney_p(&a, &b);
        prop_assert!((0.0..=1.0).contains(&p));
        prop_assert!((p - mann_whitney_p(&b, &a)).abs() < 1e-9);
        let a2: Vec<f64> = a.iter().map(|x| x + c).collect();
        let b2: Vec<f64> = b.iter().map(|x| x + c).collect();
        // Shifting both samples keeps every rank unless rounding merges or splits ties.
        let p2 = mann_whitney_p(&a2, &b2);
        prop_assert!((p - p2).abs() < 0.05, "{p} {p2}");
    }

    #[test]
    fn shift_ratio_is_reciprocal_and_its_interval_holds_it(a in prop::collection::vec(1.0f64..1e6, 1..25), b in prop::collection::vec(1.0f64..1e6, 1..25)) {
        let ab = shift_ratio(&a, &b, 0.95).unwrap();
        let ba = shift_ratio(&b, &a, 0.95).unwrap();
        prop_assert!((ab.ratio * ba.ratio - 1.0).abs() < 1e-9);
        prop_assert!((0.0..=1.0).contains(&ab.p_value));
        if let Some((lo, hi)) = ab.ci {
            prop_assert!(lo <= ab.ratio && ab.ratio <= hi && lo > 0.0);
            let (blo, bhi) = ba.ci.unwrap();
            prop_assert!((lo * bhi - 1.0).abs() < 1e-9 && (hi * blo - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn benjamini_hochberg_never_lowers_a_p_value(ps in prop::collection::vec(0.0f64..=1.0, 0..50)) {
        let q = benjamini_hochberg(&ps);
        prop_assert_eq!(q.len(), ps.len());
        for (p, q) in ps.iter().zip(&q) {
            prop_assert!(q >= p && *q <= 1.0);
        }
        for i in 0..ps.len() {
            for j in 0..ps.len() {
                if ps[i] < ps[j] { prop_assert!(q[i] <= q[j]); }
            }
        }
    }

    #[test]
    fn decision_chance_is_a_mirror_symmetric_probability(xs in sample(), h in 0usize..80, a in -1e6f64..1e6, w in 0.0f64..1e6) {
        let p = decision_chance(&xs, h, a, a + w);
        prop_assert!((0.0..=1.0).contains(&p));
        let mirrored: Vec<f64> = xs.iter().map(|x| -x).collect();
        prop_assert!((p - decision_chance(&mirrored, h, -(a + w), -a)).abs() < 1e-6);
        if h <= xs.len() && xs.len() >= 2 {
            prop_assert_eq!(p, 0.0);
        }
    }

    #[test]
    fn modes_partition_the_values(xs in prop::collection::vec(0.1f64..1e6, 1..60)) {
        let m = modes(&xs);
        prop_assert!(!m.is_empty());
        let total: f64 = m.iter().map(|x| x.share).sum();
        prop_assert!((total - 1.0).abs() < 1e-9);
        for w in m.windows(2) {
            prop_assert!(w[0].high < w[1].low && w[1].low / w[0].high >= MODE_GAP);
        }
    }

    #[test]
    fn outliers_never_exceed_the_sample(xs in sample()) {
        prop_assert!(tukey_outliers(&xs).total() <= xs.len());
    }

    #[test]
    fn the_sequential_interval_holds_the_median_and_is_no_narrower_than_the_95_percent_one(
        xs in prop::collection::vec(-1.0e6f64..1.0e6, 6..40), h in 6usize..40
    ) {
        let m = median(&xs);
        if let Some((lo, hi)) = sequential_interval(&xs, 6, h, SEQUENTIAL_ALPHA) {
            prop_assert!(lo <= m && m <= hi);
            if let Some((a, b)) = median_interval(&xs, 0.95) {
                prop_assert!(lo <= a + 1e-9 * a.abs().max(1.0) && b <= hi + 1e-9 * b.abs().max(1.0));
            }
        }
        // A stricter level never gives a narrower interval.
        let strict = sequential_interval(&xs, 6, h, SEQUENTIAL_ALPHA / 4.0);
        if let (Some((a, b)), Some((lo, hi))) = (strict, sequential_interval(&xs, 6, h, SEQUENTIAL_ALPHA)) {
            prop_assert!(a <= lo && hi <= b);
        }
    }

    #[test]
    fn every_boundary_spends_at_most_its_alpha(h in 6usize..36, a in 0.001f64..0.2) {
        let ks = sign_boundary(6, h, a);
        let looks: Vec<usize> = (6..=h).collect();
        prop_assert!(crossing_probability(&looks, &ks) <= a + 1e-9);
    }

    #[test]
    fn the_random_effects_interval_holds_its_estimate_and_is_shift_and_scale_equivariant(
        runs in prop::collection::vec(prop::collection::vec(-1.0e3f64..1.0e3, 1..12), 2..6),
        c in -1e3f64..1e3, k in 0.1f64..10.0
    ) {
        let refs: Vec<&[f64]> = runs.iter().map(Vec::as_slice).collect();
        let p = random_effects(&refs, 0.95).unwrap();
        prop_assert!(p.ci.0 <= p.estimate && p.estimate <= p.ci.1 && p.tau >= 0.0);
        let moved: Vec<Vec<f64>> = runs.iter().map(|r| r.iter().map(|x| k * x + c).collect()).collect();
        let refs: Vec<&[f64]> = moved.iter().map(Vec::as_slice).collect();
        let q = random_effects(&refs, 0.95).unwrap();
        let tol = 1e-6 * (1.0 + p.estimate.abs() * k + c.abs() + (p.ci.1 - p.ci.0) * k);
        prop_assert!((q.estimate - (k * p.estimate + c)).abs() <= tol);
        prop_assert!(((q.ci.1 - q.ci.0) - k * (p.ci.1 - p.ci.0)).abs() <= tol);
    }

    #[test]
    fn hochberg_rejects_whatever_holm_rejects(ps in prop::collection::vec(0.0f64..0.2, 1..8)) {
        let by_holm = holm_step_down(ps.len(), 0.05, |i, l| ps[i] <= l);
        let hoch = hochberg_step_up(ps.len(), 0.05, |i, l| ps[i] <= l);
        for (a, b) in by_holm.iter().zip(&hoch) {
            prop_assert!(!a || *b);
        }
        let q = holm(&ps);
        for (p, q) in ps.iter().zip(&q) {
            prop_assert!(q >= p && *q <= 1.0);
        }
    }

    #[test]
    fn steady_state_ignores_the_scale_and_never_holds_before_two_halves(
        rates in prop::collection::vec(1.0f64..1e6, 0..40),
        shares in prop::collection::vec(0.0f64..0.05, 40),
        k in 1usize..6,
        scale in -8i32..8,
    ) {
        let c = Criterion { k, tolerance: 0.1, jit_share_max: 0.01, min_requests: 100, cap: 60 };
        let series: Vec<Window> = rates
            .iter()
            .zip(&shares)
            .map(|(&rate, &s)| Window { rate, requests: 50, jit_share: Some(s) })
            .collect();
        // A power of two scales every rate exactly, so no ratio moves by a rounding.
        let factor = 2f64.powi(scale);
        let scaled: Vec<Window> = series.iter().map(|w| Window { rate: w.rate * factor, ..*w }).collect();
        let (a, b) = (first_steady(&series, &c), first_steady(&scaled, &c));
        prop_assert_eq!(a.is_ok(), b.is_ok());
        if let (Ok(x), Ok(y)) = (a, b) {
            prop_assert_eq!(x, y);
            prop_assert!(x >= 2 * k);
        }
        for n in 0..series.len().min(2 * k) {
            prop_assert!(holds(&series[..n], &c).is_err());
        }
    }
}

proptest! {
    #[test]
    fn a_bounded_interval_keeps_every_possible_value_and_holds_no_impossible_one(
        lo in -1e3f64..1e3, width in 0.0f64..1e3, at in 0.0f64..1.0, truth in 0.0f64..2e3
    ) {
        let hi = lo + width;
        let estimate = lo + at * width;
        let (e, ci) = bound_at_zero(estimate, Some((lo, hi)));
        let (blo, bhi) = ci.unwrap();
        prop_assert!(e >= 0.0 && blo >= 0.0 && bhi >= 0.0);
        prop_assert!(blo <= e && e <= bhi);
        // Coverage is kept: a true value that cannot be negative and lay inside still does.
        if lo <= truth && truth <= hi {
            prop_assert!(blo <= truth && truth <= bhi);
        }
        if lo >= 0.0 {
            prop_assert_eq!((e, blo, bhi), (estimate, lo, hi));
        }
        match against_zero(lo, hi) {
            AgainstZero::Above => prop_assert!(lo > 0.0),
            AgainstZero::Below => prop_assert!(hi < 0.0),
            AgainstZero::Reaches => prop_assert!(lo <= 0.0 && hi >= 0.0),
        }
    }
}

proptest! {
    #[test]
    fn counting_run_variation_widens_and_keeps_interval_and_p_one_statement(
        ratio in 0.2f64..5.0, down in 0.0f64..0.5, up in 0.0f64..0.5, tau in 0.001f64..0.5,
        more in 0.0f64..0.3
    ) {
        let s = Shift { ratio, ci: Some((ratio * (-down).exp(), ratio * up.exp())), p_value: 0.5 };
        let w = with_run_variation(s, tau);
        let (lo, hi) = w.ci.unwrap();
        let (slo, shi) = s.ci.unwrap();
        prop_assert!(lo <= slo * (1.0 + 1e-12) && hi >= shi * (1.0 - 1e-12));
        prop_assert!(lo <= ratio && ratio <= hi);
        let wider = with_run_variation(s, tau + more).ci.unwrap();
        prop_assert!(wider.0 <= lo * (1.0 + 1e-12) && wider.1 >= hi * (1.0 - 1e-12));
        let excludes_one = lo > 1.0 || hi < 1.0;
        // Away from the boundary (the normal approximation's last digits), one statement.
        let margin = (lo.ln().abs()).min(hi.ln().abs());
        if margin > 1e-6 {
            prop_assert_eq!(excludes_one, w.p_value < 0.05, "{:?}", w);
        }
    }
}
