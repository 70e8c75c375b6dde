//! `switch.ring.thread`: seed S3's ring — 20 threads, each reads a 10-byte token from its pipe
//! and writes it to the next thread's pipe. One operation is one hop (a wake-up of the next
//! thread). The seed's single-thread self-test (write 10 bytes to a pipe and read them back) is
//! the method overhead: the harness measures it interleaved with the ring and subtracts it, and
//! the result keeps both (`overhead.raw_median` is what the seed printed).
//!
//! To make any number of hops exact, the token carries the hops still to go; the member that
//! receives it with one hop left sends it to the main thread's inbox instead of onward. The main
//! thread only starts and ends each sample; in between the token circulates among the members.

use super::setting::PLACEMENTS;
use crate::support::partner::{pin_to, spawn_each, Partner};
use anyhow::{bail, Context, Result};
use concbench_core::{
    Experiment, Meta, Params, Placement, RunContext, RunOutput, SampleTimer, Staged, Stages,
};
use concbench_sys::via_libc;
use rustix::fd::{AsFd, OwnedFd};
use rustix::pipe::{pipe_with, PipeFlags};
use std::sync::Arc;

const META: Meta = Meta {
    id: "switch.ring.thread",
    family: "switch",
    title: "Thread switch: token around a ring of 20 threads (pipes), self-test subtracted",
    op: "one hop: a thread writes the token to the next thread's pipe, which wakes and reads it",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

/// Ring members, as in the seed.
pub const MEMBERS: usize = 20;

/// The seed's token size.
const TOKEN_BYTES: usize = 10;

/// Token values that are not hop counts.
const STOP: u64 = u64::MAX;
const FAILED: u64 = u64::MAX - 1;

/// Where a member sends a token it received with `remaining` hops to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Member(usize),
    Main,
}

/// The routing rule: onward with one hop fewer, or to main when this is the last hop.
pub fn route(member: usize, remaining: u64, members: usize) -> (Next, u64) {
    if remaining <= 1 {
        (Next::Main, 0)
    } else {
        (Next::Member((member + 1) % members), remaining - 1)
    }
}

/// The hops a sample performs for `n` operations: main's first write plus at least one more.
fn hops(n: u64) -> u64 {
    n.max(2)
}

/// The CPU member `m` is pinned to: everyone on one CPU; or alternating between the two CPUs
/// so that every hop between members crosses CPUs; or nowhere.
fn member_cpu(ctx: &RunContext, m: usize) -> Option<usize> {
    match ctx.placement {
        Placement::SameCpu => ctx.primary_cpu(),
        Placement::CrossCpu => [ctx.partner_cpu(), ctx.primary_cpu()][m % 2],
        Placement::Unpinned => None,
    }
}

/// Every pipe of the ring: one inbox per member, plus main's.
struct Pipes {
    inbox: Vec<(OwnedFd, OwnedFd)>,
    main: (OwnedFd, OwnedFd),
}

impl Pipes {
    fn new(members: usize) -> Result<Self> {
        let pipe = || pipe_with(PipeFlags::CLOEXEC).context("pipe");
        Ok(Self {
            inbox: (0..members).map(|_| pipe()).collect::<Result<_>>()?,
            main: pipe()?,
        })
    }

    fn writer(&self, to: Next) -> &OwnedFd {
        match to {
            Next::Member(m) => &self.inbox[m].1,
            Next::Main => &self.main.1,
        }
    }
}

fn send(fd: &OwnedFd, value: u64) -> Result<()> {
    let mut token = [0u8; TOKEN_BYTES];
    token[..8].copy_from_slice(&value.to_ne_bytes());
    via_libc::write(fd.as_fd(), &token).context("writing the token")?;
    Ok(())
}

fn receive(fd: &OwnedFd) -> Result<u64> {
    let mut token = [0u8; TOKEN_BYTES];
    let n = via_libc::read(fd.as_fd(), &mut token).context("reading the token")?;
    if n != TOKEN_BYTES {
        bail!("short token read ({n} bytes)");
    }
    Ok(u64::from_ne_bytes(token[..8].try_into().expect("8 bytes")))
}

/// The seed's self-test, `iterations` times: main writes the token to its own pipe and reads it.
fn self_test(p: &Pipes, iterations: u64) -> Result<()> {
    for _ in 0..iterations {
        send(&p.main.1, 0)?;
        receive(&p.main.0)?;
    }
    Ok(())
}

/// A member's life: forward tokens until it receives STOP.
fn member(pipes: &Pipes, m: usize) -> Result<()> {
    loop {
        let remaining = receive(&pipes.inbox[m].0)?;
        if remaining == STOP {
            return Ok(());
        }
        let (next, left) = route(m, remaining, pipes.inbox.len());
        send(pipes.writer(next), left)?;
    }
}

