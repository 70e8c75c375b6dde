//! `anatomy.victim`: what a switch costs the work around it.
//!
//! A fixed CPU-bound kernel — the victim — runs on one CPU: each pass makes 4096 dependent
//! arithmetic steps and, with a working set, reads one cache line of its own N KiB array per
//! step (an odd stride of lines, so every line is visited and a next-line prefetcher cannot run
//! ahead). A partner pinned to the same CPU, a thread of the victim's process or a forked
//! process, sleeps K µs at a time and does nothing when it wakes: each wake-up preempts the
//! victim (a switch out and a switch back). The partner runs under SCHED_FIFO when allowed, so
//! it preempts the moment its timer fires; under the default policy the scheduler lets a waking
//! task wait for the running one's slice, and most periods pass without a preemption (the
//! count is measured either way; `info.partner_policy` says which). Its address space (process) and the kernel's own
//! wake-up path are all it brings; what the victim loses beyond the two switches is cache and
//! TLB state it must refill.
//!
//! The same passes are timed with the partner parked (the victim alone), interleaved sample by
//! sample as the harness's method overhead, so the result is the extra time per pass the
//! preemptions caused. The partner counts its wake-ups (`preemptions_per_op`); the analysis
//! divides, giving the slowdown per preemption, and sets it beside the direct switch cost.

use super::{PartnerKind, FAMILY, PARTNER};
use crate::support::event::{AutoResetEvent, EventFd};
use crate::support::partner::{pin_to, Partner};
use crate::support::repeat;
use crate::support::shared::Shared;
use crate::switch::sched::Sched;
use anyhow::{Context, Result};
use concbench_core::{
    Experiment, Meta, Params, RunContext, RunOutput, SampleTimer, Staged, Stages,
};
use concbench_sys::{fork_child, Child};
use std::hint::black_box;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub const ID: &str = "anatomy.victim";
/// `params` keys (and [`PARTNER`]).
pub const WORKING_SET_KIB: &str = "working_set_kib";
pub const PERIOD_US: &str = "period_us";
/// Metric: the partner's wake-ups (each one a preemption of the victim) per pass.
pub const PREEMPTIONS_PER_OP: &str = "preemptions_per_op";

const META: Meta = Meta {
    id: ID,
    family: FAMILY,
    title: "Victim's slowdown: a CPU-bound kernel preempted every K us by a partner on its CPU",
    op: "one pass of the victim's kernel (4096 dependent steps, one cache line of its N KiB \
         array per step), with the partner waking every K us; the same passes alone are \
         subtracted",
    unit: "ns",
    expected_switches_per_op: None,
};

const ALONE: &str = "the same passes with the partner parked (the victim alone on its CPU)";

/// Steps of one pass of the kernel.
const STEPS: usize = 4096;
/// Cache lines between two reads of the array: odd, so a power-of-two array is covered whole.
const STRIDE_LINES: usize = 17;
const WORDS_PER_LINE: usize = 64 / std::mem::size_of::<u64>();

/// The victim's kernel and its position in its array.
struct Kernel {
    words: Vec<u64>,
    line: usize,
    state: u64,
}

impl Kernel {
    fn new(kib: usize) -> Self {
        Self {
            // Written, so every page is backed (an unwritten array maps the shared zero page).
            words: vec![1; kib * 1024 / std::mem::size_of::<u64>()],
            line: 0,
            state: 1,
        }
    }

    /// One pass: `STEPS` dependent multiply-adds, each reading one line of the array if any.
    fn pass(&mut self) -> u64 {
        let lines = self.words.len() / WORDS_PER_LINE;
        let mut x = self.state;
        for _ in 0..STEPS {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if lines > 0 {
                x = x.wrapping_add(self.words[self.line * WORDS_PER_LINE]);
                self.line = (self.line + STRIDE_LINES) % lines;
            }
        }
        self.state = x;
        black_box(x)
    }
}

/// What the victim and its partner share (in memory a forked partner sees too).
#[derive(Default)]
struct Control {
    state: AtomicU32,
    wakes: AtomicU64,
}

