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
        prop_assert!(s.min <= s.ci95.0 && s.ci95.0 <= s.ci95.1 && s.ci95.1 <= s.max);
        prop_assert!(s.min <= s.median && s.median <= s.max);
        prop_assert!(s.min <= s.mean + 1e-9 * s.mean.abs().max(1.0) && s.mean <= s.max + 1e-9 * s.max.abs().max(1.0));
    }

    #[test]
    fn odd_sized_bootstrap_interval_contains_the_median(mut xs in sample()) {
        if xs.len() % 2 == 0 { xs.pop(); }
        prop_assume!(!xs.is_empty());
        let (lo, hi) = bootstrap_median_ci(&xs, 500, 0.95, 11);
        let m = median(&xs);
        prop_assert!(lo <= m && m <= hi, "{lo} {m} {hi}");
    }

    #[test]
    fn bootstrap_is_deterministic(xs in sample(), seed in any::<u64>()) {
        prop_assert_eq!(bootstrap_median_ci(&xs, 200, 0.95, seed), bootstrap_median_ci(&xs, 200, 0.95, seed));
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
    fn ratio_interval_is_ordered(a in prop::collection::vec(1.0f64..1e6, 1..30), b in prop::collection::vec(1.0f64..1e6, 1..30)) {
        let (lo, hi) = bootstrap_ratio_ci(&a, &b, 300, 0.95, 5).unwrap();
        prop_assert!(lo <= hi && lo > 0.0);
    }

    #[test]
    fn outliers_never_exceed_the_sample(xs in sample()) {
        prop_assert!(tukey_outliers(&xs).total() <= xs.len());
    }
}
