//! Invariants of `linear_fit` on random points.

use concbench_stats::linear_fit;
use proptest::prelude::*;

fn points() -> impl Strategy<Value = Vec<(f64, f64)>> {
    prop::collection::vec((0.0f64..1e6, -1e6f64..1e6), 3..40)
}

proptest! {
    #[test]
    fn the_interval_holds_the_slope(pts in points()) {
        if let Some(s) = linear_fit(&pts) {
            let (lo, hi) = s.ci95.unwrap();
            prop_assert!(lo <= s.slope + 1e-9 * s.slope.abs().max(1.0));
            prop_assert!(s.slope <= hi + 1e-9 * s.slope.abs().max(1.0));
        }
    }

    #[test]
    fn a_shift_of_y_moves_only_the_intercept(pts in points(), c in -1e4f64..1e4) {
        let shifted: Vec<(f64, f64)> = pts.iter().map(|(x, y)| (*x, y + c)).collect();
        if let (Some(a), Some(b)) = (linear_fit(&pts), linear_fit(&shifted)) {
            let tol = 1e-6 * a.slope.abs().max(1.0);
            prop_assert!((a.slope - b.slope).abs() <= tol);
        }
    }

    #[test]
    fn scaling_y_scales_the_slope_and_its_interval(pts in points(), k in 0.01f64..100.0) {
        let scaled: Vec<(f64, f64)> = pts.iter().map(|(x, y)| (*x, y * k)).collect();
        if let (Some(a), Some(b)) = (linear_fit(&pts), linear_fit(&scaled)) {
            let tol = 1e-6 * (a.slope * k).abs().max(1.0);
            prop_assert!((a.slope * k - b.slope).abs() <= tol);
            let (alo, ahi) = a.ci95.unwrap();
            let (blo, bhi) = b.ci95.unwrap();
            prop_assert!(((ahi - alo) * k - (bhi - blo)).abs() <= 1e-5 * ((ahi - alo) * k).abs().max(1.0));
        }
    }

    #[test]
    fn points_on_a_line_give_the_line(a in -1e3f64..1e3, b in -1e3f64..1e3, n in 3usize..30) {
        let pts: Vec<(f64, f64)> = (0..n).map(|i| (i as f64 * 7.0, a + b * i as f64 * 7.0)).collect();
        let s = linear_fit(&pts).unwrap();
        prop_assert!((s.slope - b).abs() <= 1e-6 * b.abs().max(1.0));
        let (lo, hi) = s.ci95.unwrap();
        prop_assert!(hi - lo <= 1e-5 * b.abs().max(1.0));
    }
}
