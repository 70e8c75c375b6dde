//! Finding results and comparing two of them, for the judges.

use concbench_core::{ResultDoc, ResultEntry};
use concbench_stats::{bootstrap_ratio_ci, mann_whitney_p, DEFAULT_RESAMPLES, DEFAULT_SEED};
use serde_json::Value;

/// The first result with `id` whose params contain every `(key, value)` given.
pub fn find<'a>(doc: &'a ResultDoc, id: &str, params: &[(&str, Value)]) -> Option<&'a ResultEntry> {
    doc.results
        .iter()
        .find(|e| e.id == id && params.iter().all(|(k, v)| e.params.get(k) == Some(v)))
}

/// `b` relative to `a`: the ratio of medians, its bootstrap 95% interval and the Mann-Whitney
/// p-value of the difference.
#[derive(Debug, Clone, Copy)]
pub struct Comparison {
    pub ratio: f64,
    pub ci: (f64, f64),
    pub p_value: f64,
}

impl Comparison {
    /// Significant at 5% and the interval excludes 1.
    pub fn differs(&self) -> bool {
        self.p_value < 0.05 && (self.ci.0 > 1.0 || self.ci.1 < 1.0)
    }

    /// "1.23x (95% CI 1.10-1.40)", with ", not a significant difference" inside the parentheses
    /// when it is not one (so the phrase can sit mid-sentence: "costs 1.01x (...) a thread").
    pub fn describe(&self) -> String {
        format!(
            "{:.2}x (95% CI {:.2}-{:.2}{})",
            self.ratio,
            self.ci.0,
            self.ci.1,
            if self.differs() {
                ""
            } else {
                ", not a significant difference"
            }
        )
    }
}

/// Fewer samples than this on either side give no verdict: a rank test on two or three values
/// cannot be significant, and "not significant" would read as a refutation.
pub const MIN_SAMPLES: usize = 3;

/// Compare `b` to `a` (ratio b/a). `None` when a median is zero or a side has too few samples.
pub fn compare(a: &ResultEntry, b: &ResultEntry) -> Option<Comparison> {
    if a.summary.median == 0.0 || a.samples.len() < MIN_SAMPLES || b.samples.len() < MIN_SAMPLES {
        return None;
    }
    let ci = bootstrap_ratio_ci(
        &a.samples,
        &b.samples,
        DEFAULT_RESAMPLES,
        0.95,
        DEFAULT_SEED,
    )?;
    Some(Comparison {
        ratio: b.summary.median / a.summary.median,
        ci,
        p_value: mann_whitney_p(&a.samples, &b.samples),
    })
}
