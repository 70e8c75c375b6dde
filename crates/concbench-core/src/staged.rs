//! Experiments whose `setup` prepares a state for their samples (partners, pipes, a runtime,
//! data files): [`Staged`] returns it from `setup` and receives it in every later call, and
//! [`Stages`] — the one adapter to [`Experiment`] — holds it between the harness's calls.
//!
//! Why a second trait: [`Experiment`] is object-safe (the registry holds `Box<dyn Experiment>`),
//! so its `setup` cannot return a state of the experiment's own type. Without this each
//! experiment kept an `Option` of its state and repeated "setup did not run" where it read it;
//! here the adapter is the single place that knows whether `setup` ran (lmbench's init → bench →
//! cleanup, with the init's result handed to bench and cleanup).

use crate::{
    context::RunContext,
    experiment::{Experiment, Meta, Plan, RunOutput, SampleTimer, Support},
    host::Host,
    params::Params,
    placement::{CpuPair, Placement},
};
use anyhow::{Context, Result};
use std::collections::BTreeMap;

/// The error of a call that needs the prepared state when there is none.
pub const NOT_PREPARED: &str = "setup did not run";

/// An experiment with a prepared state: [`Experiment`]'s contract, with `setup` returning the
/// state and the later calls receiving it. Register it as [`Stages::new`]`(experiment)`.
///
/// The descriptive methods mean what [`Experiment`]'s do; the adapter forwards them.
pub trait Staged: Send {
    /// What `setup` prepared, owned by the adapter until `teardown` takes it back.
    type State: Send;

    fn meta(&self) -> &Meta;

    fn params(&self) -> Params {
        Params::new()
    }

    fn placement(&self) -> Placement {
        Placement::SameCpu
    }

    fn cpu_pair(&self) -> Option<CpuPair> {
        None
    }

    fn in_quick(&self) -> bool {
        true
    }

    fn paired(&self) -> bool {
        false
    }

    fn supported(&self, _host: &Host) -> Support {
        Support::Yes
    }

    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Calibrated
    }

    fn max_repetitions(&self, _ctx: &RunContext) -> Option<usize> {
        None
    }

    fn build_ahead(&self, _say: &mut dyn FnMut(&str)) -> Result<()> {
        Ok(())
    }

    /// Prepare the state. Not timed. On an error nothing is kept: what was started before it
    /// must be released here (by its `Drop` or explicitly), as no `teardown` follows.
    fn setup(&mut self, ctx: &RunContext) -> Result<Self::State>;

    fn before_sample(&mut self, _state: &mut Self::State, _ctx: &RunContext) -> Result<()> {
        Ok(())
    }

    fn run(
        &mut self,
        state: &mut Self::State,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput>;

    fn run_overhead(
        &mut self,
        _state: &mut Self::State,
        _ctx: &RunContext,
        _iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        None
    }

    fn overhead_method(&self) -> Option<&'static str> {
        None
    }

    fn info(&self) -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    fn prepared_for_later(&self) -> bool {
        false
    }

    fn rounds_per_setup(&self, _mode: crate::RunMode) -> usize {
        1
    }

    /// Release what `setup` prepared. Called once per successful `setup`, also after a failed
    /// sample or Ctrl-C; dropping the state is the default.
    fn teardown(&mut self, state: Self::State, _ctx: &RunContext) -> Result<()> {
        drop(state);
        Ok(())
    }
}

/// A [`Staged`] experiment as an [`Experiment`]: holds the state from `setup` to `teardown`.
pub struct Stages<S: Staged> {
    experiment: S,
    state: Option<S::State>,
}

impl<S: Staged> Stages<S> {
    pub fn new(experiment: S) -> Self {
        Self {
            experiment,
            state: None,
        }
    }

    /// The experiment itself (for a test or a registry that inspects its variants).
    pub fn experiment(&self) -> &S {
        &self.experiment
    }

