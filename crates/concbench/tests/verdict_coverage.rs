//! The verdicts see the variants the registry really produces. Every variant of the registry gets
//! synthetic rounds (no measuring): the exact set of claims a full run and a `--quick` run judge
//! is asserted, so a renamed result id or param that silently drops a verdict fails here; and
//! every selector in `data/published.toml` must match a registered variant.

use concbench_analysis::published::published;
use concbench_analysis::{build_entry, synthetic, verdicts};
use concbench_core::{Experiment, Params, RawMeasurement, RoundFacts, RoundRaw};
use std::collections::BTreeSet;

/// Values that differ between variants, so ratios are neither 1 nor degenerate.
fn values(index: usize) -> Vec<f64> {
    let base = 100.0 + 37.0 * index as f64;
    (0..6).map(|i| base * (1.0 + 0.01 * i as f64)).collect()
}

fn params(exp: &dyn Experiment) -> Params {
    exp.params().with("placement", exp.placement().as_str())
}

/// Six rounds of a variant, with the counters the rules read.
fn rounds(index: usize, exp: &dyn Experiment) -> Vec<RoundRaw> {
    values(index)
        .into_iter()
        .enumerate()
        .map(|(pass, v)| {
            let mut raw = RawMeasurement::from_values(exp.meta().clone(), params(exp), vec![v]);
            // Every counter a rule reads (a check without its counter is not judged).
            for counter in [
                "pool_survived",
                "server_pss_kib",
                "voluntary_switches_per_op",
                "involuntary_switches_per_op",
                "max_per_local_port",
                "switches_per_s",
                "iowait_share",
                "kernel_kib_per_unit",
                "selftest_ns",
            ] {
                raw.metrics.insert(counter.into(), vec![v]);
            }
            RoundRaw {
                raw,
                facts: RoundFacts {
                    pass,
                    ..Default::default()
                },
            }
        })
        .collect()
}

/// The claims judged on a document holding every variant that `keep` admits.
fn judged(keep: impl Fn(&dyn Experiment) -> bool) -> BTreeSet<String> {
    let results = concbench_experiments::all()
        .iter()
        .enumerate()
        .filter(|(_, exp)| keep(exp.as_ref()))
        .map(|(index, exp)| build_entry(&rounds(index, exp.as_ref())))
        .collect();
    verdicts::judge(&synthetic::doc(results))
        .into_iter()
        .map(|v| v.source)
        .collect()
}

/// Every claim judged here (the others are listed "not judged here" with their reason): all of
/// them are measurable by the full registry.
const EVERY_JUDGED_CLAIM: [&str; 30] = [
    "S0.30x",
    "S0.30x.far",
    "S0.create",
    "S0.create.pools",
    "S0.dualcore.speedup",
    "S0.heavy",
    "S0.pools.dispute",
    "S0.print",
    "S0.print.same",
    "S0.scale.linear",
    "S0.stevens.order",
    "S0.table.create_switch",
    "S0.table.memory_cpu",
    "S0.table.reliability",
    "S1.alternate",
    "S1.lock",
    "S1.two_vs_one",
    "S2.blocking",
    "S2.connections",
    "S2.fpm",
    "S2.memory",
    "S2.no_blocking",
    "S2.switch_order",
    "S3.cold",
    "S3.cross_cpu",
    "S3.switch",
    "S4.degrade",
    "S4.iowait",
    "S4.one_thread",
    "S4.one_thread_flat",
];

/// The claims whose evidence only a full run measures: the P = 100 and 1000 print batches, the
/// 256-byte lines, seventy thousand connections, the articles' PHP servers, and 20 to 100 files
/// of 50 MiB.
const FULL_RUN_ONLY: [&str; 6] = [
    "S0.heavy",
    "S0.scale.linear",
    "S2.connections",
    "S2.fpm",
    "S4.degrade",
    "S4.one_thread_flat",
];

#[test]
fn a_full_run_judges_exactly_these_claims() {
    let want: BTreeSet<String> = EVERY_JUDGED_CLAIM.iter().map(|s| s.to_string()).collect();
    assert_eq!(judged(|_| true), want);
}

#[test]
fn a_quick_run_judges_exactly_these_claims() {
    let want: BTreeSet<String> = EVERY_JUDGED_CLAIM
        .iter()
        .filter(|c| !FULL_RUN_ONLY.contains(c))
        .map(|s| s.to_string())
        .collect();
    assert_eq!(judged(|exp| exp.in_quick()), want);
}

#[test]
fn every_selector_in_the_published_rules_matches_a_registered_variant() {
    let all = concbench_experiments::all();
    let keys: Vec<(&str, Params)> = all
        .iter()
        .map(|e| (e.meta().id, params(e.as_ref())))
        .collect();
    let refs: Vec<(&str, &Params)> = keys.iter().map(|(id, p)| (*id, p)).collect();
    let broken = verdicts::unmatched_selectors(&published(), &refs);
    assert!(
        broken.is_empty(),
        "selectors matching no variant: {broken:?}"
    );
}