const PARKED: u32 = 0;
const ACTIVE: u32 = 1;
const STOP: u32 = 2;

/// The partner's two events: released by `go`, it reports `parked` before waiting again.
struct Signals {
    go: EventFd,
    parked: EventFd,
}

/// The partner's life: while active, sleep a period and count the wake-up; when parked, say so
/// and wait to be released; return on STOP.
fn preempt(control: &Control, signals: &Signals, period: Duration) -> Result<()> {
    // Exact sleeps: the default timer slack (50 us) would stretch every period.
    // SAFETY: PR_SET_TIMERSLACK takes a value in nanoseconds and affects only this thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1) };
    loop {
        match control.state.load(Ordering::Acquire) {
            STOP => return Ok(()),
            ACTIVE => {
                std::thread::sleep(period);
                if control.state.load(Ordering::Acquire) == ACTIVE {
                    control.wakes.fetch_add(1, Ordering::Relaxed);
                }
            }
            _ => {
                signals.parked.set()?;
                signals.go.wait()?;
            }
        }
    }
}

enum Running {
    Thread(Partner),
    Process(Child),
}

pub struct Live {
    control: Arc<Shared<Control>>,
    signals: Arc<Signals>,
    partner: Running,
    kernel: Kernel,
}

impl Live {
    /// Park the partner and wait until it is parked (so no wake-up lands in the next phase).
    fn park(&self) -> Result<()> {
        self.control.state.store(PARKED, Ordering::Release);
        self.signals.parked.wait()
    }
}

/// SCHED_FIFO when this process may use it (the partner then preempts on time), else the
/// default policy.
fn partner_policy(ctx: &RunContext) -> Sched {
    if ctx.host.can_sched_fifo {
        Sched::Fifo
    } else {
        Sched::Other
    }
}

pub struct Victim {
    partner: PartnerKind,
    working_set_kib: usize,
    period_us: u64,
    in_quick: bool,
    /// The partner's policy, once set up.
    policy: Option<Sched>,
}

impl Victim {
    fn start(&self, ctx: &RunContext) -> Result<Live> {
        let control = Arc::new(Shared::<Control>::zeroed()?);
        let signals = Arc::new(Signals {
            go: EventFd::new()?,
            parked: EventFd::new()?,
        });
        let period = Duration::from_micros(self.period_us);
        let cpu = ctx.partner_placement_cpu();
        let policy = partner_policy(ctx);
        let prepare = move || pin_to(cpu).and_then(|()| policy.enter());
        let (c, s) = (control.clone(), signals.clone());
        let partner = match self.partner {
            PartnerKind::Thread => {
                Running::Thread(Partner::spawn("victim-partner", prepare, move || {
                    preempt(&c, &s, period)
                })?)
            }
            PartnerKind::Process => Running::Process(fork_child(move || {
                i32::from(prepare().and_then(|()| preempt(&c, &s, period)).is_err())
            })?),
        };
        let live = Live {
            control,
            signals,
            partner,
            kernel: Kernel::new(self.working_set_kib),
        };
        // The partner parks itself once it is placed: proof that it runs.
        live.signals
            .parked
            .wait()
            .context("waiting for the partner")?;
        Ok(live)
    }
}

impl Staged for Victim {
    type State = Live;

