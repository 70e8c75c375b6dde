//! Summarising one variant's raw samples into a [`ResultEntry`].

use crate::warnings;
use concbench_core::{Overhead, RawMeasurement, ResultEntry, Summary};
use concbench_stats::{median, summarize, Stats};
use std::collections::BTreeMap;

/// Statistics, counters and warnings for one measured variant.
///
/// When the method has a measured overhead, each sample is paired with the overhead sample taken
/// right after it and the difference is what gets summarised (`overhead.raw_median` keeps the
/// figure before subtraction).
pub fn build_entry(raw: &RawMeasurement) -> ResultEntry {
    let (values, overhead) = match &raw.overhead {
        Some((method, over)) if over.len() == raw.values.len() && !over.is_empty() => {
            let net: Vec<f64> = raw.values.iter().zip(over).map(|(v, o)| v - o).collect();
            let overhead = Overhead {
                method: method.clone(),
                median: median(over),
                raw_median: median(&raw.values),
                samples: over.clone(),
            };
            (net, Some(overhead))
        }
        _ => (raw.values.clone(), None),
    };
    let stats = summarize(&values);
    let summary = summary(&stats);
    let mut counters = counters(raw);
    if let Some(t) = throughput_mib_s(raw, &values) {
        counters.insert("throughput_mib_s".to_string(), t);
    }
    let mut entry = ResultEntry {
        id: raw.meta.id.to_string(),
        family: raw.meta.family.to_string(),
        title: raw.meta.title.to_string(),
        op: raw.meta.op.to_string(),
        unit: raw.meta.unit.to_string(),
        params: raw.params.clone(),
        cpus: raw.cpus.clone(),
        iterations: raw.iterations,
        summary,
        samples: values,
        counters,
        overhead,
        warnings: raw.warnings.clone(),
        info: raw.info.clone(),
    };
    for w in warnings::for_measurement(raw, &entry, &stats) {
        if !entry.warnings.contains(&w) {
            entry.warnings.push(w);
        }
    }
    entry
}

/// The document's summary of a sample set's statistics.
pub fn summary(stats: &Stats) -> Summary {
    Summary {
        median: stats.median,
        ci95: Some([stats.ci95.0, stats.ci95.1]),
        min: stats.min,
        max: stats.max,
        mad: stats.mad,
        mean: stats.mean,
    }
}

/// Median over repetitions of each per-operation usage counter and each experiment metric.
fn counters(raw: &RawMeasurement) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    if !raw.usage_per_op.is_empty() {
        let per_counter: Vec<Vec<(&'static str, f64)>> = raw
            .usage_per_op
            .iter()
            .map(|u| u.as_counters().to_vec())
            .collect();
        for (i, (name, _)) in per_counter[0].iter().enumerate() {
            let column: Vec<f64> = per_counter.iter().map(|row| row[i].1).collect();
            out.insert(name.to_string(), median(&column));
        }
    }
    for (name, values) in &raw.metrics {
        if !values.is_empty() {
            out.insert(name.clone(), median(values));
        }
    }
    out
}

/// Experiments that move data report `bytes_per_op` (a metric per sample); the throughput is
/// derived here, sample by sample from the net time per operation, and its median kept.
fn throughput_mib_s(raw: &RawMeasurement, values: &[f64]) -> Option<f64> {
    let bytes = raw.metrics.get("bytes_per_op")?;
    let per_sample: Vec<f64> = values
        .iter()
        .zip(bytes)
        .filter_map(|(&v, &b)| {
            let seconds = crate::published::convert(v, raw.meta.unit, "s")?;
            (seconds > 0.0).then(|| b / seconds / (1024.0 * 1024.0))
        })
        .collect();
    (!per_sample.is_empty()).then(|| median(&per_sample))
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Meta, Params, Usage};

    fn raw(values: Vec<f64>, overhead: Option<Vec<f64>>) -> RawMeasurement {
        RawMeasurement {
            meta: Meta {
                id: "t.x",
                family: "t",
                title: "test",
                op: "op",
                unit: "ns",
                expected_switches_per_op: None,
            },
            params: Params::new().with("placement", "same-cpu"),
            cpus: vec![1],
            iterations: 1000,
            sample_ns: vec![20e6; values.len()],
            usage_per_op: vec![
                Usage {
                    voluntary_switches: 1.0,
                    ..Default::default()
                };
                values.len()
            ],
            metrics: [("m".to_string(), vec![1.0, 3.0, 2.0])]
                .into_iter()
                .collect(),
            overhead: overhead.map(|o| ("self-test".to_string(), o)),
            warnings: vec![],
            target_sample_ns: 10e6,
            info: Default::default(),
            values,
        }
    }

    #[test]
    fn summarises_and_collects_counters() {
        let e = build_entry(&raw(vec![10.0, 12.0, 11.0, 13.0, 9.0], None));
        assert_eq!(e.summary.median, 11.0);
        assert_eq!(e.summary.min, 9.0);
        assert_eq!(e.counters["voluntary_switches_per_op"], 1.0);
        assert_eq!(e.counters["m"], 2.0);
        assert!(e.overhead.is_none());
    }

    #[test]
    fn throughput_is_derived_from_bytes_per_op() {
        let mut r = raw(vec![1e6, 2e6, 1e6], None);
        r.metrics = [("bytes_per_op".to_string(), vec![1048576.0; 3])]
            .into_iter()
            .collect();
        // 1 MiB per millisecond = 1000 MiB/s (median over samples 1000, 500, 1000).
        let e = build_entry(&r);
        assert_eq!(e.counters["throughput_mib_s"], 1000.0);
        assert!(!build_entry(&raw(vec![1.0], None))
            .counters
            .contains_key("throughput_mib_s"));
    }

    #[test]
    fn subtracts_paired_overhead() {
        let e = build_entry(&raw(vec![10.0, 12.0, 11.0], Some(vec![4.0, 5.0, 4.0])));
        assert_eq!(e.samples, vec![6.0, 7.0, 7.0]);
        assert_eq!(e.summary.median, 7.0);
        let o = e.overhead.unwrap();
        assert_eq!(o.raw_median, 11.0);
        assert_eq!(o.median, 4.0);
    }
}
