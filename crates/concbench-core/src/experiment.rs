//! The contract between an experiment and the harness.
//!
//! An experiment says *what* one operation is and performs `iterations` of them; the harness owns
//! warm-up, calibration, repetitions, pinning, counters and statistics (lmbench's init / bench /
//! cleanup split). An experiment never reads a clock for the sample itself: the harness times
//! each call to [`Experiment::run`] through a [`SampleTimer`], which the experiment may restart
//! after untimed preparation or stop before untimed cleanup.

use crate::{
    context::RunContext,
    host::Host,
    params::Params,
    placement::{CpuPair, Placement},
    usage::Usage,
};

/// Static description of an experiment.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// `family.what[.variant]`, e.g. `create.fork`. Parameters go in [`Experiment::params`].
    pub id: &'static str,
    /// The family: the first component of the id, used by `--only`.
    pub family: &'static str,
    /// A one-line human title.
    pub title: &'static str,
    /// What one operation is ("fork + child _exit(0) + waitpid").
    pub op: &'static str,
    /// The unit of one sample value, e.g. `ns` (per operation), `s`, `KiB`, `threads`.
    pub unit: &'static str,
    /// For switch-type experiments: the voluntary context switches one operation must cause.
    /// The harness warns when the measured rate is far below it (the mechanism did not happen).
    pub expected_switches_per_op: Option<f64>,
}

/// How the harness chooses the number of iterations per sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Calibrate so one sample lasts at least the target sample time (10 ms, 1 ms in `--quick`).
    Calibrated,
    /// Exactly this many iterations per sample (batch experiments, fixed-size replications).
    Fixed(u64),
    /// One iteration and one sample per round (a whole batch, a count that does not vary): the
    /// round, a fresh worker, is the replicate. An explicit `--repeat` still takes more samples.
    Once,
}

/// Whether an experiment can run on this host, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    Yes,
    /// Skipped, with a one-line reason the user can act on ("needs root: run with sudo ...").
    No(String),
}

/// What one call of [`Experiment::run`] returns besides its duration.
#[derive(Debug, Clone, Default)]
pub struct RunOutput {
    /// The sample value in the experiment's unit, replacing the harness's time per operation.
    /// Used by experiments whose result is not a time (bytes per unit, a count).
    pub value: Option<f64>,
    /// Resource usage of helper processes that are still alive (so not in RUSAGE_CHILDREN),
    /// read by the experiment over the sample. The harness adds it to its own reading.
    pub extra_usage: Option<Usage>,
    /// Extra per-sample metrics; the harness reports the median of each in `counters`. A metric
    /// named `bytes_per_op` (data moved per operation) also yields `throughput_mib_s` there.
    pub metrics: Vec<(String, f64)>,
    /// Things the experiment noticed about this sample (deduplicated into the result's warnings).
    pub warnings: Vec<String>,
    /// How many operations the sample really performed, when that is only known afterwards
    /// (a load run of fixed duration completes as many requests as the server allows). The
    /// harness then divides the sample's resource usage by it instead of by `iterations`.
    pub operations: Option<u64>,
    /// The warm-up `setup` ran before this sample (a server's series to steady state), handed
    /// over once, with the first sample after it; the harness records it on the round.
    pub warmup: Option<crate::Warmup>,
}

impl RunOutput {
    pub fn metric(mut self, name: &str, value: f64) -> Self {
        self.metrics.push((name.to_string(), value));
        self
    }
}

/// The harness's clock for one sample, handed to [`Experiment::run`].
///
/// The harness restarts it right before `run` and stops it right after, unless the experiment
/// already stopped it. An experiment with untimed preparation (spawning workers, then releasing
/// them through a start barrier) calls `restart` at the barrier; one with untimed cleanup calls
/// `stop` before it. Resource usage is read at the same two points.
pub trait SampleTimer {
    fn restart(&mut self);
    fn stop(&mut self);
}

/// One measurable variant: an id plus params.
///
/// The registry builds one value per variant (e.g. `create.thread` at two stack sizes). The
/// harness calls, in order: `supported`, `setup`, then `run` repeatedly (with `before_sample`
/// before each), and always `teardown` once `setup` succeeded — also after an error or Ctrl-C.
pub trait Experiment: Send {
    fn meta(&self) -> &Meta;

    /// Parameters of this variant, without `placement` (the harness adds it).
    fn params(&self) -> Params {
        Params::new()
    }

    /// Where this variant's units run under `--pin auto`. `--pin none` turns every placement
    /// into [`Placement::Unpinned`].
    fn placement(&self) -> Placement {
        Placement::SameCpu
    }

    /// For a cross-CPU variant: the two CPUs it runs on, chosen from the machine's topology (one
    /// variant per class of pair). `None` lets the harness take the two highest-numbered CPUs.
    fn cpu_pair(&self) -> Option<CpuPair> {
        None
    }

