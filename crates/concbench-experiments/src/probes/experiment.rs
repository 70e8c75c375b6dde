//! One experiment for every probe variant: start the probe in setup, one request per sample,
//! stop it in teardown. The probe times its own loop; the harness keeps repetitions, statistics,
//! pinning (the probe inherits the variant's CPUs) and the result document.

use super::variants::{Arg, Size, Variant, BATCH_REPETITIONS};
use anyhow::{bail, Context, Result};
use concbench_core::{
    Experiment, Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Support,
};
use concbench_measure::{HarnessConfig, PinMode};
use concbench_probes::build::{self, Launch};
use concbench_probes::process::ProbeProcess;
use concbench_probes::protocol::{Answer, Request, VERSION};
use concbench_probes::toolchain::{discover, Runtime, Search, Toolchain};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The first Java release with virtual threads.
const JAVA_VIRTUAL_FEATURE: u32 = 21;

pub struct ProbeExperiment {
    variant: Variant,
    search: Search,
    /// A program given up front (tests, custom probes) instead of the built one.
    launch: Option<Launch>,
    probe: Option<ProbeProcess>,
    version: Option<String>,
    /// What the build wants the user to know (a probe cache that had to move).
    build_note: Option<String>,
    /// Iterations per sample chosen in setup for calibrated variants.
    calibrated: Option<u64>,
}

impl ProbeExperiment {
    /// The variant, with toolchains found as `CONCBENCH_PROBE_SEARCH` or the usual places say.
    pub fn new(variant: Variant) -> Self {
        Self::with_search(variant, Search::from_env())
    }

    pub fn with_search(variant: Variant, search: Search) -> Self {
        Self {
            variant,
            search,
            launch: None,
            probe: None,
            version: None,
            build_note: None,
            calibrated: None,
        }
    }

    /// The variant served by a given program that speaks the protocol, instead of the built probe.
    pub fn with_launch(variant: Variant, launch: Launch) -> Self {
        Self {
            launch: Some(launch),
            ..Self::new(variant)
        }
    }

    fn label(&self) -> String {
        format!("the {} probe", self.variant.runtime.name())
    }

    /// The probe's build (made now on first use, `say` told before), and how to start it.
    fn prepare(&self, say: &mut dyn FnMut(&str)) -> Result<build::Prepared> {
        let tc = self.toolchain().map_err(anyhow::Error::msg)?;
        build::prepare(&build::Recipe::plain(&tc), self.variant.flags, say)
    }

    /// The toolchain, or the one-line reason this variant cannot run here.
    fn toolchain(&self) -> Result<Toolchain, String> {
        let runtime = self.variant.runtime;
        let tc = discover(runtime, &self.search)
            .map_err(|why| format!("{} probe: {why}", runtime.name()))?;
        let virtual_threads = self
            .variant
            .args
            .iter()
            .any(|(k, a)| *k == "thread_kind" && matches!(a, Arg::Str("virtual")));
        let feature = tc.java_feature.unwrap_or(0);
        if runtime == Runtime::Java && virtual_threads && feature < JAVA_VIRTUAL_FEATURE {
            return Err(format!(
                "java probe: virtual threads need Java {JAVA_VIRTUAL_FEATURE} or later; the newest JDK found is {feature} ({})",
                tc.home.as_deref().unwrap_or(tc.tool.as_path()).display()
            ));
        }
        Ok(tc)
    }

    /// What the probe is sent: the variant's args plus where it may write files.
    fn request_args(&self, ctx: &RunContext) -> serde_json::Map<String, serde_json::Value> {
        let mut args: serde_json::Map<_, _> = self
            .variant
            .args
            .iter()
            .map(|(k, a)| (k.to_string(), arg_json(*a)))
            .collect();
        args.insert(
            "scratch".into(),
            ctx.scratch_dir.to_string_lossy().into_owned().into(),
        );
        args
    }

