//! How wide a median's interval would be with more values: the projection the adaptive rounds
//! use to stop measuring a check that more rounds would not decide.

use crate::location::{quantile, sorted};

/// Half the width of the 95% interval of the median expected from `n` values drawn like `xs`.
///
/// The large-sample form 1.96 × √(π/2) × σ / √n (the median's standard error under a normal
/// shape), with σ estimated from the interquartile range (IQR / 1.349) so that one outlying
/// round does not inflate it. Why not the order-statistic interval itself: at six values it is
/// [min, max] (97% coverage), often far from symmetric about the median, and shrinks much faster
/// than 1/√n as values are added — halving it overstates what more rounds leave undecided.
///
/// Invariants: >= 0; 0 for fewer than 2 values, for no spread, or for `n == 0`; halves when `n`
/// quadruples; scales with the values (`k xs` gives `k` times the width for `k >= 0`).
pub fn projected_half_width(xs: &[f64], n: usize) -> f64 {
    if xs.len() < 2 || n == 0 {
        return 0.0;
    }
    let s = sorted(xs);
    let iqr = quantile(&s, 0.75) - quantile(&s, 0.25);
    let sigma = iqr / 1.349;
    1.96 * (std::f64::consts::PI / 2.0).sqrt() * sigma / (n as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_normal_sample_projects_the_textbook_width() {
        // Quartiles of a standard normal at +-0.674: sigma = 1.
        let xs = [-0.674, -0.674, 0.0, 0.674, 0.674];
        let h = projected_half_width(&xs, 100);
        assert!((h - 1.96 * 1.2533 / 10.0).abs() < 0.005, "{h}");
    }

    #[test]
    fn quadrupling_the_values_halves_the_width_and_nothing_gives_nothing() {
        let xs = [1.0, 2.0, 3.0, 4.0, 10.0];
        let a = projected_half_width(&xs, 10);
        let b = projected_half_width(&xs, 40);
        assert!((a / b - 2.0).abs() < 1e-9);
        assert_eq!(projected_half_width(&[5.0; 8], 10), 0.0);
        assert_eq!(projected_half_width(&[5.0], 10), 0.0);
        assert_eq!(projected_half_width(&xs, 0), 0.0);
        let scaled: Vec<f64> = xs.iter().map(|x| 3.0 * x).collect();
        assert!((projected_half_width(&scaled, 10) - 3.0 * a).abs() < 1e-9);
    }
}
