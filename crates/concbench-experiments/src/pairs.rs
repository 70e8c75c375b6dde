//! Cross-CPU variants once per class of CPU pair the machine has.
//!
//! A cross-CPU result depends on which two CPUs: SMT siblings share a core, others a last-level
//! cache, others only a socket or nothing at all. The registry therefore repeats every cross-CPU
//! variant on each pair `concbench_measure::cpus::representative_pairs` picks (the closest and
//! farthest pair of each class), by wrapping it in [`OnPair`]; the harness pins it to that pair
//! and records `params.pair_class`. A machine with one class (a small VM) gets one variant, as
//! before, now labelled with its class.

use concbench_core::{
    CpuPair, Experiment, Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer,
    Support,
};
use concbench_measure::{cpus::representative_pairs, topology::Topology};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The pairs of this machine (read once per process: the registry is built many times).
/// Empty when sysfs cannot be read: cross-CPU variants then take the two highest CPUs.
pub fn live_pairs() -> &'static [CpuPair] {
    static PAIRS: OnceLock<Vec<CpuPair>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        let allowed = concbench_sys::allowed_cpus().unwrap_or_default();
        Topology::live()
            .map(|t| representative_pairs(&t, &allowed))
            .unwrap_or_default()
    })
}

/// The variants `make` builds, each cross-CPU one repeated once per pair (in place, so the run
/// order keeps a family's variants together). `make` must build the same list every call; it is
/// called again only when the list has a cross-CPU variant and there is more than one pair.
pub fn per_pair(
    make: impl Fn() -> Vec<Box<dyn Experiment>>,
    pairs: &[CpuPair],
) -> Vec<Box<dyn Experiment>> {
    let first = make();
    let crosses = |e: &dyn Experiment| e.placement() == Placement::CrossCpu;
    if pairs.is_empty() || !first.iter().any(|e| crosses(e.as_ref())) {
        return first;
    }
    let mut copies: Vec<std::vec::IntoIter<Box<dyn Experiment>>> =
        std::iter::once(first.into_iter())
            .chain((1..pairs.len()).map(|_| make().into_iter()))
            .collect();
    let mut out = Vec::new();
    while let Some(exp) = copies[0].next() {
        let others: Vec<Box<dyn Experiment>> = copies[1..]
            .iter_mut()
            .map(|c| c.next().expect("`make` builds the same list every call"))
            .collect();
        if !crosses(exp.as_ref()) {
            out.push(exp);
            continue;
        }
        out.extend(
            std::iter::once(exp)
                .chain(others)
                .zip(pairs)
                .map(|(inner, &pair)| Box::new(OnPair { inner, pair }) as Box<dyn Experiment>),
        );
    }
    out
}

/// A cross-CPU variant pinned to one named pair; everything else is the inner variant's.
pub struct OnPair {
    inner: Box<dyn Experiment>,
    pair: CpuPair,
}

