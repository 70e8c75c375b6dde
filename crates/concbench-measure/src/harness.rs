//! The harness: one loop that measures every experiment the same way.
//!
//! For each variant: check support, choose and pin CPUs, set up, calibrate (warming up on the
//! way), take the repetitions — interleaving the method-overhead measurement when there is one —
//! reading resource usage around each sample, and always tear down. Panics and errors become a
//! recorded failure; the next experiment still runs.

use crate::{calibrate::calibrate, clock::Stopwatch, cpus};
use anyhow::{anyhow, Context, Result};
use concbench_core::{
    CancelToken, Experiment, Failure, Host, Outcome, Placement, Plan, RawMeasurement, RunContext,
    RunOutput, Skipped, Support, Usage,
};
use concbench_sys::AffinityGuard;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `--pin`: whether the harness pins variants as they ask, or leaves everything to the scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PinMode {
    Auto,
    None,
}

/// How one worker measures one round of a variant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HarnessConfig {
    pub quick: bool,
    /// Tests: one repetition of a few iterations, just to prove an experiment works.
    pub smoke: bool,
    /// `--repeat`: samples per round, overriding the default.
    pub repetitions: Option<usize>,
    pub pin: PinMode,
}

impl HarnessConfig {
    /// Samples per round. Few: the round, not the sample, is the unit of evidence (samples
    /// inside one worker measure its precision, not what a rerun would show).
    pub fn repetitions(&self) -> usize {
        self.repetitions.unwrap_or(if self.smoke {
            1
        } else if self.quick {
            3
        } else {
            5
        })
    }

    /// The minimum duration of one sample (methodology: 10 ms, 1 ms in `--quick`).
    pub fn target_sample(&self) -> Duration {
        if self.smoke {
            Duration::from_micros(200)
        } else if self.quick {
            Duration::from_millis(1)
        } else {
            Duration::from_millis(10)
        }
    }

    /// Time spent running the operation before the first sample counts.
    pub fn warmup(&self) -> Duration {
        if self.smoke {
            Duration::ZERO
        } else if self.quick {
            Duration::from_millis(5)
        } else {
            Duration::from_millis(50)
        }
    }
}

pub use concbench_core::MIN_OPERATIONS_PER_SAMPLE;

/// What the harness is doing, for progress displays.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum HarnessEvent {
    Calibrating,
    Sample { done: usize, total: usize },
}

pub struct Harness {
    pub config: HarnessConfig,
    pub host: Arc<Host>,
    pub cancel: CancelToken,
    pub scratch_dir: PathBuf,
    pub options: BTreeMap<String, String>,
}

/// One timed call: per-operation value, wall time, usage and the experiment's output.
struct Timed {
    elapsed: Duration,
    usage: Usage,
    output: RunOutput,
}

/// The placement a variant actually gets under a pin mode, on the CPUs this process may use.
///
/// "Unpinned" on a single allowed CPU (`taskset -c 0`, a one-CPU cgroup) is same-cpu in
/// fact: every unit runs on that CPU, so it is labelled — and pinned — as such, and a
/// comparison with an unpinned run elsewhere never matches it.
pub fn effective_placement(exp: &dyn Experiment, pin: PinMode, allowed: &[usize]) -> Placement {
    let asked = match pin {
        PinMode::Auto => exp.placement(),
        PinMode::None => Placement::Unpinned,
    };
    if asked == Placement::Unpinned && allowed.len() == 1 {
        Placement::SameCpu
    } else {
        asked
    }
}

/// The variant's params as recorded: its own plus `placement` (and, for a cross-CPU variant on
/// a named pair, `pair_class` and `numa_distance`: see [`crate::cpus::pair_params`]).
pub fn recorded_params(
    exp: &dyn Experiment,
    pin: PinMode,
    allowed: &[usize],
) -> concbench_core::Params {
    let placement = effective_placement(exp, pin, allowed);
    crate::cpus::pair_params(
        exp.params().with("placement", placement.as_str()),
        placement,
        exp.cpu_pair(),
    )
}