pub struct Ring {
    placement: Placement,
}

/// What `setup` started: the ring's pipes and its members.
pub struct Live {
    pipes: Arc<Pipes>,
    members: Vec<Partner>,
}

impl Live {
    /// Start the members one by one, pinned per the placement.
    fn start(ctx: &RunContext) -> Result<Self> {
        let pipes = Arc::new(Pipes::new(MEMBERS)?);
        let spawn = |m| {
            let p = pipes.clone();
            let cpu = member_cpu(ctx, m);
            let member_body = move || {
                let r = member(&p, m);
                if r.is_err() {
                    // Tell main instead of leaving it blocked on its inbox.
                    let _ = send(p.writer(Next::Main), FAILED);
                }
                r
            };
            Partner::spawn(&format!("ring-{m}"), move || pin_to(cpu), member_body)
        };
        let abandon = |started| {
            let _ = Live {
                pipes: pipes.clone(),
                members: started,
            }
            .stop();
        };
        let members = spawn_each(MEMBERS, spawn, abandon)?;
        Ok(Live { pipes, members })
    }

    /// Stop and join every member started.
    fn stop(self) -> Result<()> {
        // STOP goes to every inbox directly, so one failed member cannot keep the rest running.
        for m in 0..self.members.len() {
            send(self.pipes.writer(Next::Member(m)), STOP)?;
        }
        self.members.into_iter().try_for_each(Partner::join)
    }
}

impl Ring {
    fn new(placement: Placement) -> Stages<Self> {
        Stages::new(Self { placement })
    }
}

impl Staged for Ring {
    type State = Live;

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new().with("threads", MEMBERS as u64)
    }

    fn placement(&self) -> Placement {
        self.placement
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<Live> {
        Live::start(ctx)
    }

    fn run(
        &mut self,
        live: &mut Live,
        _ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let pipes = &live.pipes;
        send(pipes.writer(Next::Member(0)), hops(iterations) - 1)?;
        match receive(&pipes.main.0)? {
            0 => Ok(RunOutput::default()),
            FAILED => bail!("a ring member failed"),
            other => bail!("the token came back with {other} hops to go"),
        }
    }

    fn run_overhead(
        &mut self,
        live: &mut Live,
        _ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        Some(self_test(&live.pipes, iterations).map(|()| RunOutput::default()))
    }

    fn overhead_method(&self) -> Option<&'static str> {
        Some(
            "the seed's self-test: one thread writes the 10-byte token to a pipe and reads it back",
        )
    }

    fn teardown(&mut self, live: Live, _ctx: &RunContext) -> Result<()> {
        live.stop()
    }
}

pub fn variants() -> Vec<Box<dyn Experiment>> {
    PLACEMENTS
        .iter()
        .map(|&p| Box::new(Ring::new(p)) as Box<dyn Experiment>)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Follow the routing rule from main's first write; count hops until the token is back.
    fn simulate(n: u64) -> (u64, Vec<usize>) {
        let mut hops_done = 1;
        let mut visited = vec![0];
        let (mut at, mut remaining) = (0, hops(n) - 1);
        loop {
            let (next, left) = route(at, remaining, MEMBERS);
            hops_done += 1;
            match next {
                Next::Main => {
                    assert_eq!(left, 0);
                    return (hops_done, visited);
                }
                Next::Member(m) => {
                    visited.push(m);
                    at = m;
                    remaining = left;
                }
            }
        }
    }

    #[test]
    fn every_sample_makes_exactly_the_hops_asked_for() {
        for n in [2, 3, 19, 20, 21, 40, 41, 1000, 12_345] {
            assert_eq!(simulate(n).0, n, "n = {n}");
        }
        // One operation still needs a round trip through one member.
        assert_eq!(simulate(1).0, 2);
    }

    #[test]
    fn the_token_goes_round_the_members_in_order() {
        let (_, visited) = simulate(45);
        assert_eq!(visited.len(), 44);
        assert!(visited.windows(2).all(|w| w[1] == (w[0] + 1) % MEMBERS));
    }

    #[test]
    fn cross_cpu_members_alternate_so_every_member_hop_crosses() {
        let ctx = RunContext {
            quick: true,
            smoke: true,
            placement: Placement::CrossCpu,
            cpus: vec![1, 0],
            cancel: Default::default(),
            host: Default::default(),
            scratch_dir: std::env::temp_dir(),
            options: Default::default(),
        };
        for m in 0..MEMBERS {
            assert_ne!(
                member_cpu(&ctx, m),
                member_cpu(&ctx, (m + 1) % MEMBERS),
                "hop {m} -> next stays on one CPU"
            );
        }
        // Main (on the primary CPU) wakes member 0 on the other one.
        assert_eq!(member_cpu(&ctx, 0), Some(0));
    }
}
