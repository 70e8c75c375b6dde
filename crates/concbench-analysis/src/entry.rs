//! Summarising one variant's rounds into a [`ResultEntry`].
//!
//! Each round (a fresh worker) contributes one value — the median of its samples — and the
//! statistics are taken across rounds: they describe what a rerun would show, not how steady
//! one worker was. When the variant subtracts a baseline measured interleaved with it (a ring's
//! self-test, Stevens's iterative server), each round's value and baseline are kept, and the
//! result is always their difference (`quantity: difference`): the id and params fix what a
//! result measures, in every run. A difference that cannot be told from zero stays the
//! difference, bounded at zero and said so, and no check decides on it — also one below zero
//! over its whole interval, whose baseline costs more than what it is subtracted from.

use crate::warnings;
use concbench_core::{
    usable_rounds, Mode, Overhead, Quantity, RawMeasurement, ResultEntry, Round, RoundRaw, Spread,
    Summary,
};
use concbench_stats::{
    against_zero, bound_at_zero, mad, median, modes, summarize, AgainstZero, Stats,
};
use std::collections::BTreeMap;

/// A result with an id, a unit and params and nothing measured: what a check's selectors are
/// matched against when a run plans which variants each check uses (before any round exists).
pub fn blank(id: &str, unit: &str, params: concbench_core::Params) -> ResultEntry {
    ResultEntry {
        id: id.into(),
        family: id.split('.').next().unwrap_or(id).into(),
        title: String::new(),
        op: String::new(),
        unit: unit.into(),
        params,
        cpus: vec![],
        iterations: 0,
        summary: summary(&summarize(&[0.0])),
        samples: vec![],
        rounds: vec![],
        spread: None,
        modes: Vec::new(),
        counters: Default::default(),
        overhead: None,
        quantity: None,
        warnings: vec![],
        info: Default::default(),
    }
}

/// Statistics, counters and warnings for one measured variant from its rounds (at least one).
/// Rounds marked excluded are kept in the entry and left out of the statistics when enough clean
/// ones remain ([`usable_rounds`]).
pub fn build_entry(rounds: &[RoundRaw]) -> ResultEntry {
    assert!(!rounds.is_empty(), "an entry needs at least one round");
    let first = &rounds[0].raw;
    let kept: Vec<Round> = rounds.iter().map(round).collect();
    let usable = usable_rounds(&kept);
    // The experiment subtracts a baseline (the harness measures one in every round when it
    // does): a property of the id and params, never of how this run's rounds came out.
    let quantity = if rounds.iter().any(|r| r.raw.overhead.is_some()) {
        Quantity::Difference
    } else {
        Quantity::Measured
    };
    let values: Vec<f64> = match quantity {
        Quantity::Difference => usable.iter().map(|r| r.net()).collect(),
        Quantity::Measured => usable.iter().map(|r| r.value).collect(),
    };
    let stats = summarize(&values);
    let against = against_zero_of(&stats);
    // A difference not above zero is bounded there: a part of a time is never negative. One
    // wholly below zero (Stevens's pooled server costing less CPU per connection than the
    // iterative one it is measured beyond) stays a result: its raw figure is measured, and the
    // checks that read it decide; no check decides on its difference.
    let summary = match (quantity, against) {
        (Quantity::Difference, AgainstZero::Reaches | AgainstZero::Below) => {
            bounded_summary(&stats)
        }
        _ => summary(&stats),
    };
    let distinguishable = against == AgainstZero::Above;
    let overhead = (quantity == Quantity::Difference)
        .then(|| overhead(rounds, &usable, &summary, distinguishable));
    // The samples as measured: a difference is a statistic of rounds (value minus baseline),
    // and one sample minus its paired baseline sample can be negative while every round's is not.
    let samples = rounds.iter().flat_map(|r| r.raw.values.clone()).collect();
    let mut entry = ResultEntry {
        id: first.meta.id.to_string(),
        family: first.meta.family.to_string(),
        title: first.meta.title.to_string(),
        op: first.meta.op.to_string(),
        unit: first.meta.unit.to_string(),
        params: first.params.clone(),
        cpus: first.cpus.clone(),
        iterations: rounds.iter().map(|r| r.raw.iterations).min().unwrap_or(0),
        summary,
        samples,
        counters: median_counters(&usable),
        spread: Some(spread(&values, &usable)),
        modes: result_modes(&values, summary.median),
        rounds: kept,
        overhead,
        quantity: Some(quantity),
        warnings: Vec::new(),
        info: first.info.clone(),
    };
    for r in rounds {
        for w in &r.raw.warnings {
            if !entry.warnings.contains(w) {
                entry.warnings.push(w.clone());
            }
        }
    }
    let mut more = warnings::for_entry(rounds, &entry, &stats);
    if quantity == Quantity::Difference && against != AgainstZero::Above {
        more.insert(0, not_distinguishable_warning(&entry, &stats, against));
    }
    for w in more {
        if !entry.warnings.contains(&w) {
            entry.warnings.push(w);
        }
    }
    entry
}

