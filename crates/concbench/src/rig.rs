//! The rig every measuring command (`run`, `replicate`, `crossover`) measures with: the measuring
//! flags as a run request; then what the experiments need, prepared before and released after
//! the session (the run lock, the CPUs held awake, the io data files, the Ctrl-C handler, the
//! probes built ahead, a scratch directory, the host facts, the worker runner, the progress
//! display); the session itself (`concbench-session`: rounds, interleaving, budget, validation,
//! verdicts) returns the finished document. Writing it is [`crate::output`]'s.

use crate::args::{MeasureArgs, Pin};
use crate::closing_line;
use crate::progress::Progress;
use crate::run_lock;
use crate::stdout::errln;
use anyhow::{Context, Result};
use concbench_core::{CancelToken, Experiment, Host, ResultDoc, RunMode, HOLD_AWAKE_SETTING};
use concbench_experiments::io::RunData;
use concbench_measure::{host, signals, PinMode};
use concbench_session::{Chosen, Finished, Registry, RunRequest, SystemMachine, WorkerRunner};
use std::collections::BTreeMap;

/// The experiments of this build, as the session asks for them.
pub struct Builtin;

impl Registry for Builtin {
    fn all(&self) -> Vec<Box<dyn Experiment>> {
        concbench_experiments::all()
    }
    fn select(&self, only: &[String]) -> Result<Vec<Chosen>> {
        concbench_experiments::select(only)
    }
    fn at(&self, index: usize) -> Option<Box<dyn Experiment>> {
        concbench_experiments::at(index)
    }
}

/// The run the measuring flags ask for; `settings` are what the command records beside the
/// harness settings.
pub fn request(args: &MeasureArgs) -> RunRequest {
    let pin = match args.pin {
        Pin::Auto => PinMode::Auto,
        Pin::None => PinMode::None,
    };
    let mode = RunMode::from_flags(args.quick, args.smoke);
    let mut request = RunRequest::new(mode, pin, concbench_sys::allowed_cpus().unwrap_or_default());
    request.repetitions = args.repeat.map(|r| r as usize);
    if let Some(n) = args.rounds {
        request.plan = request.plan.with_rounds(n as usize);
    }
    if let Some(d) = args.budget {
        request.plan.budget = d;
    }
    if let Some(d) = args.settle {
        request.plan.settle = d;
    }
    request
}

/// Measure `chosen` in rounds as `request` asks (holding the CPUs awake with `hold_awake`),
/// validate and judge them into the run's document.
pub fn measure(
    chosen: Vec<Chosen>,
    args: &MeasureArgs,
    mut request: RunRequest,
    hold_awake: bool,
) -> Result<ResultDoc> {
    let mut rig = Rig::prepare(&chosen, args, &mut request, hold_awake)?;
    let Finished { mut doc, stats } = rig.session(&request, &chosen)?;
    rig.release(&mut doc);
    errln!(
        "{}",
        closing_line::closing_line(&doc, &stats, request.plan.claim_rounds)
    );
    Ok(doc)
}

/// Everything a run holds while it measures; each part is released when dropped (the io data
/// files removed unless --keep-io-files, the CPUs let go, the lock freed, the scratch removed).
struct Rig {
    lock: run_lock::RunLock,
    held: Option<concbench_measure::awake::Held>,
    io_data: Option<RunData>,
    cancel: CancelToken,
    progress: Progress,
    scratch: tempfile::TempDir,
    host: Host,
}

