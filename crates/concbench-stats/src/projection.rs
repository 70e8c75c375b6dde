//! How wide a median's interval would be with more values, and how likely more values are to
//! decide a check: what the adaptive rounds use to stop measuring a check that more rounds would
//! not decide.

use crate::hierarchy::median_scale;
use crate::location::median;
use crate::mann_whitney::normal_cdf;

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
    1.96 * median_scale(xs) / (n as f64).sqrt()
}

/// The chance that more values, up to `horizon` in all, decide a check whose region is
/// `[low, high]` (either end may be infinite): that the median's 95% interval from `horizon`
/// values drawn like `xs` lies wholly inside the region or wholly outside it.
///
/// The final median is predicted as normal around the current one, with the spread that the
/// values still to come leave: σₘ √((H − n) / (H n)), σₘ the median's scale per value (see
/// [`projected_half_width`]) — the predictive distribution of a mean of H values given the
/// first n under a flat prior. The final interval's half-width is [`projected_half_width`] at H.
///
/// Why a chance and not the projected interval centred on today's estimate: that projection is
/// a coin toss for a check whose estimate sits a little off its margin — the estimate at ten
/// rounds lands on the near side often enough to stop checks that more rounds would have
/// decided, and a rerun then disagrees (simulated on fifteen quick runs' rounds; see
/// docs/METHODOLOGY.md). Stopping only when the chance is small is the "conditional power"
/// futility rule of sequential trials.
///
/// Invariants: in `[0, 1]`; 0 when `horizon <= xs.len()` (no values to come); 1 for fewer than
/// two values (nothing to say yet); symmetric: mirroring the values and the region gives the
/// same chance.
pub fn decision_chance(xs: &[f64], horizon: usize, low: f64, high: f64) -> f64 {
    let n = xs.len();
    if n < 2 {
        return 1.0;
    }
    if horizon <= n {
        return 0.0;
    }
    let (hf, nf) = (horizon as f64, n as f64);
    let scale = median_scale(xs);
    let h = 1.96 * scale / hf.sqrt();
    let sd = (scale * ((hf - nf) / (hf * nf)).sqrt()).max(f64::MIN_POSITIVE);
    let m = median(xs);
    let below = |x: f64| normal_cdf((x - m) / sd);
    let inside = if low + h < high - h {
        below(high - h) - below(low + h)
    } else {
        0.0
    };
    let outside = below(low - h) + (1.0 - below(high + h));
    (inside + outside).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` values spread evenly around `centre` (+-`spread`).
    fn around(centre: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| centre + spread * (2.0 * i as f64 / (n - 1) as f64 - 1.0))
            .collect()
    }

    #[test]
    fn a_check_on_its_margin_has_little_chance_and_one_off_it_a_good_one() {
        let inf = f64::INFINITY;
        // Median 1.15 against ">= 1.15": half the futures land on each side, and the final
        // interval must clear the margin by its half-width.
        let on = decision_chance(&around(1.15, 0.2, 10), 20, 1.15, inf);
        assert!(on < 0.1, "{on}");
        // Ten per cent off the margin, same spread: most futures decide.
        let off = decision_chance(&around(1.0, 0.2, 10), 20, 1.15, inf);
        assert!(off > 0.5, "{off}");
        // Nothing more to come, or nothing to go on.
        assert_eq!(decision_chance(&around(1.0, 0.2, 10), 10, 1.15, inf), 0.0);
        assert_eq!(decision_chance(&[1.0], 20, 1.15, inf), 1.0);
    }

    #[test]
    fn the_chance_is_mirror_symmetric_and_bounded() {
        let xs = around(0.93, 0.3, 12);
        let mirrored: Vec<f64> = xs.iter().map(|x| -x).collect();
        let a = decision_chance(&xs, 30, 0.87, 1.15);
        let b = decision_chance(&mirrored, 30, -1.15, -0.87);
        assert!((a - b).abs() < 1e-9, "{a} {b}");
        assert!((0.0..=1.0).contains(&a));
        // No spread: the estimate decides, whichever side of the margin it is on.
        assert_eq!(decision_chance(&[2.0; 10], 20, 1.15, f64::INFINITY), 1.0);
        assert_eq!(decision_chance(&[1.0; 10], 20, 1.15, f64::INFINITY), 1.0);
    }

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