impl Harness {
    fn context(&self, placement: Placement, cpus: Vec<usize>) -> RunContext {
        RunContext {
            quick: self.config.quick,
            smoke: self.config.smoke,
            placement,
            cpus,
            cancel: self.cancel.clone(),
            host: self.host.clone(),
            scratch_dir: self.scratch_dir.clone(),
            options: self.options.clone(),
        }
    }

    /// Measure one variant. Never panics; every problem is in the returned [`Outcome`].
    pub fn measure(
        &self,
        exp: &mut dyn Experiment,
        on_event: &mut dyn FnMut(HarnessEvent),
    ) -> Outcome {
        let placed = match self.place(exp) {
            Ok(p) => p,
            Err(skipped) => return skipped,
        };
        let measured = self.measure_pinned(exp, &placed.ctx, on_event);
        placed.outcome(exp, measured, self.config.target_sample())
    }

    /// Set `exp` up once for several rounds (`Experiment::rounds_per_setup`): checked, placed
    /// and pinned as [`Harness::measure`] does, set up now; each [`Opened::round`] then takes
    /// the samples of one round, and [`Opened::close`] tears down. A variant that cannot run
    /// here, or whose setup fails, is the first round's outcome instead.
    pub fn open<'a>(&'a self, exp: &'a mut dyn Experiment) -> Result<Opened<'a>, Outcome> {
        let placed = self.place(exp)?;
        let pin = match AffinityGuard::pin(&placed.ctx.cpus[..placed.ctx.cpus.len().min(1)]) {
            Ok(p) => p,
            Err(e) => {
                let e = e.context("pinning the harness thread");
                return Err(placed.outcome(exp, Err(e), self.config.target_sample()));
            }
        };
        let started = Instant::now();
        if let Err(e) = guarded(|| exp.setup(&placed.ctx).context("setup")) {
            // As `measure` does: a setup that failed half-way is torn down too.
            let _ = guarded(|| exp.teardown(&placed.ctx).context("teardown"));
            return Err(placed.outcome(exp, Err(e), self.config.target_sample()));
        }
        Ok(Opened {
            harness: self,
            setup_s: Some(started.elapsed().as_secs_f64()),
            exp,
            placed,
            torn_down: false,
            _pin: pin,
        })
    }

    /// Where `exp` runs under this harness, or the outcome that it cannot run here.
    fn place(&self, exp: &dyn Experiment) -> Result<Placed, Outcome> {
        let meta = exp.meta().clone();
        let allowed = &self.host.cpus_allowed;
        let placement = effective_placement(exp, self.config.pin, allowed);
        let params = recorded_params(exp, self.config.pin, allowed);
        let skipped = |reason: String| {
            Outcome::Skipped(Skipped {
                id: meta.id.to_string(),
                params: params.clone(),
                reason,
            })
        };
        if let Support::No(reason) = exp.supported(&self.host) {
            return Err(skipped(reason));
        }
        let cpus = match cpus::choose_for(placement, exp.cpu_pair(), &self.host.cpus_allowed) {
            Ok(c) => c,
            Err(reason) => return Err(skipped(reason)),
        };
        Ok(Placed {
            ctx: self.context(placement, cpus.clone()),
            meta,
            params,
            cpus,
        })
    }

    /// Samples for this round: the configured number, capped by the variant (long batches take
    /// one per round) unless the user asked for a number.
    fn repetitions_for(&self, exp: &dyn Experiment, ctx: &RunContext) -> usize {
        let default = self.config.repetitions();
        let cap = match exp.plan(ctx) {
            Plan::Once => Some(1),
            _ => exp.max_repetitions(ctx),
        };
        match (self.config.repetitions, cap) {
            (None, Some(cap)) => default.min(cap.max(1)),
            _ => default,
        }
    }