    /// The state and the experiment, or the error a sample before `setup` is.
    fn prepared(&mut self) -> Result<(&mut S, &mut S::State)> {
        let state = self.state.as_mut().context(NOT_PREPARED)?;
        Ok((&mut self.experiment, state))
    }
}

impl<S: Staged + Default> Default for Stages<S> {
    fn default() -> Self {
        Self::new(S::default())
    }
}

impl<S: Staged> Experiment for Stages<S> {
    fn meta(&self) -> &Meta {
        self.experiment.meta()
    }

    fn params(&self) -> Params {
        self.experiment.params()
    }

    fn placement(&self) -> Placement {
        self.experiment.placement()
    }

    fn cpu_pair(&self) -> Option<CpuPair> {
        self.experiment.cpu_pair()
    }

    fn in_quick(&self) -> bool {
        self.experiment.in_quick()
    }

    fn paired(&self) -> bool {
        self.experiment.paired()
    }

    fn supported(&self, host: &Host) -> Support {
        self.experiment.supported(host)
    }

    fn plan(&self, ctx: &RunContext) -> Plan {
        self.experiment.plan(ctx)
    }

    fn max_repetitions(&self, ctx: &RunContext) -> Option<usize> {
        self.experiment.max_repetitions(ctx)
    }

    fn build_ahead(&self, say: &mut dyn FnMut(&str)) -> Result<()> {
        self.experiment.build_ahead(say)
    }

