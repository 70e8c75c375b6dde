//! `limits.threads`: how many threads this process can create, at the pthread default stack and
//! at 1 MiB (the seed ran out at ~384 threads of 8 MiB in a 32-bit address space and used
//! `ulimit -s 1024` to reach 1000) — within a safe cap (see `cap.rs`).
//!
//! Each sample runs in a sandbox process: threads are created until one fails or the cap is
//! reached, all wait at a gate while they are counted, then all are released and joined. The
//! value is the number created; when the cap was reached it is a floor, and the result says so.

use super::cap::{cap, Inputs};
use crate::memory::thread::hold_threads;
use crate::support::sandbox;
use crate::support::stack::ThreadStack;
use anyhow::Result;
use concbench_core::{Experiment, Meta, Params, Plan, RunContext, RunOutput, SampleTimer};

const META: Meta = Meta {
    id: "limits.threads",
    family: "limits",
    title: "How many threads can be created (within a safe cap)",
    op: "create idle threads until creation fails or the safe cap is reached; the count",
    unit: "threads",
    expected_switches_per_op: None,
};

/// The configured ceiling: enough to show the seed's 1000 threads are no longer a problem,
/// small enough to take a second.
const CEILING: u64 = 10_000;
const QUICK_CEILING: u64 = 2_000;
const SMOKE_CEILING: u64 = 20;

pub struct Threads(pub ThreadStack);

fn ceiling(ctx: &RunContext) -> u64 {
    if ctx.smoke {
        SMOKE_CEILING
    } else if ctx.quick {
        QUICK_CEILING
    } else {
        CEILING
    }
}

impl Experiment for Threads {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        self.0.params()
    }

    /// A count that stops at the cap does not vary: one sample per round.
    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        _iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let stack_bytes = self.0.bytes() as u64;
        let bound = cap(&Inputs::read(&ctx.host, ceiling(ctx), stack_bytes));
        let report = sandbox::run_reporting(ctx, |rep| {
            hold_threads(bound.threads, stack_bytes as usize, |created, failure| {
                rep.value("created", created as f64)?;
                if let Some(e) = failure {
                    rep.warning(&format!(
                        "creating thread {} failed ({e}): that is this system's limit for \
                         {} KiB stacks, below the safe cap of {} set by {}",
                        created + 1,
                        stack_bytes / 1024,
                        bound.threads,
                        bound.what
                    ))?;
                }
                Ok(())
            })
        })?;
        let created = report.get("created")?;
        let hit_cap = created >= bound.threads as f64;
        let mut out = RunOutput {
            value: Some(created),
            warnings: report.warnings,
            ..RunOutput::default()
        }
        .metric("cap", bound.threads as f64)
        .metric("cap_hit", if hit_cap { 1.0 } else { 0.0 });
        if hit_cap {
            out.warnings.push(format!(
                "stopped at the safe cap of {} threads, set by {}: the system allows at least \
                 this many; concbench does not exhaust the real limit",
                bound.threads, bound.what
            ));
        }
        Ok(out)
    }
}