    /// Pin, set up, sample, and always tear down.
    fn measure_pinned(
        &self,
        exp: &mut dyn Experiment,
        ctx: &RunContext,
        on_event: &mut dyn FnMut(HarnessEvent),
    ) -> Result<(u64, Samples)> {
        let _pin = AffinityGuard::pin(&ctx.cpus[..ctx.cpus.len().min(1)])
            .context("pinning the harness thread")?;
        let started = Instant::now();
        let result = guarded(|| exp.setup(ctx).context("setup"))
            .map(|()| started.elapsed())
            .and_then(|setup| {
                let (iterations, mut samples) = guarded(|| self.sample_loop(exp, ctx, on_event))?;
                // What setup spent on what later rounds reuse is left out of a round's price
                // by the planner (Experiment::prepared_for_later).
                if exp.prepared_for_later() {
                    samples.prepared_s = setup.as_secs_f64();
                }
                Ok((iterations, samples))
            });
        let teardown = guarded(|| exp.teardown(ctx).context("teardown"));
        let measured = result?;
        teardown?;
        Ok(measured)
    }

    fn sample_loop(
        &self,
        exp: &mut dyn Experiment,
        ctx: &RunContext,
        on_event: &mut dyn FnMut(HarnessEvent),
    ) -> Result<(u64, Samples)> {
        on_event(HarnessEvent::Calibrating);
        let iterations = match exp.plan(ctx) {
            Plan::Fixed(n) => n.max(1),
            Plan::Once => 1,
            Plan::Calibrated => calibrate(
                |n| {
                    ctx.cancel.check()?;
                    Ok(time_once(exp, ctx, n, false)?.elapsed)
                },
                self.config.target_sample(),
                self.config.warmup(),
            )
            .context("calibration")?
            .max(MIN_OPERATIONS_PER_SAMPLE),
        };
        let reps = self.repetitions_for(exp, ctx);
        let mut samples = Samples {
            ns_per_unit: ns_per_unit(exp.meta().unit),
            ..Samples::default()
        };
        for done in 0..reps {
            ctx.cancel.check()?;
            on_event(HarnessEvent::Sample { done, total: reps });
            exp.before_sample(ctx).context("before_sample")?;
            let timed = time_once(exp, ctx, iterations, false)?;
            samples.push(iterations, timed);
            if exp.overhead_method().is_some() {
                let overhead = time_once(exp, ctx, iterations, true)?;
                samples.push_overhead(
                    exp.overhead_method().unwrap_or_default(),
                    iterations,
                    overhead,
                );
            }
        }
        on_event(HarnessEvent::Sample {
            done: reps,
            total: reps,
        });
        samples.info = exp.info();
        Ok((iterations, samples))
    }
}

/// Run `iterations` of the operation (or of its overhead) under a fresh stopwatch.
fn time_once(
    exp: &mut dyn Experiment,
    ctx: &RunContext,
    iterations: u64,
    overhead: bool,
) -> Result<Timed> {
    let mut sw = Stopwatch::started();
    let output = if overhead {
        exp.run_overhead(ctx, iterations, &mut sw)
            .ok_or_else(|| anyhow!("overhead_method is set but run_overhead is not implemented"))?
            .context("measuring the method overhead")?
    } else {
        exp.run(ctx, iterations, &mut sw)?
    };
    let (elapsed, usage) = sw.finish();
    let usage = match output.extra_usage {
        Some(extra) => usage.plus(&extra),
        None => usage,
    };
    Ok(Timed {
        elapsed,
        usage,
        output,
    })
}

/// Run `f`, turning a panic into an error so one broken experiment cannot end the run.
fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(anyhow!("panicked: {msg}"))
        }
    }
}

/// Nanoseconds in one `unit` when the unit is a time (`us`, `ms`, `s`: batch experiments report
/// seconds per batch), so the harness's time per operation comes out in the declared unit; 1
/// for `ns` and for units that are not times (those experiments supply their own value).
fn ns_per_unit(unit: &str) -> f64 {
    concbench_core::unit::ns_per(unit).unwrap_or(1.0)
}

