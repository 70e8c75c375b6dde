//! The experiment every `share` mechanism runs: set up a link to a receiving unit pinned per the
//! placement, then hand over `iterations` messages, each waiting for its acknowledgement (see
//! `message.rs` for what is and is not copied). A mechanism supplies only its link.

use super::message;
use anyhow::Result;
use concbench_core::{Meta, Params, Placement, RunContext, RunOutput, SampleTimer, Staged, Stages};

/// A sender's end of a link to a receiving unit (process or thread).
pub trait Link: Sized + Send {
    fn meta() -> &'static Meta;
    /// Start the receiver for messages of `bytes`, pinned to `cpu` when given.
    fn open(bytes: u64, cpu: Option<usize>) -> Result<Self>;
    /// Hand over one message and wait for its acknowledgement.
    fn exchange(&self, msg: &[u8]) -> Result<()>;
    /// The receiving process, whose usage is added to the sample; `None` for a thread (already
    /// in this process's usage).
    fn partner_pid(&self) -> Option<i32>;
    /// Stop the receiver and check it saw nothing wrong.
    fn close(self) -> Result<()>;
}

pub struct Exchange<L: Link> {
    bytes: u64,
    placement: Placement,
    msg: Vec<u8>,
    /// The link's type: the open link itself is the state `setup` returns.
    link: std::marker::PhantomData<fn() -> L>,
}

impl<L: Link> Exchange<L> {
    pub fn new(bytes: u64, placement: Placement) -> Stages<Self> {
        Stages::new(Self {
            bytes,
            placement,
            msg: Vec::new(),
            link: std::marker::PhantomData,
        })
    }
}

impl<L: Link> Staged for Exchange<L> {
    /// The open link to the receiving unit.
    type State = L;

    fn meta(&self) -> &Meta {
        L::meta()
    }

    fn params(&self) -> Params {
        Params::new().with("bytes", self.bytes)
    }

    fn placement(&self) -> Placement {
        self.placement
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<L> {
        self.msg = message::message(self.bytes);
        L::open(self.bytes, ctx.partner_placement_cpu())
    }

    fn run(
        &mut self,
        link: &mut L,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let partner = link.partner_pid();
        let usage = || partner.and_then(concbench_measure::usage::pid_usage);
        let before = usage();
        crate::support::repeat(ctx, iterations, |_| link.exchange(&self.msg))?;
        let after = usage();
        // The message size, from which the analysis derives throughput (`throughput_mib_s`).
        let mut out = RunOutput::default().metric("bytes_per_op", self.bytes as f64);
        out.extra_usage = before.zip(after).map(|(b, a)| a.since(&b));
        Ok(out)
    }

    fn teardown(&mut self, link: L, _ctx: &RunContext) -> Result<()> {
        link.close()
    }
}