impl Rig {
    /// Prepare what `chosen` needs, recording in `request`'s settings what the document should
    /// say of it (the io folder, how the CPUs were held awake).
    fn prepare(
        chosen: &[Chosen],
        args: &MeasureArgs,
        request: &mut RunRequest,
        hold_awake: bool,
    ) -> Result<Self> {
        crate::leftovers::sweep_before_measuring();
        // First of the rest: a run refused because another measures should not prepare anything.
        let me = run_lock::RunOwner::this_process()?;
        let lock = run_lock::RunLock::acquire(&run_lock::lock_path(), me, args.allow_concurrent)?;
        let held = hold_awake
            .then(|| hold_cpus_awake(&mut request.settings))
            .flatten();
        // The io family's data files: one directory for the whole run.
        let io_data = chosen
            .iter()
            .any(|(_, e)| e.meta().family == "io")
            .then(|| RunData::prepare(args.io_dir.as_deref(), args.keep_io_files))
            .transpose()?;
        if let Some(io) = &io_data {
            request
                .settings
                .insert("io_dir".into(), io.path().display().to_string().into());
        }
        let cancel = signals::install_cancel_handler().context("installing the Ctrl-C handler")?;
        let mut progress = Progress::new();
        build_ahead(chosen, &|| cancel.is_cancelled(), &mut progress);
        let scratch = tempfile::Builder::new()
            .prefix("concbench-")
            .tempdir()
            .context("creating a scratch directory")?;
        concbench_sys::owner::claim(scratch.path())?;
        let host = host::collect();
        if let Some(build) = concbench_measure::build_id::this_executable() {
            concbench_core::set_build(build);
        }
        Ok(Self {
            lock,
            held,
            io_data,
            cancel,
            progress,
            scratch,
            host,
        })
    }

    /// The session on this rig: rounds in fresh workers of this executable.
    fn session(&mut self, request: &RunRequest, chosen: &[Chosen]) -> Result<Finished> {
        let program = std::env::current_exe().context("locating the concbench executable")?;
        let options = self
            .io_data
            .as_ref()
            .map(RunData::options)
            .unwrap_or_default();
        let mut runner = WorkerRunner::new(
            request.supervisor(program, vec!["__worker".into()], self.cancel.clone()),
            request.config(),
            self.host.clone(),
            self.scratch.path().to_path_buf(),
            options,
        );
        let rig = concbench_session::Rig {
            runner: &mut runner,
            machine: &SystemMachine::default(),
            observer: &mut self.progress,
            cancel: &self.cancel,
            host: &self.host,
        };
        Ok(concbench_session::run(request, chosen, &Builtin, rig))
    }

    /// Release the rig as soon as the measuring ends, recording in `doc` the runs that measured
    /// beside this one and saying what became of the io data files.
    fn release(mut self, doc: &mut ResultDoc) {
        drop(self.held.take());
        record_overlaps(doc, &self.lock);
        drop(self.lock);
        if let Some(io) = self.io_data.take() {
            let done = io.describe_end();
            drop(io);
            errln!("concbench: {done}");
        }
    }
}

/// Hold the CPUs out of deep idle for `--hold-awake` and record how (the key
/// [`HOLD_AWAKE_SETTING`] of the document's settings); the guard releases them when dropped.
fn hold_cpus_awake(
    settings: &mut BTreeMap<String, serde_json::Value>,
) -> Option<concbench_measure::awake::Held> {
    let cpus = concbench_sys::allowed_cpus().unwrap_or_default();
    let (guard, how) = concbench_measure::awake::hold_for_run(&Default::default(), &cpus);
    errln!("concbench: --hold-awake: {}", how.note);
    settings.insert(
        HOLD_AWAKE_SETTING.into(),
        serde_json::json!({
            "held": how.method.is_some(),
            "method": how.method.map(|m| m.as_str()),
            "note": how.note,
        }),
    );
    guard
}

/// Every run that measured beside this one: in the settings (for tools) and as a warning (for
/// the first screen).
fn record_overlaps(doc: &mut ResultDoc, lock: &run_lock::RunLock) {
    let overlaps = lock.overlaps();
    if overlaps.is_empty() {
        return;
    }
    for other in &overlaps {
        let w = run_lock::overlap_warning(other);
        errln!("concbench: warning: {w}");
        doc.warnings.push(w);
    }
    if let Ok(v) = serde_json::to_value(&overlaps) {
        doc.settings.insert("overlapping_runs".into(), v);
    }
}

/// Build the probes the run compiles on first use before its clock starts, saying what is
/// built (see `Experiment::build_ahead`). A failed build is not reported here: the variant's
/// round builds again and records the failure with its own context, as it would without this.
fn build_ahead(variants: &[Chosen], cancelled: &dyn Fn() -> bool, progress: &mut Progress) {
    for (_, e) in variants {
        if cancelled() {
            return;
        }
        let _ = e.build_ahead(&mut |what| progress.preparing(what));
    }
}