/// Where the values lie against zero: their 95% interval, or without one every value (a
/// difference is told from zero only when every round's is positive).
fn against_zero_of(stats: &Stats) -> AgainstZero {
    let (lo, hi) = stats.ci95.unwrap_or((stats.min, stats.max));
    against_zero(lo, hi)
}

/// The summary of a difference whose interval reaches zero: its median and interval bounded
/// at zero (what the quantity can be); `min`, `max` and `mean` stay over the rounds'
/// differences.
fn bounded_summary(stats: &Stats) -> Summary {
    let (median, ci) = bound_at_zero(stats.median, stats.ci95);
    Summary {
        median,
        ci95: ci.map(|(lo, hi)| [lo, hi]),
        ..summary(stats)
    }
}

/// "not distinguishable from zero: ..." for a difference whose interval reaches zero, or
/// "below zero: ..." for one wholly below it.
fn not_distinguishable_warning(e: &ResultEntry, stats: &Stats, against: AgainstZero) -> String {
    let interval = match stats.ci95 {
        Some((lo, hi)) => format!(
            "its 95% interval over the rounds' differences reaches from {} to {}",
            concbench_core::human::value(lo, &e.unit),
            concbench_core::human::value(hi, &e.unit)
        ),
        None if against == AgainstZero::Below => "every round's difference is below zero".into(),
        None => "not every round's difference is positive".to_string(),
    };
    if against == AgainstZero::Below {
        return format!(
            "below zero: this result is the difference from its baseline, and {interval}: the \
             baseline costs more here than what it is subtracted from, so the difference says \
             nothing this subtraction assumes; shown bounded at zero, no check decides on it (the \
             raw figure beside it is measured as usual)"
        );
    }
    format!(
        "not distinguishable from zero: this result is the difference from its baseline, and \
         {interval}; shown bounded at zero, and no check decides on it (more rounds, --rounds 20, \
         may tell it from zero)"
    )
}

/// The document's summary of a set of values.
pub fn summary(stats: &Stats) -> Summary {
    Summary {
        median: stats.median,
        ci95: stats.ci95.map(|(lo, hi)| [lo, hi]),
        min: stats.min,
        max: stats.max,
        mad: stats.mad,
        mean: stats.mean,
    }
}

/// Each sample's value; net of its paired baseline sample when the result is a difference.
fn sample_values(raw: &RawMeasurement, net: bool) -> Vec<f64> {
    match (&raw.overhead, net) {
        (Some((_, over)), true) if over.len() == raw.values.len() => {
            raw.values.iter().zip(over).map(|(v, o)| v - o).collect()
        }
        _ => raw.values.clone(),
    }
}

/// One round summarised: its median, its baseline's, its counters.
fn round(r: &RoundRaw) -> Round {
    let raw = &r.raw;
    let value = median(&raw.values);
    let baseline = raw
        .overhead
        .as_ref()
        .filter(|(_, o)| o.len() == raw.values.len() && !o.is_empty())
        .map(|(_, o)| median(o));
    let spread_of = if baseline.is_some() {
        sample_values(raw, true)
    } else {
        raw.values.clone()
    };
    let centre = median(&spread_of);
    Round {
        pass: r.facts.pass,
        value,
        baseline,
        samples: raw.values.len(),
        iterations: raw.iterations,
        within_spread: if centre != 0.0 {
            mad(&spread_of) / centre.abs()
        } else {
            0.0
        },
        counters: round_counters(raw),
        interference: r.facts.interference,
        steal: r.facts.steal,
        wall_s: r.facts.wall_s,
        prepared_s: raw.prepared_s,
        excluded: r.facts.excluded.clone(),
        warmup: raw.warmup.clone(),
    }
}

