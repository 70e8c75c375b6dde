//! Location and spread of a sample: median, quantiles, mean, MAD, standard deviation.

/// Sorted copy of `xs` (total order; NaN is a caller error and sorts last).
pub(crate) fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// The `q`-quantile (0 <= q <= 1) of an already sorted, non-empty slice, by linear
/// interpolation between closest ranks (type 7, as R and NumPy default).
///
/// Invariant: `sorted[0] <= quantile(sorted, q) <= sorted[n-1]`, monotone in `q`.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty(), "quantile of an empty sample");
    let q = q.clamp(0.0, 1.0);
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// Median of a non-empty sample (mean of the two middle values for even sizes).
///
/// Invariants: `min <= median <= max`; `median(x + c) = median(x) + c`; `median(k x) = k median(x)`
/// for `k >= 0`.
pub fn median(xs: &[f64]) -> f64 {
    quantile(&sorted(xs), 0.5)
}

/// Arithmetic mean of a non-empty sample.
pub fn mean(xs: &[f64]) -> f64 {
    assert!(!xs.is_empty(), "mean of an empty sample");
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation (n - 1 denominator); 0 for a single value.
pub fn stddev(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (xs.len() - 1) as f64).sqrt()
}

/// Median absolute deviation from the median, unscaled (multiply by 1.4826 to estimate a normal
/// standard deviation).
///
/// Invariants: `mad >= 0`; `mad(x + c) = mad(x)`; `mad(k x) = |k| mad(x)`; 0 when half or more of
/// the values are equal.
pub fn mad(xs: &[f64]) -> f64 {
    let m = median(xs);
    let dev: Vec<f64> = xs.iter().map(|x| (x - m).abs()).collect();
    median(&dev)
}

/// Geometric mean of positive values (the summary of ratios). `None` if empty or any value is
/// not strictly positive.
pub fn geometric_mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(mad(&[1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0]), 1.0);
        assert_eq!(mean(&[1.0, 2.0, 3.0, 6.0]), 3.0);
        assert!((stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) - 2.138).abs() < 1e-3);
        assert_eq!(quantile(&[10.0, 20.0, 30.0, 40.0, 50.0], 0.25), 20.0);
        assert!((geometric_mean(&[2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(geometric_mean(&[1.0, 0.0]), None);
    }
}
