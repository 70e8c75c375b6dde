//! `switch.alone.process` and `switch.alone.thread`: the switch itself, lmbench `lat_ctx`'s way.
//!
//! A pipe ping-pong (`switch.pipe.*`, seed S3's program, `perf bench sched pipe`) times a
//! hand-over: one side writes the token, the other wakes and reads it — the pipe's transport
//! plus the switch. lmbench subtracts the transport, measured in the same program by one process
//! that writes into a pipe and reads it back with nobody to wake. Here the same ping-pong runs,
//! and the harness measures that transport as the method overhead, interleaved with the
//! ping-pong's samples in the same worker, and subtracts it (each round keeps both: the
//! hand-over is the raw figure, the transport the baseline). What remains is what "a switch
//! costs X" should mean: the switch.
//!
//! Same CPU only: that is where a switch is a switch (across CPUs it is a wake-up of another
//! CPU, `switch.pipe.*` at `cross-cpu`).

use super::pingpong::{PartnerKind, PingPong, ThreadPartner};
use super::pipe_process::ProcessPartner;
use super::sched::Sched;
use super::setting::Setting;
use crate::support::handover::{pipe_pair, Endpoint, PipeEnd};
use anyhow::{bail, Context, Result};
use concbench_core::{
    Experiment, Host, Meta, Placement, RunContext, RunOutput, SampleTimer, Stages, Support,
};

pub const PROCESS_ID: &str = "switch.alone.process";
pub const THREAD_ID: &str = "switch.alone.thread";

const PROCESS: Meta = Meta {
    id: PROCESS_ID,
    family: "switch",
    title: "Process switch alone: pipe ping-pong minus its transport (lmbench lat_ctx's way)",
    op: "one one-way switch: a hand-over between two processes less one pipe write + read in one \
         process",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

const THREAD: Meta = Meta {
    id: THREAD_ID,
    family: "switch",
    title: "Thread switch alone: pipe ping-pong minus its transport (lmbench lat_ctx's way)",
    op: "one one-way switch: a hand-over between two threads less one pipe write + read in one \
         thread",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

/// What the subtracted baseline is.
const TRANSPORT: &str = "the transport: one thread writes the 1-byte token into a pipe and reads \
                         it back, nobody to wake (lmbench lat_ctx's pipe overhead)";

/// The plain setting of the ping-pong: same CPU, default policy, no working set.
const SETTING: Setting = Setting {
    placement: Placement::SameCpu,
    sched: Sched::Other,
    working_set_kib: 0,
    in_quick: true,
};

pub struct Alone<P: PartnerKind<PipeEnd>> {
    meta: &'static Meta,
    handover: Stages<PingPong<PipeEnd, P>>,
    /// A crossed pipe pair in this thread: what one end passes, the other reads.
    transport: Option<(PipeEnd, PipeEnd)>,
}

impl<P: PartnerKind<PipeEnd>> Alone<P> {
    fn new(meta: &'static Meta) -> Self {
        Self {
            meta,
            handover: PingPong::new(meta, pipe_pair, SETTING),
            transport: None,
        }
    }
}

impl<P: PartnerKind<PipeEnd>> Experiment for Alone<P> {
    fn meta(&self) -> &Meta {
        self.meta
    }

    fn placement(&self) -> Placement {
        SETTING.placement
    }

    fn supported(&self, host: &Host) -> Support {
        self.handover.supported(host)
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        self.transport = Some(pipe_pair()?);
        self.handover.setup(ctx)
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        self.handover.run(ctx, iterations, timer)
    }

    fn run_overhead(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        let (a, b) = self.transport.as_mut()?;
        Some(
            crate::support::repeat(ctx, iterations, |_| {
                a.pass()?;
                if !b.wait_turn()? {
                    bail!("the transport pipe closed");
                }
                Ok(())
            })
            .map(|()| RunOutput::default())
            .context("measuring the transport"),
        )
    }

    fn overhead_method(&self) -> Option<&'static str> {
        Some(TRANSPORT)
    }

    fn teardown(&mut self, ctx: &RunContext) -> Result<()> {
        self.transport = None;
        self.handover.teardown(ctx)
    }
}

pub fn variants() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(Alone::<ProcessPartner>::new(&PROCESS)),
        Box::new(Alone::<ThreadPartner>::new(&THREAD)),
    ]
}