/// Median over a round's samples of each usage counter and experiment metric, and the
/// throughput of experiments that move data (`bytes_per_op`).
fn round_counters(raw: &RawMeasurement) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    if let Some(first) = raw.usage_per_op.first() {
        for (i, (name, _)) in first.as_counters().iter().enumerate() {
            let column: Vec<f64> = raw
                .usage_per_op
                .iter()
                .map(|u| u.as_counters()[i].1)
                .collect();
            out.insert(name.to_string(), median(&column));
        }
    }
    for (name, values) in &raw.metrics {
        if !values.is_empty() {
            out.insert(name.clone(), median(values));
        }
    }
    if let Some(t) = throughput_mib_s(raw) {
        out.insert("throughput_mib_s".to_string(), t);
    }
    out
}

/// MiB/s per sample from `bytes_per_op` and the sample's time per operation; the median.
fn throughput_mib_s(raw: &RawMeasurement) -> Option<f64> {
    let bytes = raw.metrics.get("bytes_per_op")?;
    let per_sample: Vec<f64> = sample_values(raw, true)
        .iter()
        .zip(bytes)
        .filter_map(|(&v, &b)| {
            let seconds = crate::published::convert(v, raw.meta.unit, "s")?;
            (seconds > 0.0).then(|| b / seconds / (1024.0 * 1024.0))
        })
        .collect();
    (!per_sample.is_empty()).then(|| median(&per_sample))
}

/// Each counter's median over the rounds that have it.
fn median_counters(rounds: &[&Round]) -> BTreeMap<String, f64> {
    let mut columns: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in rounds {
        for (k, v) in &r.counters {
            columns.entry(k).or_default().push(*v);
        }
    }
    columns
        .into_iter()
        .map(|(k, v)| (k.to_string(), median(&v)))
        .collect()
}

fn spread(values: &[f64], rounds: &[&Round]) -> Spread {
    let m = median(values);
    let within: Vec<f64> = rounds.iter().map(|r| r.within_spread).collect();
    Spread {
        between_rounds: if m != 0.0 { mad(values) / m.abs() } else { 0.0 },
        within_round: median(&within),
    }
}

fn result_modes(values: &[f64], centre: f64) -> Vec<Mode> {
    let found = modes(values);
    if found.len() < 2 {
        return Vec::new();
    }
    as_modes(&found, centre)
}

/// The statistics' modes as a result's, each saying whether it holds `centre` (the median the
/// result or check reports): shared by a run's results and the checks pooled over runs.
pub(crate) fn as_modes(found: &[concbench_stats::Mode], centre: f64) -> Vec<Mode> {
    found
        .iter()
        .map(|m| Mode {
            median: m.median,
            low: m.low,
            high: m.high,
            share: m.share,
            holds_median: m.low <= centre && centre <= m.high,
        })
        .collect()
}