    /// Whether this variant runs in `--quick` (sweeps keep a subset of their points).
    fn in_quick(&self) -> bool {
        true
    }

    /// Whether what is read from this variant is a difference with other variants taken pass
    /// by pass (the anatomy's layers): then every variant of its run needs its rounds in the
    /// same passes, as a verdict's do, and the run gives them all a verdict's rounds.
    fn paired(&self) -> bool {
        false
    }

    fn supported(&self, _host: &Host) -> Support {
        Support::Yes
    }

    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Calibrated
    }

    /// For long fixed batches (seconds per sample): the most samples worth taking in one round
    /// (a fresh worker); [`Plan::Once`] already means one. The harness takes `min(default, cap)`, at least 1, and an explicit
    /// `--repeat` from the user always wins. More evidence comes from more rounds, not more
    /// samples in one.
    fn max_repetitions(&self, _ctx: &RunContext) -> Option<usize> {
        None
    }

    /// Build, before the run starts, what this variant compiles on first use (a probe in
    /// another language), calling `say` right before a build begins.
    ///
    /// Why ahead: a build inside the first round (seconds; a minute for Go's `net/http` on a
    /// cold build cache) counts in that round's time and in the run's budget, so the first run
    /// after a fresh clone got fewer adaptive rounds than the next one — and could decide
    /// differently. A variant not built ahead is built by its round as before, and an error
    /// here is left for the round to report as its failure.
    fn build_ahead(&self, _say: &mut dyn FnMut(&str)) -> anyhow::Result<()> {
        Ok(())
    }

    /// Prepare: spawn partners, allocate buffers, create files. Not timed. An experiment whose
    /// samples need what it prepared implements [`crate::Staged`] instead, whose `setup` returns
    /// that state, and is registered through [`crate::Stages`].
    fn setup(&mut self, _ctx: &RunContext) -> anyhow::Result<()> {
        Ok(())
    }

    /// Untimed work before each sample (e.g. dropping a file's cached pages).
    fn before_sample(&mut self, _ctx: &RunContext) -> anyhow::Result<()> {
        Ok(())
    }

    /// Perform `iterations` operations. Timed by the harness through `timer`.
    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> anyhow::Result<RunOutput>;

    /// The cost of the method itself per operation (a pipe write+read in a ring of pipes),
    /// measured in the same run, interleaved with `run`, and subtracted from the result.
    /// `None` when the method has no separable overhead.
    fn run_overhead(
        &mut self,
        _ctx: &RunContext,
        _iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Option<anyhow::Result<RunOutput>> {
        None
    }

    /// A description of what `run_overhead` measures, shown with the subtracted figure.
    fn overhead_method(&self) -> Option<&'static str> {
        None
    }

    /// Facts about what was measured that are not parameters (e.g. `runtime_version`), read by
    /// the harness after the samples. Stored in the result's `info`; shown, never matched on, so
    /// two runs with different versions of a runtime still compare result by result.
    fn info(&self) -> std::collections::BTreeMap<String, String> {
        std::collections::BTreeMap::new()
    }

    /// Whether the last `setup` made what later rounds of the same run reuse instead of making
    /// again (the io family's data files, created once per run by whichever round needs them
    /// first); read by the harness after the samples. The harness times `setup` (it owns the
    /// clock) and reports that time as the round's `prepared_s` when this is true.
    ///
    /// Why: the planner prices a variant's next round by its rounds so far. A full run's
    /// 100-file read (2026-11-27) created 4.5 GB of files in its first round, 16.6 s against
    /// 2.6 s for a round that finds them, and was left at one round as if every round cost that.
    fn prepared_for_later(&self) -> bool {
        false
    }

    /// How many consecutive rounds one `setup` serves in `mode`: the worker stays alive between
    /// them holding what `setup` prepared, and the round after the last starts a fresh worker
    /// (and setup) again. 1 (the default): every round is a fresh worker.
    ///
    /// Why more than one: a server is measured at steady state, and a JVM's takes tens of
    /// seconds to reach; warming a fresh one for every round would spend a full run's budget on
    /// warm-ups. The rounds of one setup are windows on the warm server, interleaved with the
    /// other variants' rounds as every round is; a fresh setup every few rounds keeps what a
    /// restart changes (heap layout, JIT decisions, which loop got which connection) in the
    /// interval, as Georges et al. (OOPSLA 2007) take steady-state figures across VM
    /// invocations.
    fn rounds_per_setup(&self, _mode: crate::RunMode) -> usize {
        1
    }

    /// Release everything: kill and reap children, join threads, remove files.
    fn teardown(&mut self, _ctx: &RunContext) -> anyhow::Result<()> {
        Ok(())
    }
}