/// Samples accumulated over the repetitions.
#[derive(Default)]
struct Samples {
    /// See [`ns_per_unit`].
    ns_per_unit: f64,
    values: Vec<f64>,
    sample_ns: Vec<f64>,
    usage_per_op: Vec<Usage>,
    metrics: BTreeMap<String, Vec<f64>>,
    warnings: Vec<String>,
    overhead: Option<(String, Vec<f64>)>,
    info: BTreeMap<String, String>,
    /// The seconds `setup` took when [`Experiment::prepared_for_later`] says it made what later
    /// rounds reuse; 0 otherwise.
    prepared_s: f64,
    /// Seconds of `setup` in this round, for a variant set up once for several rounds.
    setup_s: f64,
    /// The warm-up the experiment handed over with a sample.
    warmup: Option<concbench_core::Warmup>,
}

impl Samples {
    fn push(&mut self, iterations: u64, t: Timed) {
        let n = iterations as f64;
        let ops = t.output.operations.map_or(n, |o| o.max(1) as f64);
        let value = t
            .output
            .value
            .unwrap_or(t.elapsed.as_nanos() as f64 / n / self.ns_per_unit);
        self.values.push(value);
        self.sample_ns.push(t.elapsed.as_nanos() as f64);
        self.usage_per_op.push(t.usage.per(ops));
        for (name, v) in t.output.metrics {
            self.metrics.entry(name).or_default().push(v);
        }
        for w in t.output.warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
        if self.warmup.is_none() {
            self.warmup = t.output.warmup;
        }
    }

    fn push_overhead(&mut self, method: &str, iterations: u64, t: Timed) {
        let value = t
            .output
            .value
            .unwrap_or(t.elapsed.as_nanos() as f64 / iterations as f64 / self.ns_per_unit);
        self.overhead
            .get_or_insert_with(|| (method.to_string(), Vec::new()))
            .1
            .push(value);
    }

    fn into_raw(
        self,
        meta: concbench_core::Meta,
        params: concbench_core::Params,
        cpus: Vec<usize>,
        iterations: u64,
        target: Duration,
    ) -> RawMeasurement {
        RawMeasurement {
            meta,
            params,
            cpus,
            iterations,
            values: self.values,
            sample_ns: self.sample_ns,
            usage_per_op: self.usage_per_op,
            metrics: self.metrics,
            overhead: self.overhead,
            warnings: self.warnings,
            target_sample_ns: target.as_nanos() as f64,
            info: self.info,
            calibrated: false,
            prepared_s: self.prepared_s,
            setup_s: self.setup_s,
            warmup: self.warmup,
        }
    }
}

/// A variant checked and placed: its context, and what its outcome records.
struct Placed {
    ctx: RunContext,
    meta: concbench_core::Meta,
    params: concbench_core::Params,
    cpus: Vec<usize>,
}

impl Placed {
    fn outcome(
        &self,
        exp: &dyn Experiment,
        measured: Result<(u64, Samples)>,
        target: Duration,
    ) -> Outcome {
        match measured {
            Ok((iterations, samples)) => {
                let mut raw = samples.into_raw(
                    self.meta.clone(),
                    self.params.clone(),
                    self.cpus.clone(),
                    iterations,
                    target,
                );
                raw.calibrated = exp.plan(&self.ctx) == Plan::Calibrated;
                Outcome::Measured(Box::new(raw))
            }
            Err(e) => Outcome::Failed(Failure {
                id: self.meta.id.to_string(),
                params: self.params.clone(),
                error: format!("{e:#}"),
            }),
        }
    }
}

/// A variant set up once and measured in several rounds ([`Harness::open`]), pinned for its
/// whole life. Dropped without [`Opened::close`] (an early return, a panic), it still tears
/// down: what setup started (a server) never outlives it.
pub struct Opened<'a> {
    harness: &'a Harness,
    exp: &'a mut dyn Experiment,
    placed: Placed,
    /// The setup's seconds, until the first round records them.
    setup_s: Option<f64>,
    torn_down: bool,
    _pin: AffinityGuard,
}