impl Experiment for OnPair {
    fn meta(&self) -> &Meta {
        self.inner.meta()
    }
    fn params(&self) -> Params {
        self.inner.params()
    }
    fn placement(&self) -> Placement {
        self.inner.placement()
    }
    fn cpu_pair(&self) -> Option<CpuPair> {
        Some(self.pair)
    }
    fn in_quick(&self) -> bool {
        self.inner.in_quick()
    }
    fn paired(&self) -> bool {
        self.inner.paired()
    }
    fn build_ahead(&self, say: &mut dyn FnMut(&str)) -> anyhow::Result<()> {
        self.inner.build_ahead(say)
    }
    fn prepared_for_later(&self) -> bool {
        self.inner.prepared_for_later()
    }
    fn rounds_per_setup(&self, mode: concbench_core::RunMode) -> usize {
        self.inner.rounds_per_setup(mode)
    }
    fn supported(&self, host: &Host) -> Support {
        self.inner.supported(host)
    }
    fn plan(&self, ctx: &RunContext) -> Plan {
        self.inner.plan(ctx)
    }
    fn max_repetitions(&self, ctx: &RunContext) -> Option<usize> {
        self.inner.max_repetitions(ctx)
    }
    fn setup(&mut self, ctx: &RunContext) -> anyhow::Result<()> {
        self.inner.setup(ctx)
    }
    fn before_sample(&mut self, ctx: &RunContext) -> anyhow::Result<()> {
        self.inner.before_sample(ctx)
    }
    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> anyhow::Result<RunOutput> {
        self.inner.run(ctx, iterations, timer)
    }
    fn run_overhead(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Option<anyhow::Result<RunOutput>> {
        self.inner.run_overhead(ctx, iterations, timer)
    }
    fn overhead_method(&self) -> Option<&'static str> {
        self.inner.overhead_method()
    }
    fn info(&self) -> BTreeMap<String, String> {
        self.inner.info()
    }
    fn teardown(&mut self, ctx: &RunContext) -> anyhow::Result<()> {
        self.inner.teardown(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::PairClass;
    use concbench_measure::{recorded_params, PinMode};

    fn three_switches() -> Vec<Box<dyn Experiment>> {
        crate::switch::all()
            .into_iter()
            .filter(|e| {
                e.meta().id == "switch.pipe.process" && e.params().get_str("sched") == Some("other")
            })
            .filter(|e| e.params().get_f64("working_set_kib") == Some(0.0))
            .collect()
    }

    fn pair(cpus: [usize; 2], class: PairClass) -> CpuPair {
        CpuPair {
            cpus,
            class,
            numa_distance: Some(10),
        }
    }

    #[test]
    fn each_cross_cpu_variant_runs_once_per_pair_in_place() {
        let pairs = [
            pair([7, 3], PairClass::SmtSibling),
            pair([7, 6], PairClass::SameLlc),
            pair([7, 5], PairClass::CrossPackage),
        ];
        let v = per_pair(three_switches, &pairs);
        let shown: Vec<String> = v
            .iter()
            .map(|e| {
                let p = recorded_params(e.as_ref(), PinMode::Auto, &[0, 1]);
                format!(
                    "{} {}",
                    p.get_str("placement").unwrap(),
                    p.get_str("pair_class").unwrap_or("-")
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "same-cpu -",
                "cross-cpu smt-sibling",
                "cross-cpu same-llc",
                "cross-cpu cross-package",
                "unpinned -",
            ]
        );
        assert_eq!(v[3].cpu_pair().unwrap().cpus, [7, 5]);
        // Under --pin none the pair no longer applies, and nothing records it.
        let unpinned = recorded_params(v[1].as_ref(), PinMode::None, &[0, 1]);
        assert!(unpinned.get("pair_class").is_none());
    }

    #[test]
    fn without_pairs_the_variants_are_unchanged() {
        let v = per_pair(three_switches, &[]);
        assert_eq!(v.len(), 3);
        assert!(v.iter().all(|e| e.cpu_pair().is_none()));
    }

    /// Regression: the wrapper forwarded neither `rounds_per_setup` nor `build_ahead`, so every
    /// article server on a named pair was started (and warmed) afresh every round and built
    /// inside its first round.
    #[test]
    fn regression_a_server_on_a_pair_keeps_its_rounds_per_setup_and_builds_ahead() {
        let servers = || {
            crate::server::all()
                .into_iter()
                .filter(|e| {
                    e.meta().id == "server.keepalive"
                        && e.params().get_str("design") == Some("go-net-http")
                })
                .collect()
        };
        let v = per_pair(servers, &[pair([0, 1], PairClass::SameLlc)]);
        let inner = servers().remove(0);
        for e in &v {
            assert_eq!(e.cpu_pair().unwrap().cpus, [0, 1]);
            for mode in [
                concbench_core::RunMode::Full,
                concbench_core::RunMode::Quick,
            ] {
                assert_eq!(e.rounds_per_setup(mode), inner.rounds_per_setup(mode));
            }
            assert_eq!(e.paired(), inner.paired());
            assert_eq!(e.prepared_for_later(), inner.prepared_for_later());
        }
        assert!(v[0].rounds_per_setup(concbench_core::RunMode::Full) > 1);
    }
}
