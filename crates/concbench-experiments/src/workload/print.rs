//! `workload.print`: Zhou Li's experiment (seeds S0.print, S0.scale, S0.heavy, S0.dualcore) —
//! P workers, processes or threads, each write COUNT lines; one operation is the whole batch,
//! from creating the first worker to reaping the last, in seconds.
//!
//! The seed's workers called `printf` to a terminal, where stdout is line-buffered: one
//! `write(2)` per line. `writer = write` makes exactly that call, raw, with no stdio in between,
//! so neither model pays for user-space buffering or for the FILE lock the seed's threads
//! shared; `writer = stdio` writes through libc's line-buffered stream as `printf` did, lock
//! included (a thread-only cost: forked children each have their own copy of the stream).
//! Forked children only write and `_exit`; threads get the pthread default stack, set
//! explicitly. Placement: one CPU (the seed's single core), a pair of CPUs (`cross-cpu`: the
//! seed's two cores, S0.dualcore — the whole batch may run on both CPUs of the pair, no more),
//! or unpinned (every CPU).

use super::batch::{self, Batch, Model};
use super::sink::{line, Sink, Target};
use super::writer::{self, Writer};
use crate::support::capacity;
use anyhow::{ensure, Context, Result};
use concbench_core::{
    Experiment, Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Support,
};

const META: Meta = Meta {
    id: "workload.print",
    family: "workload",
    title: "Zhou Li's print experiment: P workers each write COUNT lines",
    op:
        "create P workers (processes or threads), each writes COUNT lines with one write(2) per \
         line (writer=stdio: one fputs to a line-buffered stdio stream), wait for and reap them all",
    unit: "s",
    expected_switches_per_op: None,
};

/// Memory a worker may need (kernel stack, page tables, touched pages), for the headroom check.
const KIB_PER_WORKER: u64 = 512;

/// One point of the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub model: Model,
    pub workers: u64,
    pub count: u64,
    pub line_bytes: u64,
    pub sink: Sink,
    pub placement: Placement,
    pub writer: Writer,
    /// Part of the `--quick` subset.
    pub quick: bool,
}

pub struct Print {
    point: Point,
    target: Option<Target>,
    line: Vec<u8>,
}

impl Print {
    pub fn new(point: Point) -> Self {
        Self {
            point,
            target: None,
            line: Vec::new(),
        }
    }

    /// Workers and lines actually used: the point's, or a handful in smoke runs.
    fn size(&self, ctx: &RunContext) -> (u64, u64) {
        let p = &self.point;
        if ctx.smoke {
            (p.workers.min(3), p.count.min(5))
        } else {
            (p.workers, p.count)
        }
    }
}

impl Experiment for Print {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        let p = &self.point;
        Params::new()
            .with("model", p.model.as_str())
            .with("workers", p.workers)
            .with("count", p.count)
            .with("line_bytes", p.line_bytes)
            .with("sink", p.sink.as_str())
            .with(writer::PARAM, p.writer.as_str())
    }

    fn placement(&self) -> Placement {
        self.point.placement
    }

    fn in_quick(&self) -> bool {
        self.point.quick
    }

    fn supported(&self, host: &Host) -> Support {
        capacity::all([
            capacity::tasks_fit(host, self.point.workers),
            capacity::memory_fits(self.point.workers, KIB_PER_WORKER),
        ])
    }

    /// One batch per round (a fresh worker); the rounds are the replicates.
    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        // Two CPUs (S0.dualcore's two cores): the harness pinned this thread to the first of
        // the pair, and every worker inherits this thread's affinity, so it is widened to both
        // (the harness restores it when the variant ends).
        if ctx.placement == Placement::CrossCpu {
            concbench_sys::affinity::set_current_thread(&ctx.cpus)
                .context("allowing the batch on both CPUs of its pair")?;
        }
        let name = format!("print-{}.out", std::process::id());
        self.target = Target::open(self.point.sink, &ctx.scratch_dir, &name)?;
        self.line = line(self.point.line_bytes as usize);
        Ok(())
    }

    fn before_sample(&mut self, _ctx: &RunContext) -> Result<()> {
        match &self.target {
            Some(t) => t.reset(),
            None => Ok(()),
        }
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        _iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let (workers, count) = self.size(ctx);
        let b = Batch {
            model: self.point.model,
            workers,
            count,
            line: &self.line,
            sink: self.target.as_ref().map(Target::fd),
            stack_bytes: concbench_measure::host::default_thread_stack() as usize,
            writer: self.point.writer,
        };
        let drained = batch::run(ctx, &b)?;
        timer.stop();
        let bytes = workers * count * self.line.len() as u64;
        match &self.target {
            Some(t) => t.verify(bytes)?,
            None => ensure!(
                drained == bytes,
                "the parent drained {drained} bytes, the workers wrote {bytes}"
            ),
        }
        Ok(RunOutput::default().metric("lines", (workers * count) as f64))
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        match self.target.take() {
            Some(t) => t.remove(),
            None => Ok(()),
        }
    }
}
