//! The slope of a straight line through points, with its 95% interval: what each further unit
//! adds, when a quantity is read at several counts of units (memory held at 1,000, 2,000, ...
//! idle threads). A slope is robust to what the counts share — the runtime's own memory, the
//! program's baseline — which a division of the last reading by the count is not.

use crate::student_t_quantile;

/// A fitted slope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slope {
    /// The least-squares slope: change in y per unit of x.
    pub slope: f64,
    /// Where the line crosses x = 0.
    pub intercept: f64,
    /// The 95% interval of the slope (Student's t on n - 2 degrees of freedom), with 3 points
    /// or more.
    pub ci95: Option<(f64, f64)>,
    /// How many points it was fitted on.
    pub points: usize,
}

/// The ordinary least-squares line through `(x, y)` points.
///
/// Invariants (tests/slope.rs): points on a line give that line, with a zero-width interval;
/// adding a constant to every y moves only the intercept; scaling every y scales slope and
/// interval; the interval always holds the slope. `None` with fewer than two points, any
/// non-finite coordinate, or all x equal (no slope to speak of).
pub fn linear_fit(points: &[(f64, f64)]) -> Option<Slope> {
    let n = points.len();
    if n < 2 || points.iter().any(|(x, y)| !x.is_finite() || !y.is_finite()) {
        return None;
    }
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n as f64;
    let sxx: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points
        .iter()
        .map(|(x, y)| (x - mean_x) * (y - mean_y))
        .sum();
    let slope = sxy / sxx;
    let intercept = mean_y - slope * mean_x;
    let ci95 = (n >= 3).then(|| {
        let residual: f64 = points
            .iter()
            .map(|(x, y)| (y - intercept - slope * x).powi(2))
            .sum();
        let df = (n - 2) as f64;
        let se = (residual / df / sxx).sqrt();
        let half = student_t_quantile(0.975, df) * se;
        (slope - half, slope + half)
    });
    Some(Slope {
        slope,
        intercept,
        ci95,
        points: n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_fitted_exactly() {
        let pts: Vec<(f64, f64)> = (1..=5)
            .map(|i| (i as f64 * 1000.0, 2048.0 + i as f64 * 9_000.0))
            .collect();
        let s = linear_fit(&pts).unwrap();
        assert!((s.slope - 9.0).abs() < 1e-9);
        assert!((s.intercept - 2048.0).abs() < 1e-6);
        let (lo, hi) = s.ci95.unwrap();
        assert!((hi - lo).abs() < 1e-6);
    }

    #[test]
    fn too_few_or_degenerate_points_have_no_slope() {
        assert_eq!(linear_fit(&[]), None);
        assert_eq!(linear_fit(&[(1.0, 2.0)]), None);
        assert_eq!(linear_fit(&[(1.0, 2.0), (1.0, 3.0)]), None);
        assert_eq!(linear_fit(&[(1.0, f64::NAN), (2.0, 3.0)]), None);
        assert_eq!(linear_fit(&[(1.0, 1.0), (2.0, 3.0)]).unwrap().ci95, None);
    }

    #[test]
    fn noise_widens_the_interval_around_the_slope() {
        let pts = [
            (1.0, 10.5),
            (2.0, 19.0),
            (3.0, 31.0),
            (4.0, 39.5),
            (5.0, 50.5),
        ];
        let s = linear_fit(&pts).unwrap();
        let (lo, hi) = s.ci95.unwrap();
        assert!(lo < s.slope && s.slope < hi);
        assert!(lo > 8.0 && hi < 12.0, "{lo} {hi}");
    }
}
