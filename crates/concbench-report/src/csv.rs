//! CSV: one row per result, numbers unscaled in the result's unit, for spreadsheets and pandas.

use crate::Exporter;
use concbench_core::ResultDoc;

pub struct Csv;

impl Exporter for Csv {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "id",
            "family",
            "params",
            "unit",
            "median",
            "ci95_low",
            "ci95_high",
            "min",
            "max",
            "mad",
            "mean",
            "iterations",
            "samples",
            "voluntary_switches_per_op",
            "involuntary_switches_per_op",
            "warnings",
        ])?;
        for r in &doc.results {
            let c = |k: &str| r.counters.get(k).map(|v| v.to_string()).unwrap_or_default();
            w.write_record([
                r.id.clone(),
                r.family.clone(),
                serde_json::to_string(&r.params)?,
                r.unit.clone(),
                r.summary.median.to_string(),
                r.interval().map(|c| c.0.to_string()).unwrap_or_default(),
                r.interval().map(|c| c.1.to_string()).unwrap_or_default(),
                r.summary.min.to_string(),
                r.summary.max.to_string(),
                r.summary.mad.to_string(),
                r.summary.mean.to_string(),
                r.iterations.to_string(),
                r.samples.len().to_string(),
                c("voluntary_switches_per_op"),
                c("involuntary_switches_per_op"),
                r.warnings.join(" | "),
            ])?;
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }
}
