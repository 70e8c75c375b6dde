//! `contend.alternate`: seed S1's TwoThreadSwitchTester — two threads take strict turns, each
//! adding 1 per turn, handing the turn over through auto-reset events (eventfd, a kernel object
//! like the seed's `AutoResetEvent`). One operation is one increment, so one hand-over.
//!
//! The seed used ONE event for both threads, so a thread could consume its own `Set` and count
//! twice in a row (its 33.7 M switches for 1e8 increments show it often did); this uses one
//! event per direction, so the alternation the seed meant is the one measured.

use crate::support::event::EventFd;
use crate::support::handover::{event_pair, Endpoint, EventEnd};
use crate::support::partner::{pin_to, Partner};
use crate::support::repeat;
use anyhow::{bail, Result};
use concbench_core::{Meta, Params, Placement, RunContext, RunOutput, SampleTimer, Staged, Stages};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const META: Meta = Meta {
    id: "contend.alternate",
    family: "contend",
    title: "S1: two threads strictly alternate, +1 per turn (event hand-over)",
    op: "one increment, then hand the turn to the other thread",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

pub struct Alternate {
    placement: Placement,
}

/// What `setup` started: main's end of the events, the shared counter, the partner thread.
pub struct Live {
    main: EventEnd<EventFd>,
    counter: Arc<AtomicU64>,
    partner: Partner,
}

impl Alternate {
    pub fn new(placement: Placement) -> Stages<Self> {
        Stages::new(Self { placement })
    }
}

/// The partner's turns: increment, hand back; until the main side goes away. The events order
/// the two threads' accesses, so relaxed loads and stores suffice.
fn partner_turns(mut end: EventEnd<EventFd>, counter: &AtomicU64) -> Result<()> {
    while end.wait_turn()? {
        counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        end.pass()?;
    }
    Ok(())
}

/// Main's turns: increment, and unless that was the last increment, hand over and wait for
/// the turn back. Main makes the odd increments (1, 3, 5, ...), so it has `ceil(target / 2)`
/// turns and the two threads make exactly `target` increments together.
fn main_turns(live: &mut Live, ctx: &RunContext, target: u64) -> Result<()> {
    let counter = &live.counter;
    counter.store(0, Ordering::Relaxed);
    repeat(ctx, target.div_ceil(2), |_| {
        let now = counter.load(Ordering::Relaxed) + 1;
        counter.store(now, Ordering::Relaxed);
        if now < target {
            live.main.pass()?;
            if !live.main.wait_turn()? {
                bail!("the partner thread stopped");
            }
        }
        Ok(())
    })
}

impl Staged for Alternate {
    type State = Live;

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new().with("event", "eventfd")
    }

    fn placement(&self) -> Placement {
        self.placement
    }

    /// Same CPU (every turn a switch) and unpinned (the seed's setting) are kept in `--quick`.
    fn in_quick(&self) -> bool {
        self.placement != Placement::CrossCpu
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<Live> {
        let (main, partner_end) = event_pair::<EventFd>()?;
        let counter = Arc::new(AtomicU64::new(0));
        let c = counter.clone();
        let cpu = ctx.partner_placement_cpu();
        let partner = Partner::spawn(
            "alternate-partner",
            move || pin_to(cpu),
            move || partner_turns(partner_end, &c),
        )?;
        Ok(Live {
            main,
            counter,
            partner,
        })
    }

    fn run(
        &mut self,
        live: &mut Live,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        main_turns(live, ctx, iterations)?;
        let mut out = RunOutput::default();
        out.warnings.push(super::scaled_warning(iterations));
        Ok(out)
    }

    fn teardown(&mut self, live: Live, _ctx: &RunContext) -> Result<()> {
        let Live { main, partner, .. } = live;
        drop(main);
        partner.join()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_threads_make_exactly_the_target_between_them() {
        let ctx = RunContext {
            quick: true,
            smoke: true,
            placement: Placement::Unpinned,
            cpus: vec![],
            cancel: Default::default(),
            host: Default::default(),
            scratch_dir: std::env::temp_dir(),
            options: Default::default(),
        };
        let mut alternate = Alternate {
            placement: Placement::Unpinned,
        };
        let mut live = alternate.setup(&ctx).unwrap();
        for target in [1, 2, 3, 4, 1001] {
            main_turns(&mut live, &ctx, target).unwrap();
            assert_eq!(live.counter.load(Ordering::Relaxed), target);
        }
        alternate.teardown(live, &ctx).unwrap();
    }
}
