//! `anatomy.handover`: the pipe hand-over of `switch.pipe.*`, watched by the kernel and the CPU.
//!
//! The same ping-pong (a 1-byte token through two pipes, partner a thread or a process), with
//! the scheduler's tracepoints recorded on the variant's CPUs — switches per operation counted
//! by the kernel for the two measured tasks only, and the wake-up latency of each hand-over
//! (`sched_wakeup` of a task to the `sched_switch` that runs it) as a distribution — and the
//! hardware counters (cycles, instructions, LLC, dTLB and iTLB misses per operation) when the
//! machine has a PMU. Recording costs time, so this result's own median is not one of the
//! anatomy's layers (those come from `switch.pipe.*`, measured without it).
//!
//! Whatever is unavailable is said once in the result's `info` (`hw_counters`,
//! `sched_tracepoints`) and has no metric at all, never a zero; with neither available the
//! variant is skipped with both reasons.

use super::{PartnerKind, FAMILY};
use crate::support::handover::{pipe_pair, PipeEnd};
use crate::switch::pingpong::{PingPong, ThreadPartner};
use crate::switch::pipe_process::ProcessPartner;
use crate::switch::sched::Sched;
use crate::switch::setting::Setting;
use anyhow::Result;
use concbench_core::{
    Experiment, Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Support,
};
use concbench_measure::perf::hardware::{per_op, HardwareCounters};
use concbench_measure::perf::sched::{summarize, SchedTracer};
use std::collections::BTreeMap;

pub const ID: &str = "anatomy.handover";
/// `info` keys: what became of each kind of evidence ("measured", or why not).
pub const HW_COUNTERS: &str = "hw_counters";
pub const SCHED_TRACEPOINTS: &str = "sched_tracepoints";
/// Metrics.
pub const SCHED_SWITCHES_PER_OP: &str = "sched_switches_per_op";
pub const WAKEUPS_PER_OP: &str = "sched_wakeups_per_op";
/// Wake-up latency quantiles, ns: `wakeup_p50_ns` ...
pub const WAKEUP_QUANTILES: [(&str, f64); 4] = [
    ("wakeup_p50_ns", 0.5),
    ("wakeup_p90_ns", 0.9),
    ("wakeup_p99_ns", 0.99),
    ("wakeup_max_ns", 1.0),
];
const MEASURED: &str = "measured";

