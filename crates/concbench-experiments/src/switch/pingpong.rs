//! The ping-pong every two-party switch experiment shares: the harness thread (main) and one
//! partner (a thread or a process) pass a turn back and forth through an [`Endpoint`]; each side,
//! on its turn, reads its working set (lat_ctx's indirect cost; nothing when it is 0 KiB).
//!
//! One operation is one one-way hand-over, so `n` operations are `ceil(n / 2)` round trips (an
//! odd `n` adds one switch: an error of at most 1/n, and calibrated counts are in the
//! thousands). When the working set is not empty, reading it once without switching (warm
//! caches) is measured as the method overhead and subtracted by the harness, so what remains is
//! the switch plus the cache refill the switch caused.
//!
//! Across CPUs each sample also counts the entries into the CPUs' idle states (where cpuidle
//! publishes them): `idle_sleeps_per_op` says how many hand-overs woke a sleeping CPU, which is
//! what makes a cross-CPU figure bimodal.

use super::{setting::Setting, working_set::WorkingSet};
use crate::support::{handover::Endpoint, partner, repeat};
use anyhow::{bail, Context, Result};
use concbench_core::{
    Experiment, Host, Meta, Params, Placement, RunContext, RunOutput, SampleTimer, Staged, Stages,
    Support, Usage,
};
use concbench_measure::idle::{self, Root, UsageSnapshot};

/// What the subtracted overhead is, when the working set is not empty.
const TOUCH_OVERHEAD: &str = "one side reading its working set once, without a switch (warm)";

/// How the partner side runs: a thread of this process, or a forked process.
pub trait PartnerKind<E: Endpoint>: Sized + Send + 'static {
    /// Start the partner serving `end` with `setting`, placed on `cpu` (None: unpinned).
    fn start(end: E, setting: Setting, cpu: Option<usize>) -> Result<Self>;

    /// The partner's resource usage so far when the harness cannot see it (a live child
    /// process); threads are already in the process's own getrusage.
    fn live_usage(&self) -> Option<Usage> {
        None
    }

    /// Stop the partner; the main endpoint has already been dropped.
    fn stop(self) -> Result<()>;
}

/// Main's side: `round_trips` times pass the turn, wait for it, read the working set.
pub fn drive(
    end: &mut impl Endpoint,
    ctx: &RunContext,
    round_trips: u64,
    ws: &WorkingSet,
) -> Result<()> {
    repeat(ctx, round_trips, |_| {
        end.pass()?;
        if !end.wait_turn()? {
            bail!("the partner stopped answering");
        }
        ws.touch();
        Ok(())
    })
}

/// The partner's side: wait for the turn, read the working set, pass the turn back; until the
/// main side goes away.
pub fn serve(mut end: impl Endpoint, ws: &WorkingSet) -> Result<()> {
    while end.wait_turn()? {
        ws.touch();
        end.pass()?;
    }
    Ok(())
}

/// Round trips for `n` one-way switches.
pub fn round_trips(n: u64) -> u64 {
    n.div_ceil(2)
}

/// The partner as a thread of this process.
pub struct ThreadPartner(partner::Partner);

impl<E: Endpoint> PartnerKind<E> for ThreadPartner {
    fn start(end: E, setting: Setting, cpu: Option<usize>) -> Result<Self> {
        let kib = setting.working_set_kib;
        let p = partner::Partner::spawn(
            "switch-partner",
            move || {
                partner::pin_to(cpu)?;
                setting.sched.enter()
            },
            // The working set is allocated (and its pages faulted in) by the partner itself.
            move || serve(end, &WorkingSet::new(kib)),
        )?;
        Ok(Self(p))
    }

    fn stop(self) -> Result<()> {
        self.0.join()
    }
}

/// A ping-pong switch experiment: one id, one setting, one mechanism, one kind of partner.
pub struct PingPong<E: Endpoint, P: PartnerKind<E>> {
    meta: &'static Meta,
    make: fn() -> Result<(E, E)>,
    setting: Setting,
    /// The kind of partner `setup` starts (the started one is in the state, [`Live`]).
    kind: std::marker::PhantomData<fn() -> P>,
}

/// What `setup` started: this side's end, the partner, and this side's working set.
pub struct Live<E, P> {
    main: E,
    partner: P,
    ws: WorkingSet,
}

impl<E: Endpoint, P: PartnerKind<E>> PingPong<E, P> {
    pub fn new(
        meta: &'static Meta,
        make: fn() -> Result<(E, E)>,
        setting: Setting,
    ) -> Stages<Self> {
        Stages::new(Self {
            meta,
            make,
            setting,
            kind: std::marker::PhantomData,
        })
    }