    fn ask(&mut self, ctx: &RunContext, iterations: u64) -> Result<Answer> {
        let args = self.request_args(ctx);
        let probe = self
            .probe
            .as_mut()
            .context("setup did not start the probe")?;
        probe.request(
            &Request {
                v: VERSION,
                id: self.variant.what,
                iterations,
                args: &args,
            },
            &ctx.cancel,
        )
    }

    /// Untimed runs before the first sample, so a JIT has compiled the loop and caches are
    /// warm; for calibrated variants they also choose the iterations per sample. One small batch
    /// for fixed plans.
    fn warm_up(&mut self, ctx: &RunContext) -> Result<()> {
        match self.variant.size.warmup_batch() {
            Some(_) if ctx.smoke => Ok(()),
            Some(batch) => self.ask(ctx, batch).map(|_| ()),
            None => {
                self.calibrated = Some(self.calibrate(ctx)?);
                Ok(())
            }
        }
    }

    /// Calibrate on the probe's own clock: grow the count until the probe's loop lasts a
    /// quarter of the target sample time, at least three answers were seen and the warm-up budget
    /// is spent, then size samples to the target from the fastest per-operation time seen in a
    /// loop of meaningful length (one preempted or cold request must not shrink every sample).
    /// The harness's calibration would time whole requests, which include untimed per-request
    /// preparation (forking a partner, starting a pool) and IPC, and so would pick samples whose
    /// timed loop is far shorter than the target.
    fn calibrate(&mut self, ctx: &RunContext) -> Result<u64> {
        let target_ns = target_sample_ns(ctx);
        let budget_ns = if ctx.smoke {
            0.0
        } else {
            warmup_budget_ns(self.variant.runtime, ctx.quick)
        };
        let (mut spent, mut n, mut fastest, mut asked) = (0.0, 1u64, f64::INFINITY, 0);
        loop {
            ctx.cancel.check()?;
            let a = self.ask(ctx, n)?;
            asked += 1;
            let ops = if a.ops == 0 { n } else { a.ops };
            let loop_ns = a.ns_per_op * ops as f64;
            spent += loop_ns;
            if loop_ns >= target_ns / 100.0 || fastest.is_infinite() {
                fastest = fastest.min(a.ns_per_op.max(1e-3));
            }
            let sized =
                ((target_ns / fastest * 1.05).ceil() as u64).max(self.variant.min_iterations);
            let long_enough = loop_ns >= target_ns / 4.0;
            if long_enough && asked >= MIN_CALIBRATION_ANSWERS && spent >= budget_ns {
                return Ok(sized);
            }
            if n >= MAX_ITERATIONS {
                bail!("{} never reached a {target_ns} ns loop", self.label());
            }
            // Long enough: stay near the target size while warming up. Before that, grow at most
            // 10x per step (a slow first call must not make the next one huge).
            let grown = sized.clamp(n.saturating_mul(2), n.saturating_mul(10));
            n = if long_enough { sized.max(n) } else { grown }.min(MAX_ITERATIONS);
        }
    }

    /// The sample value in the variant's unit.
    fn value(&self, a: &Answer) -> Result<f64> {
        let unit = self.variant.meta.unit;
        match concbench_core::unit::ns_per(unit) {
            Some(per_ns) => Ok(a.ns_per_op / per_ns),
            None => a
                .value
                .with_context(|| format!("{} answered no value in {unit}", self.label())),
        }
    }
}

fn arg_json(a: Arg) -> serde_json::Value {
    match a {
        Arg::Str(s) => s.into(),
        Arg::Int(i) => i.into(),
    }
}

/// Calibration asks at least this many times before it sizes samples.
const MIN_CALIBRATION_ANSWERS: u32 = 3;

/// The largest count calibration will ask for.
const MAX_ITERATIONS: u64 = 1 << 40;

/// The harness's target sample time for this run (one definition: the harness's own).
fn target_sample_ns(ctx: &RunContext) -> f64 {
    let config = HarnessConfig {
        quick: ctx.quick,
        smoke: ctx.smoke,
        repetitions: None,
        pin: PinMode::Auto,
    };
    config.target_sample().as_nanos() as f64
}