    /// A second `setup` without `teardown` releases the first state before preparing anew,
    /// so nothing prepared is ever dropped without its `teardown`.
    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        if self.state.is_some() {
            self.teardown(ctx)
                .context("releasing the state of an earlier setup")?;
        }
        self.state = Some(self.experiment.setup(ctx)?);
        Ok(())
    }

    fn before_sample(&mut self, ctx: &RunContext) -> Result<()> {
        let (experiment, state) = self.prepared()?;
        experiment.before_sample(state, ctx)
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let (experiment, state) = self.prepared()?;
        experiment.run(state, ctx, iterations, timer)
    }

    fn run_overhead(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Option<Result<RunOutput>> {
        match self.prepared() {
            Ok((experiment, state)) => experiment.run_overhead(state, ctx, iterations, timer),
            // Only a method with an overhead needs the state to measure it.
            Err(e) => self.experiment.overhead_method().map(|_| Err(e)),
        }
    }

    fn overhead_method(&self) -> Option<&'static str> {
        self.experiment.overhead_method()
    }

    fn info(&self) -> BTreeMap<String, String> {
        self.experiment.info()
    }

    fn prepared_for_later(&self) -> bool {
        self.experiment.prepared_for_later()
    }

    fn rounds_per_setup(&self, mode: crate::RunMode) -> usize {
        self.experiment.rounds_per_setup(mode)
    }

    /// Nothing to release when `setup` failed (it released its own partial work) or never ran.
    fn teardown(&mut self, ctx: &RunContext) -> Result<()> {
        match self.state.take() {
            Some(state) => self.experiment.teardown(state, ctx),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::CancelToken;
    use anyhow::bail;
    use std::sync::{Arc, Mutex};

    const META: Meta = Meta {
        id: "test.staged",
        family: "test",
        title: "a staged experiment",
        op: "nothing",
        unit: "ns",
        expected_switches_per_op: None,
    };

    /// Counts what it sees: the state is a number `setup` chose, `run` adds to it, and
    /// `teardown` writes the final value where the test can read it.
    #[derive(Default)]
    struct Counter {
        fail_run: bool,
        torn_down: Arc<Mutex<Vec<u64>>>,
    }

    impl Staged for Counter {
        type State = u64;

        fn meta(&self) -> &Meta {
            &META
        }

        fn setup(&mut self, _ctx: &RunContext) -> Result<u64> {
            Ok(40)
        }

        fn prepared_for_later(&self) -> bool {
            true
        }

        fn run(
            &mut self,
            state: &mut u64,
            _ctx: &RunContext,
            iterations: u64,
            _timer: &mut dyn SampleTimer,
        ) -> Result<RunOutput> {
            if self.fail_run {
                bail!("the sample failed");
            }
            *state += iterations;
            Ok(RunOutput {
                value: Some(*state as f64),
                ..RunOutput::default()
            })
        }

        fn teardown(&mut self, state: u64, _ctx: &RunContext) -> Result<()> {
            self.torn_down.lock().unwrap().push(state);
            Ok(())
        }
    }

    struct NoTimer;
    impl SampleTimer for NoTimer {
        fn restart(&mut self) {}
        fn stop(&mut self) {}
    }

    fn ctx() -> RunContext {
        RunContext {
            quick: true,
            smoke: true,
            placement: Placement::Unpinned,
            cpus: vec![],
            cancel: CancelToken::new(),
            host: Arc::new(Host::default()),
            scratch_dir: std::env::temp_dir(),
            options: BTreeMap::new(),
        }
    }

    fn staged(fail_run: bool) -> (Box<dyn Experiment>, Arc<Mutex<Vec<u64>>>) {
        let torn_down = Arc::new(Mutex::new(Vec::new()));
        let exp = Stages::new(Counter {
            fail_run,
            torn_down: torn_down.clone(),
        });
        (Box::new(exp), torn_down)
    }

    #[test]
    fn setup_state_reaches_run_and_teardown() {
        let (mut exp, torn_down) = staged(false);
        let ctx = ctx();
        assert_eq!(exp.meta().id, "test.staged", "meta is forwarded");
        exp.setup(&ctx).unwrap();
        let out = exp.run(&ctx, 2, &mut NoTimer).unwrap();
        assert_eq!(out.value, Some(42.0), "run saw setup's 40");
        exp.run(&ctx, 1, &mut NoTimer).unwrap();
        exp.teardown(&ctx).unwrap();
        assert_eq!(
            *torn_down.lock().unwrap(),
            vec![43],
            "teardown got run's state"
        );
        exp.teardown(&ctx).unwrap();
        assert_eq!(
            torn_down.lock().unwrap().len(),
            1,
            "the state is released once"
        );
    }

    #[test]
    fn the_adapter_reports_what_setup_made_for_later_rounds() {
        let (exp, _) = staged(false);
        assert!(exp.prepared_for_later());
    }

    #[test]
    fn teardown_runs_after_a_failed_run() {
        let (mut exp, torn_down) = staged(true);
        let ctx = ctx();
        exp.setup(&ctx).unwrap();
        let err = exp.run(&ctx, 1, &mut NoTimer).unwrap_err();
        assert_eq!(err.to_string(), "the sample failed");
        exp.teardown(&ctx).unwrap();
        assert_eq!(*torn_down.lock().unwrap(), vec![40]);
    }

    #[test]
    fn run_without_setup_is_an_error_naming_the_cause() {
        let (mut exp, torn_down) = staged(false);
        let ctx = ctx();
        let err = exp.run(&ctx, 1, &mut NoTimer).unwrap_err();
        assert_eq!(err.to_string(), NOT_PREPARED);
        assert_eq!(NOT_PREPARED, "setup did not run");
        assert!(exp.before_sample(&ctx).is_err());
        exp.teardown(&ctx).unwrap();
        assert!(torn_down.lock().unwrap().is_empty(), "nothing to release");
    }

    #[test]
    fn a_second_setup_releases_the_first_state() {
        let (mut exp, torn_down) = staged(false);
        let ctx = ctx();
        exp.setup(&ctx).unwrap();
        exp.run(&ctx, 1, &mut NoTimer).unwrap();
        exp.setup(&ctx).unwrap();
        assert_eq!(*torn_down.lock().unwrap(), vec![41]);
        let out = exp.run(&ctx, 1, &mut NoTimer).unwrap();
        assert_eq!(out.value, Some(41.0), "a fresh state");
    }
}