    /// Enter the policy, start the partner and see it answer once.
    fn start(&mut self, ctx: &RunContext) -> Result<Live<E, P>> {
        self.setting.sched.enter().context("main thread")?;
        let (mut main, partner_end) = (self.make)()?;
        let partner = P::start(partner_end, self.setting, ctx.partner_placement_cpu())?;
        // One round trip proves the partner answers before anything is timed.
        main.pass()?;
        if !main.wait_turn()? {
            drop(main);
            let _ = partner.stop();
            bail!("the partner exited during setup (could it pin itself or set its policy?)");
        }
        Ok(Live {
            main,
            partner,
            ws: WorkingSet::new(self.setting.working_set_kib),
        })
    }
}

impl<E: Endpoint, P: PartnerKind<E>> Staged for PingPong<E, P> {
    type State = Live<E, P>;

    fn meta(&self) -> &Meta {
        self.meta
    }

    fn params(&self) -> Params {
        self.setting.params()
    }

    fn placement(&self) -> Placement {
        self.setting.placement
    }

    fn in_quick(&self) -> bool {
        self.setting.in_quick
    }

    fn supported(&self, host: &Host) -> Support {
        self.setting.sched.supported(host)
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<Live<E, P>> {
        let started = self.start(ctx);
        if started.is_err() {
            // No teardown follows a failed setup: the main thread's policy is restored here.
            let _ = self.setting.sched.leave();
        }
        started
    }

    fn run(
        &mut self,
        live: &mut Live<E, P>,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        // Reading a live process's counters and the idle states' counters takes tens of
        // microseconds: keep it untimed.
        let idle_cpus = idle_evidence_cpus(ctx);
        let idle_before =
            (!idle_cpus.is_empty()).then(|| UsageSnapshot::read(&Root::default(), &idle_cpus));
        let before = live.partner.live_usage();
        timer.restart();
        drive(&mut live.main, ctx, round_trips(iterations), &live.ws)?;
        timer.stop();
        let extra_usage = before
            .zip(live.partner.live_usage())
            .map(|(b, a)| a.since(&b));
        let metrics = idle_before
            .map(|b| {
                let d = b.delta(&UsageSnapshot::read(&Root::default(), &idle_cpus));
                idle::metrics_per_op(&d, iterations)
            })
            .unwrap_or_default();
        Ok(RunOutput {
            extra_usage,
            metrics,
            ..Default::default()
        })
    }

    fn run_overhead(
        &mut self,
        live: &mut Live<E, P>,
        _ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        for _ in 0..iterations {
            live.ws.touch();
        }
        Some(Ok(RunOutput::default()))
    }

    fn overhead_method(&self) -> Option<&'static str> {
        (self.setting.working_set_kib > 0).then_some(TOUCH_OVERHEAD)
    }

    fn teardown(&mut self, live: Live<E, P>, _ctx: &RunContext) -> Result<()> {
        let Live { main, partner, .. } = live;
        drop(main);
        let stopped = partner.stop();
        let restored = self.setting.sched.leave().context("restoring SCHED_OTHER");
        stopped.and(restored)
    }
}

/// The CPUs whose idle-state entries explain a hand-over: both CPUs of a cross-CPU variant,
/// every allowed CPU of an unpinned one (either may be the sleeper), none on one CPU (the
/// partner is runnable there, never idle). Empty also when the machine has no cpuidle states.
fn idle_evidence_cpus(ctx: &RunContext) -> Vec<usize> {
    let cpus = match ctx.placement {
        Placement::SameCpu => return Vec::new(),
        Placement::CrossCpu => ctx.cpus.clone(),
        Placement::Unpinned => ctx.host.cpus_allowed.clone(),
    };
    let root = Root::default();
    match cpus.first() {
        Some(&c) if !idle::states_of(&root, c).is_empty() => cpus,
        _ => Vec::new(),
    }
}

/// One boxed variant per setting of `sweep`, for a family's `all()`.
pub fn variants<E: Endpoint, P: PartnerKind<E>>(
    meta: &'static Meta,
    make: fn() -> Result<(E, E)>,
    sweep: super::setting::Sweep,
) -> Vec<Box<dyn Experiment>> {
    sweep
        .settings()
        .into_iter()
        .map(|s| Box::new(PingPong::<E, P>::new(meta, make, s)) as Box<dyn Experiment>)
        .collect()
}