const META: Meta = Meta {
    id: ID,
    family: FAMILY,
    title: "Pipe hand-over seen by the scheduler's tracepoints and the hardware counters",
    op: "one one-way hand-over (write 1 byte, the other side wakes and reads it), recorded",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

/// Hand-overs per sample: the records of a sample (two per hand-over) must fit the rings. A
/// wake-up of an idle CPU can take hundreds of microseconds on a VM: `--quick` takes fewer.
const OPS: u64 = 2000;
const QUICK_OPS: u64 = 500;
const SMOKE_OPS: u64 = 50;

pub struct Evidence {
    partner: PartnerKind,
    placement: Placement,
    inner: Box<dyn Experiment>,
    tracer: Option<SchedTracer>,
    counters: Option<HardwareCounters>,
    status: BTreeMap<String, String>,
    pids: Vec<i32>,
}

impl Evidence {
    fn new(partner: PartnerKind, placement: Placement) -> Self {
        let setting = Setting {
            placement,
            sched: Sched::Other,
            working_set_kib: 0,
            in_quick: true,
        };
        let inner: Box<dyn Experiment> = match partner {
            PartnerKind::Thread => Box::new(PingPong::<PipeEnd, ThreadPartner>::new(
                &META, pipe_pair, setting,
            )),
            PartnerKind::Process => Box::new(PingPong::<PipeEnd, ProcessPartner>::new(
                &META, pipe_pair, setting,
            )),
        };
        Self {
            partner,
            placement,
            inner,
            tracer: None,
            counters: None,
            status: BTreeMap::new(),
            pids: Vec::new(),
        }
    }

    /// Record `result`'s fate under `key` and keep the instrument when it opened.
    fn keep<T>(
        &mut self,
        key: &str,
        result: Result<T, concbench_measure::perf::Unavailable>,
    ) -> Option<T> {
        let (status, kept) = match result {
            Ok(t) => (MEASURED.to_string(), Some(t)),
            Err(why) => (why.0, None),
        };
        self.status.insert(key.to_string(), status);
        kept
    }
}

/// The measured pair's task ids: this process's threads (the harness thread, a thread partner)
/// and the processes the harness thread forked (a process partner).
fn pair_tasks() -> Vec<i32> {
    let mut ids: Vec<i32> = std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let children = std::fs::read_to_string("/proc/thread-self/children").unwrap_or_default();
    ids.extend(
        children
            .split_whitespace()
            .filter_map(|c| c.parse::<i32>().ok()),
    );
    ids
}

impl Experiment for Evidence {
    /// The anatomy's layers are differences with its other variants, pass by pass.
    fn paired(&self) -> bool {
        true
    }

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new().with(super::PARTNER, self.partner.as_str())
    }

    fn placement(&self) -> Placement {
        self.placement
    }

    /// Skipped only when neither kind of evidence can be had (probed on one allowed CPU).
    fn supported(&self, host: &Host) -> Support {
        let Some(&cpu) = host.cpus_allowed.last() else {
            return Support::No("no CPU to watch".into());
        };
        match (HardwareCounters::open(&[cpu]), SchedTracer::open(&[cpu])) {
            (Err(hw), Err(sched)) => Support::No(format!("{hw}; {sched}")),
            _ => Support::Yes,
        }
    }

    fn plan(&self, ctx: &RunContext) -> Plan {
        Plan::Fixed(if ctx.smoke {
            SMOKE_OPS
        } else if ctx.quick {
            QUICK_OPS
        } else {
            OPS
        })
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        self.inner.setup(ctx)?;
        self.pids = pair_tasks();
        self.tracer = self.keep(SCHED_TRACEPOINTS, SchedTracer::open(&ctx.cpus));
        self.counters = self.keep(HW_COUNTERS, HardwareCounters::open(&ctx.cpus));
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        if let Some(t) = &mut self.tracer {
            t.start()?;
        }
        if let Some(c) = &mut self.counters {
            c.start()?;
        }
        timer.restart();
        let mut out = self.inner.run(ctx, iterations, timer)?;
        timer.stop();
        if let Some(c) = &mut self.counters {
            for (name, readings) in c.stop()? {
                if let Some(v) = per_op(&readings, iterations) {
                    out.metrics.push((name.to_string(), v));
                }
            }
        }
        if let Some(t) = &mut self.tracer {
            let (events, lost) = t.stop()?;
            let s = summarize(&events, &self.pids);
            let n = iterations as f64;
            out.metrics
                .push((SCHED_SWITCHES_PER_OP.into(), s.switches as f64 / n));
            out.metrics.push((
                WAKEUPS_PER_OP.into(),
                s.wakeup_latencies_ns.len() as f64 / n,
            ));
            let mut latencies: Vec<f64> = s.wakeup_latencies_ns.iter().map(|&l| l as f64).collect();
            latencies.sort_by(f64::total_cmp);
            if !latencies.is_empty() {
                for (name, q) in WAKEUP_QUANTILES {
                    out.metrics
                        .push((name.into(), concbench_stats::quantile(&latencies, q)));
                }
            }
            if let Some(why) = s.wakeups_unseen() {
                out.warnings.push(why);
            }
            if lost > 0 {
                out.warnings.push(format!(
                    "the kernel dropped {lost} scheduler records (ring buffer full): switch counts \
                     are lower bounds"
                ));
            }
        }
        Ok(out)
    }

    fn info(&self) -> BTreeMap<String, String> {
        let mut info = self.status.clone();
        if let Some(c) = self.counters.as_ref().filter(|c| !c.missing.is_empty()) {
            info.insert(
                "hw_counters_missing".into(),
                format!("this CPU does not count {}", c.missing.join(", ")),
            );
        }
        info
    }

    fn teardown(&mut self, ctx: &RunContext) -> Result<()> {
        self.tracer = None;
        self.counters = None;
        self.inner.teardown(ctx)
    }
}

pub fn variants() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    for placement in [Placement::SameCpu, Placement::CrossCpu] {
        for partner in [PartnerKind::Thread, PartnerKind::Process] {
            v.push(Box::new(Evidence::new(partner, placement)));
        }
    }
    v
}