impl Opened<'_> {
    /// One round's samples on what `setup` prepared. A failed round leaves the variant to be
    /// closed.
    pub fn round(&mut self, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome {
        let sampled = guarded(|| {
            self.harness
                .sample_loop(self.exp, &self.placed.ctx, on_event)
        })
        .map(|(iterations, mut samples)| {
            samples.setup_s = self.setup_s.take().unwrap_or(0.0);
            (iterations, samples)
        });
        self.placed
            .outcome(self.exp, sampled, self.harness.config.target_sample())
    }

    /// Tear down what `setup` prepared.
    pub fn close(mut self) -> Result<()> {
        self.teardown()
    }

    fn teardown(&mut self) -> Result<()> {
        self.torn_down = true;
        guarded(|| self.exp.teardown(&self.placed.ctx).context("teardown"))
    }
}

impl Drop for Opened<'_> {
    fn drop(&mut self) {
        if !self.torn_down {
            let _ = self.teardown();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Meta, SampleTimer};

    const MS_META: Meta = Meta {
        id: "t.batch",
        family: "t",
        title: "a batch reported in milliseconds",
        op: "sleep 3 ms",
        unit: "ms",
        expected_switches_per_op: None,
    };

    struct SleepBatch;

    impl Experiment for SleepBatch {
        fn meta(&self) -> &Meta {
            &MS_META
        }
        fn plan(&self, _ctx: &RunContext) -> Plan {
            Plan::Fixed(1)
        }
        fn run(&mut self, _: &RunContext, _: u64, _: &mut dyn SampleTimer) -> Result<RunOutput> {
            std::thread::sleep(Duration::from_millis(3));
            Ok(RunOutput::default())
        }
    }

    /// A batch whose setup (20 ms) made something later rounds reuse (as the io family's data
    /// files).
    struct PreparedBatch;

    impl Experiment for PreparedBatch {
        fn meta(&self) -> &Meta {
            &MS_META
        }
        fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
            std::thread::sleep(Duration::from_millis(20));
            Ok(())
        }
        fn plan(&self, _ctx: &RunContext) -> Plan {
            Plan::Once
        }
        fn run(&mut self, _: &RunContext, _: u64, _: &mut dyn SampleTimer) -> Result<RunOutput> {
            Ok(RunOutput::default())
        }
        fn prepared_for_later(&self) -> bool {
            true
        }
    }

    /// A harness of one unpinned repetition per variant.
    fn harness() -> Harness {
        Harness {
            config: HarnessConfig {
                quick: true,
                smoke: false,
                repetitions: Some(1),
                pin: PinMode::None,
            },
            host: Arc::new(Host {
                cpus_allowed: concbench_sys::allowed_cpus().unwrap(),
                ..Host::default()
            }),
            cancel: CancelToken::new(),
            scratch_dir: std::env::temp_dir(),
            options: BTreeMap::new(),
        }
    }

    #[test]
    fn time_per_op_is_reported_in_the_declared_time_unit() {
        assert_eq!(ns_per_unit("s"), 1e9);
        assert_eq!(ns_per_unit("ns"), 1.0);
        assert_eq!(ns_per_unit("KiB"), 1.0);
        let Outcome::Measured(raw) = harness().measure(&mut SleepBatch, &mut |_| {}) else {
            panic!("not measured");
        };
        // A 3 ms sleep is >= 3 in ms; in ns it would be >= 3,000,000.
        assert!(
            raw.values[0] >= 3.0 && raw.values[0] < 1e5,
            "{:?}",
            raw.values
        );
    }

    #[test]
    fn what_setup_made_for_later_rounds_reaches_the_measurement() {
        let measured = |exp: &mut dyn Experiment| match harness().measure(exp, &mut |_| {}) {
            Outcome::Measured(raw) => raw.prepared_s,
            other => panic!("not measured: {other:?}"),
        };
        // The harness times setup; a sleep lasts at least what it asked, so this cannot flake.
        assert!(measured(&mut PreparedBatch) >= 0.02);
        assert_eq!(measured(&mut SleepBatch), 0.0);
    }
}