/// Warm-up time: a JVM needs its JIT to have compiled the loop; others only warm caches.
fn warmup_budget_ns(runtime: Runtime, quick: bool) -> f64 {
    let ms = match (runtime, quick) {
        (Runtime::Java, true) => 100.0,
        (Runtime::Java, false) => 500.0,
        (_, true) => 5.0,
        (_, false) => 20.0,
    };
    ms * 1e6
}

/// A name for the probe's stderr file, unique within this process.
fn stderr_name(runtime: Runtime) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("probe-{}-{}-{n}.stderr", runtime.name(), std::process::id())
}

impl Experiment for ProbeExperiment {
    fn meta(&self) -> &Meta {
        &self.variant.meta
    }

    fn params(&self) -> Params {
        let runtime = Params::new().with("runtime", self.variant.runtime.name());
        self.variant
            .args
            .iter()
            .fold(runtime, |p, (k, a)| p.with(k, arg_json(*a)))
    }

    fn placement(&self) -> Placement {
        self.variant.placement
    }

    fn in_quick(&self) -> bool {
        self.variant.in_quick
    }

    fn supported(&self, _host: &Host) -> Support {
        if self.launch.is_some() {
            return Support::Yes;
        }
        match self.toolchain() {
            Ok(_) => Support::Yes,
            Err(reason) => Support::No(reason),
        }
    }

    fn plan(&self, ctx: &RunContext) -> Plan {
        match self.calibrated {
            Some(n) => Plan::Fixed(n),
            None => self.variant.size.plan(ctx),
        }
    }

    fn max_repetitions(&self, _ctx: &RunContext) -> Option<usize> {
        matches!(self.variant.size, Size::Batch { .. }).then_some(BATCH_REPETITIONS)
    }

    fn build_ahead(&self, say: &mut dyn FnMut(&str)) -> Result<()> {
        if self.launch.is_some() {
            return Ok(());
        }
        self.prepare(say).map(|_| ())
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        let launch = match &self.launch {
            Some(l) => l.clone(),
            None => {
                let built = self.prepare(&mut |_| {})?;
                self.build_note = built.note;
                built.launch
            }
        };
        let stderr = ctx.scratch_dir.join(stderr_name(self.variant.runtime));
        let probe = ProbeProcess::start(&self.label(), &launch, &ctx.cpus, stderr, &ctx.cancel)?;
        if !probe
            .hello
            .experiments
            .iter()
            .any(|e| e == self.variant.what)
        {
            bail!(
                "{} does not offer '{}' (it offers {})",
                self.label(),
                self.variant.what,
                probe.hello.experiments.join(", ")
            );
        }
        self.version = Some(probe.hello.version.clone());
        self.probe = Some(probe);
        self.warm_up(ctx).context("warming up")
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let a = self.ask(ctx, iterations)?;
        let mut out = RunOutput {
            value: Some(self.value(&a)?),
            metrics: a.metrics.clone().into_iter().collect(),
            warnings: self.build_note.iter().cloned().collect(),
            ..RunOutput::default()
        };
        if let Some(usage) = &a.usage {
            // The harness divides by `iterations`; the probe may have rounded (whole round trips).
            let ops = if a.ops == 0 { iterations } else { a.ops };
            out.extra_usage = Some(usage.scaled(iterations as f64 / ops as f64));
            if !usage.has_switches() && self.variant.meta.expected_switches_per_op.is_some() {
                out.warnings.push(format!(
                    "{} cannot count context switches here ({}): switches/op shows only concbench's own; use a newer runtime to verify the mechanism",
                    self.label(),
                    self.version.as_deref().unwrap_or("unknown version")
                ));
            }
        }
        Ok(out)
    }

    fn info(&self) -> BTreeMap<String, String> {
        concbench_probes::runtime_info(self.version.as_deref())
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        match self.probe.take() {
            Some(p) => p.stop(),
            None => Ok(()),
        }
    }
}
