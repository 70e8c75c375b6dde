//! Outlier classification by Tukey's fences (as criterion.rs does): values beyond 1.5 IQR of the
//! quartiles are mild outliers, beyond 3 IQR severe.

use crate::location::{quantile, sorted};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outliers {
    pub low_severe: usize,
    pub low_mild: usize,
    pub high_mild: usize,
    pub high_severe: usize,
}

impl Outliers {
    pub fn total(&self) -> usize {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }
}

/// Counts of mild and severe outliers. Invariant: `total() <= xs.len()`; a sample with all
/// values equal has none.
pub fn tukey_outliers(xs: &[f64]) -> Outliers {
    if xs.len() < 4 {
        return Outliers::default();
    }
    let s = sorted(xs);
    let (q1, q3) = (quantile(&s, 0.25), quantile(&s, 0.75));
    let iqr = q3 - q1;
    let (lo_mild, hi_mild) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
    let (lo_sev, hi_sev) = (q1 - 3.0 * iqr, q3 + 3.0 * iqr);
    let mut o = Outliers::default();
    for &x in &s {
        if x < lo_sev {
            o.low_severe += 1;
        } else if x < lo_mild {
            o.low_mild += 1;
        } else if x > hi_sev {
            o.high_severe += 1;
        } else if x > hi_mild {
            o.high_mild += 1;
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_one_high_severe() {
        let xs = [10.0, 10.5, 11.0, 10.2, 10.8, 10.1, 50.0];
        let o = tukey_outliers(&xs);
        assert_eq!(o.high_severe, 1);
        assert_eq!(o.total(), 1);
    }
}
