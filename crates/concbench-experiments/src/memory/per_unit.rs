//! The shared method of the `memory` family: create K idle units, read what the process tree
//! holds before and while they exist, divide the increase by K.
//!
//! Every sample runs in a fresh sandbox (a forked copy of the worker), so nothing an earlier
//! sample freed — glibc's cache of thread stacks, heap pages kept after `free` — can be reused
//! and hide the cost. The tree summed is the worker, the sandbox and every process the units
//! add: the worker is included because the sandbox shares its pages copy-on-write, and PSS
//! would otherwise shift the worker's share of them into the result.

use crate::support::{capacity, sandbox};
use anyhow::Result;
use concbench_core::{
    Experiment, Host, Meta, Params, Plan, RunContext, RunOutput, SampleTimer, Support,
};
use concbench_measure::memory::{kernel_task_memory_kib, own_pid, tree_footprint};

/// A kind of unit whose idle footprint is measured.
pub trait Units: Send {
    fn meta(&self) -> &'static Meta;
    /// Params of this kind (stack sizes); `units` is added by [`PerUnit`].
    fn params(&self) -> Params;
    /// Whether each unit is a kernel task (process or thread): limited by RLIMIT_NPROC and
    /// threads-max, and holding kernel memory (stack, page tables) that PSS cannot see.
    fn is_task(&self) -> bool;
    /// Generous memory per unit, for the headroom check.
    fn kib_each_estimate(&self) -> u64;
    /// Create `k` idle units, call `measure` with the pids of any processes created while all
    /// of them exist, then release them.
    fn hold(&self, k: u64, measure: &mut dyn FnMut(&[i32]) -> Result<()>) -> Result<()>;
}

pub struct PerUnit<U: Units> {
    units: U,
    k: u64,
    quick: bool,
}

impl<U: Units> PerUnit<U> {
    pub fn new(units: U, k: u64, quick: bool) -> Self {
        Self { units, k, quick }
    }

    fn k(&self, ctx: &RunContext) -> u64 {
        if ctx.smoke {
            self.k.min(10)
        } else {
            self.k
        }
    }
}

/// Measured in the sandbox: the tree's footprint before and while `k` units exist, per unit.
fn measure_in_sandbox<U: Units>(units: &U, k: u64, rep: sandbox::Reporter) -> Result<()> {
    // SAFETY: getppid has no preconditions.
    let tree = [unsafe { libc::getppid() }, own_pid()];
    let before = tree_footprint(tree)?;
    let kernel_before = kernel_task_memory_kib();
    units.hold(k, &mut |pids| {
        let during = tree_footprint(tree.iter().chain(pids).copied())?;
        let grew = during.since(&before).per(k as f64);
        rep.value("pss", grew.pss_kib)?;
        rep.value("rss", grew.rss_kib)?;
        rep.value("committed", grew.committed_kib)?;
        if let (Some(a), Some(b)) = (kernel_task_memory_kib(), kernel_before) {
            rep.value("kernel", (a - b) / k as f64)?;
        }
        Ok(())
    })
}

impl<U: Units> Experiment for PerUnit<U> {
    fn meta(&self) -> &Meta {
        self.units.meta()
    }

    fn params(&self) -> Params {
        self.units.params().with("units", self.k)
    }

    fn in_quick(&self) -> bool {
        self.quick
    }

    fn supported(&self, host: &Host) -> Support {
        let tasks = if self.units.is_task() {
            capacity::tasks_fit(host, self.k)
        } else {
            Support::Yes
        };
        capacity::all([
            tasks,
            capacity::memory_fits(self.k, self.units.kib_each_estimate()),
        ])
    }

    /// The values barely vary between samples (they are counts of pages): one per round; the
    /// rounds give the interval.
    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        _iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let k = self.k(ctx);
        let units = &self.units;
        let report = sandbox::run_reporting(ctx, |rep| measure_in_sandbox(units, k, rep))?;
        let mut out = RunOutput {
            value: Some(report.get("pss")?),
            warnings: report.warnings.clone(),
            ..RunOutput::default()
        }
        .metric("rss_kib_per_unit", report.get("rss")?)
        .metric("committed_kib_per_unit", report.get("committed")?);
        if let (true, Ok(kernel)) = (self.units.is_task(), report.get("kernel")) {
            out = out.metric("kernel_kib_per_unit", kernel);
        }
        Ok(out)
    }
}