/// The subtracted baseline: its median over rounds, the raw figure, and the difference with its
/// interval (the summary's, bounded at zero as it is).
fn overhead(
    rounds: &[RoundRaw],
    usable: &[&Round],
    difference: &Summary,
    distinguishable: bool,
) -> Overhead {
    let method = rounds
        .iter()
        .find_map(|r| r.raw.overhead.as_ref().map(|(m, _)| m.clone()))
        .unwrap_or_default();
    let baselines: Vec<f64> = usable.iter().filter_map(|r| r.baseline).collect();
    let raws: Vec<f64> = usable.iter().map(|r| r.value).collect();
    Overhead {
        method,
        median: if baselines.is_empty() {
            0.0
        } else {
            median(&baselines)
        },
        raw_median: median(&raws),
        samples: rounds
            .iter()
            .flat_map(|r| r.raw.overhead.iter().flat_map(|(_, o)| o.iter().copied()))
            .collect(),
        distinguishable,
        difference: Some(difference.median),
        difference_ci95: difference.ci95,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Meta, Params, RoundFacts, Usage};

    fn raw(values: Vec<f64>, overhead: Option<Vec<f64>>) -> RawMeasurement {
        let mut r = RawMeasurement::from_values(
            Meta {
                id: "t.x",
                family: "t",
                title: "test",
                op: "op",
                unit: "ns",
                expected_switches_per_op: None,
            },
            Params::new().with("placement", "same-cpu"),
            values,
        );
        r.cpus = vec![1];
        r.usage_per_op = vec![
            Usage {
                voluntary_switches: 1.0,
                ..Default::default()
            };
            r.values.len()
        ];
        r.overhead = overhead.map(|o| ("self-test".to_string(), o));
        r
    }

    fn rounds(per_round: &[(Vec<f64>, Option<Vec<f64>>)]) -> Vec<RoundRaw> {
        per_round
            .iter()
            .enumerate()
            .map(|(pass, (v, o))| RoundRaw {
                raw: raw(v.clone(), o.clone()),
                facts: RoundFacts {
                    pass,
                    ..Default::default()
                },
            })
            .collect()
    }

    #[test]
    fn statistics_are_across_rounds_not_samples() {
        // Six rounds whose own samples are tight but whose medians differ.
        let r = rounds(&[
            (vec![10.0, 10.1, 9.9], None),
            (vec![12.0, 12.1, 11.9], None),
            (vec![11.0; 3], None),
            (vec![13.0; 3], None),
            (vec![9.0; 3], None),
            (vec![14.0; 3], None),
        ]);
        let e = build_entry(&r);
        assert_eq!(e.rounds.len(), 6);
        assert_eq!(e.summary.median, 11.5);
        assert_eq!(e.summary.min, 9.0);
        let [lo, hi] = e.summary.ci95.expect("six rounds give an interval");
        assert!(lo < 11.5 && hi > 11.5 && lo >= 9.0 && hi <= 14.0);
        assert_eq!(e.samples.len(), 18);
        let s = e.spread.unwrap();
        assert!(s.between_rounds > s.within_round, "{s:?}");
        assert_eq!(e.counters["voluntary_switches_per_op"], 1.0);
    }

    #[test]
    fn fewer_than_six_rounds_give_no_interval() {
        let e = build_entry(&rounds(&[(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], None)]));
        assert_eq!(
            e.summary.ci95, None,
            "seven samples in one round are one round"
        );
        assert_eq!(e.summary.median, 4.0);
    }

    #[test]
    fn a_baseline_is_subtracted_and_the_result_is_the_difference() {
        let clear = build_entry(&rounds(&[
            (vec![10.0, 12.0], Some(vec![4.0, 5.0])),
            (vec![11.0, 11.0], Some(vec![4.0, 4.0])),
        ]));
        let o = clear.overhead.as_ref().unwrap();
        assert!(o.distinguishable);
        assert_eq!(clear.quantity, Some(Quantity::Difference));
        assert_eq!(clear.rounds[0].net(), 11.0 - 4.5);
        assert_eq!(clear.summary.median, (6.5 + 7.0) / 2.0);
        assert_eq!(
            clear.samples,
            vec![10.0, 12.0, 11.0, 11.0],
            "samples as measured"
        );
    }

    #[test]
    fn a_difference_that_cannot_be_told_from_zero_stays_a_difference() {
        // switch.pipe.process working_set_kib=4096 reported the difference (2.28 us) in one run
        // and the raw figure (40.8 us) in the next, when one round's difference was not
        // positive: `compare` then read "+1685%" between two runs of one build.
        let values = [40.0, 41.0, 40.5, 40.8, 41.2, 40.9];
        let with = |baselines: [f64; 6]| {
            let per_round: Vec<(Vec<f64>, Option<Vec<f64>>)> = values
                .iter()
                .zip(baselines)
                .map(|(v, b)| (vec![*v], Some(vec![b])))
                .collect();
            build_entry(&rounds(&per_round))
        };
        let clear = with([38.0, 38.5, 38.0, 38.2, 39.0, 38.7]);
        // Two rounds whose baseline read above the hand-over: the interval reaches zero.
        let unclear = with([38.0, 38.5, 41.5, 38.2, 41.3, 38.7]);
        for e in [&clear, &unclear] {
            assert_eq!(e.quantity(), Quantity::Difference);
            assert!(
                e.summary.median < 3.0,
                "the difference, never the raw 40 us: {e:?}"
            );
        }
        assert!(clear.distinguishable());
        assert!(!unclear.distinguishable());
        // Its interval reaches below zero: shown bounded at zero, and said.
        let [lo, hi] = unclear.summary.ci95.unwrap();
        assert_eq!(lo, 0.0);
        assert!(hi > 2.0);
        assert!(unclear.warnings[0].starts_with("not distinguishable from zero"));
        let o = unclear.overhead.as_ref().unwrap();
        assert_eq!(o.difference_ci95, unclear.summary.ci95);
        assert!((o.raw_median - 40.85).abs() < 1e-9);
    }

    #[test]
    fn regression_stevens_prefork_minus_the_iterative_server_is_never_a_negative_time() {
        // Stevens's prefork minus the iterative server came out at -61 us.
        let unclear = build_entry(&rounds(&[
            (vec![100.0], Some(vec![90.0])),
            (vec![100.0], Some(vec![110.0])),
        ]));
        assert!(!unclear.overhead.as_ref().unwrap().distinguishable);
        assert_eq!(
            unclear.summary.median, 0.0,
            "bounded at zero, never negative"
        );
        assert!(unclear.samples.iter().all(|s| *s > 0.0));
        // Below zero in every round (a pooled server costing less CPU per connection than the
        // iterative one): still a result — its raw figure is measured, and checks reading it
        // decide — with the difference bounded at zero, decided on by nothing, and said.
        let below = build_entry(&rounds(&[
            (vec![100.0], Some(vec![150.0])),
            (vec![100.0], Some(vec![160.0])),
        ]));
        assert_eq!(below.summary.median, 0.0);
        assert!(!below.distinguishable());
        assert!(
            below.warnings[0].starts_with("below zero: "),
            "{:?}",
            below.warnings
        );
        assert_eq!(below.overhead.as_ref().unwrap().raw_median, 100.0);
        assert!(crate::validate(below, false, &Default::default()).is_ok());
    }

    #[test]
    fn excluded_rounds_stay_in_the_entry_but_out_of_the_statistics() {
        let mut r = rounds(&[
            (vec![10.0], None),
            (vec![10.0], None),
            (vec![10.0], None),
            (vec![10.0], None),
            (vec![10.0], None),
            (vec![10.0], None),
            (vec![50.0], None),
        ]);
        r[6].facts.excluded = Some("taken under interference".into());
        let e = build_entry(&r);
        assert_eq!(e.summary.max, 10.0);
        assert_eq!(e.rounds.len(), 7);
        assert!(e.warnings.iter().any(|w| w.contains("left out")));
    }

    #[test]
    fn with_too_few_clean_rounds_the_excluded_ones_are_kept_and_said() {
        // A busy machine: leaving out all but one round would leave no evidence at all.
        let mut r = rounds(&[(vec![10.0], None), (vec![11.0], None), (vec![12.0], None)]);
        r[1].facts.excluded = Some("taken under interference".into());
        r[2].facts.excluded = Some("taken under interference".into());
        let e = build_entry(&r);
        assert_eq!(e.summary.median, 11.0);
        assert!(e.warnings.iter().any(|w| w.contains("carries their noise")));
    }

    #[test]
    fn two_far_apart_groups_of_rounds_are_reported_as_modes() {
        let r = rounds(&[
            (vec![2.6], None),
            (vec![4.2], None),
            (vec![4.0], None),
            (vec![116.0], None),
            (vec![63.0], None),
        ]);
        let e = build_entry(&r);
        assert_eq!(e.modes.len(), 2);
        assert!(e.modes[0].holds_median && !e.modes[1].holds_median);
    }
}