    /// The anatomy's layers are differences with its other variants, pass by pass.
    fn paired(&self) -> bool {
        true
    }

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new()
            .with(PARTNER, self.partner.as_str())
            .with(WORKING_SET_KIB, self.working_set_kib as u64)
            .with(PERIOD_US, self.period_us)
    }

    fn in_quick(&self) -> bool {
        self.in_quick
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<Live> {
        let live = self.start(ctx)?;
        self.policy = Some(partner_policy(ctx));
        Ok(live)
    }

    fn info(&self) -> std::collections::BTreeMap<String, String> {
        self.policy
            .map(|p| ("partner_policy".to_string(), p.as_str().to_string()))
            .into_iter()
            .collect()
    }

    fn run(
        &mut self,
        live: &mut Live,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let wakes_before = live.control.wakes.load(Ordering::Relaxed);
        live.control.state.store(ACTIVE, Ordering::Release);
        live.signals.go.set()?;
        timer.restart();
        repeat(ctx, iterations, |_| {
            live.kernel.pass();
            Ok(())
        })?;
        timer.stop();
        live.park()?;
        let wakes = live.control.wakes.load(Ordering::Relaxed) - wakes_before;
        let mut out =
            RunOutput::default().metric(PREEMPTIONS_PER_OP, wakes as f64 / iterations as f64);
        if wakes == 0 {
            out.warnings.push(
                "in some samples the partner never preempted the victim (a sample shorter than \
                 the period, or the scheduler kept the victim running): those samples hold no \
                 switch; run without --smoke, as root for a SCHED_FIFO partner"
                    .into(),
            );
        }
        Ok(out)
    }

    fn run_overhead(
        &mut self,
        live: &mut Live,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        Some(
            repeat(ctx, iterations, |_| {
                live.kernel.pass();
                Ok(())
            })
            .map(|()| RunOutput::default()),
        )
    }

    fn overhead_method(&self) -> Option<&'static str> {
        Some(ALONE)
    }

    fn teardown(&mut self, live: Live, _ctx: &RunContext) -> Result<()> {
        live.control.state.store(STOP, Ordering::Release);
        live.signals.go.set()?;
        match live.partner {
            Running::Thread(p) => p.join(),
            Running::Process(mut child) => {
                let status = child.wait()?;
                anyhow::ensure!(
                    Child::exited_ok(status),
                    "the partner process failed (wait status {status:#x})"
                );
                Ok(())
            }
        }
    }
}

/// Working sets (KiB) of the victim's array; `--quick` keeps the first, a cache-sized one and
/// the largest.
const WORKING_SETS_KIB: [usize; 5] = [0, 16, 256, 1024, 4096];
const QUICK_WORKING_SETS_KIB: [usize; 3] = [0, 256, 4096];
/// Partner periods (µs): 50 µs gives tens of preemptions in a 1 ms quick sample.
const PERIODS_US: [u64; 2] = [50, 500];

pub fn variants() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    for period_us in PERIODS_US {
        for partner in [PartnerKind::Thread, PartnerKind::Process] {
            for kib in WORKING_SETS_KIB {
                v.push(Box::new(Stages::new(Victim {
                    partner,
                    working_set_kib: kib,
                    period_us,
                    in_quick: period_us == PERIODS_US[0] && QUICK_WORKING_SETS_KIB.contains(&kib),
                    policy: None,
                })));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_visits_every_line_of_a_power_of_two_array_over_time() {
        let mut k = Kernel::new(16); // 256 lines
        let mut seen = std::collections::HashSet::new();
        for _ in 0..STEPS / 16 {
            seen.insert(k.line);
            k.line = (k.line + STRIDE_LINES) % 256;
        }
        assert_eq!(seen.len(), 256);
        assert_ne!(Kernel::new(0).pass(), Kernel::new(0).state);
    }

    #[test]
    fn the_partner_counts_wakeups_only_while_active_and_stops() {
        let ctx = crate::support::test_context();
        for partner in [PartnerKind::Thread, PartnerKind::Process] {
            let mut v = Victim {
                partner,
                working_set_kib: 0,
                period_us: 50,
                in_quick: true,
                policy: None,
            };
            let live = v.setup(&ctx).unwrap();
            live.control.state.store(ACTIVE, Ordering::Release);
            live.signals.go.set().unwrap();
            std::thread::sleep(Duration::from_millis(5));
            live.park().unwrap();
            let woke = live.control.wakes.load(Ordering::Relaxed);
            assert!(woke > 0, "{partner:?}");
            std::thread::sleep(Duration::from_millis(2));
            assert_eq!(
                live.control.wakes.load(Ordering::Relaxed),
                woke,
                "{partner:?}"
            );
            v.teardown(live, &ctx).unwrap();
        }
    }
}
