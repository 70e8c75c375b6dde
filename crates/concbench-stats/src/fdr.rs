//! Benjamini-Hochberg: significance marks over many comparisons at once.
//!
//! `concbench compare` tests a hundred or more pairs; at p < 0.05 each, five of every hundred
//! identical pairs would be marked "different". Adjusting the p-values so that the expected share
//! of false discoveries among the marked pairs stays at the level is what a reader of a long
//! table needs.

/// Benjamini-Hochberg adjusted p-values (q-values), in the input's order.
///
/// Invariants: `q[i] >= p[i]`; `q[i] <= 1`; ordering the p-values orders the q-values the same
/// way; a single p-value is returned unchanged.
pub fn benjamini_hochberg(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| ps[i].total_cmp(&ps[j]));
    let mut q = vec![1.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        let adjusted = ps[i] * m as f64 / (rank + 1) as f64;
        running = running.min(adjusted);
        q[i] = running.clamp(ps[i].min(1.0), 1.0);
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_adjustment() {
        // p.adjust(c(0.01, 0.04, 0.03, 0.20), "BH") in R: 0.04 0.0533 0.0533 0.20
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.20]);
        let want = [0.04, 0.053_333, 0.053_333, 0.20];
        for (a, b) in q.iter().zip(want) {
            assert!((a - b).abs() < 1e-5, "{q:?}");
        }
        assert_eq!(benjamini_hochberg(&[0.3]), vec![0.3]);
        assert!(benjamini_hochberg(&[]).is_empty());
    }
}
