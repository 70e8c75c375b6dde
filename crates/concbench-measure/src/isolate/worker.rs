//! The worker side: read a [`Job`], measure it with the harness, report on the protocol channel.
//! A variant whose one setup serves several rounds (`Experiment::rounds_per_setup`) keeps its
//! worker: after each round the worker reads the next job (the same variant) and measures it on
//! what it set up, until its input closes; then it tears down and exits.

use super::{Job, WorkerMessage};
use crate::{signals, Harness};
use anyhow::{anyhow, bail, Context, Result};
use concbench_core::{Experiment, Outcome, RunMode};
use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::Arc;

/// Serve one job, or the rounds of one setup. `lookup(index)` returns the registry's variant at
/// that index.
///
/// The protocol channel is the worker's original stdout; fd 1 is then pointed at stderr so that
/// nothing an experiment or its children print can corrupt the protocol.
///
/// `lookup` is a plain function pointer, not a generic: the worker's whole path (reading the
/// job, the progress messages, the outcome) is then compiled here, at this crate's opt-level 3,
/// and not in the binary that calls it, which the release profile builds at opt-level 0
/// (docs/BUILD.md).
pub fn serve(lookup: fn(usize) -> Option<Box<dyn Experiment>>) -> Result<()> {
    // The worker adopts what its experiment's processes leave behind: a server killed with its
    // children unreaped (a design's tree, a crash) orphans them, and an orphan reaped by init
    // takes its CPU time out of the run's accounting. Reaped here, it is counted with the
    // worker's children, and so with the coordinator's own CPU (regression: every prefork and
    // fork-per-connection round read 0.9 CPUs of "other processes" and was excluded).
    let _ = concbench_sys::reaper::become_subreaper();
    let served = serve_jobs(lookup);
    // Every handle the experiment held is gone: what is left is orphans, dying with their
    // parent (PR_SET_PDEATHSIG).
    concbench_sys::reaper::reap_orphans(ORPHANS_PATIENCE);
    served
}

/// How long a worker waits for the orphans it adopted to die before it exits anyway.
const ORPHANS_PATIENCE: std::time::Duration = std::time::Duration::from_secs(5);

fn serve_jobs(lookup: fn(usize) -> Option<Box<dyn Experiment>>) -> Result<()> {
    let channel = std::cell::RefCell::new(take_stdout()?);
    // Die with the coordinator: a worker must never outlive it. Its own children die with it in
    // turn (concbench-sys::child), so nothing is left running.
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and affects only this process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    let cancel = signals::install_cancel_handler()?;
    let stdin = std::io::stdin().lock();
    let mut jobs = serde_json::Deserializer::from_reader(stdin).into_iter::<Job>();
    let job: Job = jobs
        .next()
        .context("reading the job: the input ended before it")?
        .context("reading the job")?;
    let mut exp =
        lookup(job.index).ok_or_else(|| anyhow!("no experiment at index {}", job.index))?;
    check_variant(exp.as_ref(), &job)?;
    let mode = RunMode::from_flags(job.config.quick, job.config.smoke);
    let rounds_per_setup = exp.rounds_per_setup(mode);
    let harness = Harness {
        config: job.config,
        host: Arc::new(job.host),
        cancel,
        scratch_dir: job.scratch_dir,
        options: job.options,
    };
    let write = |msg: &WorkerMessage| -> Result<()> {
        let line = serde_json::to_string(msg)?;
        let mut channel = channel.borrow_mut();
        writeln!(channel, "{line}")?;
        channel.flush()?;
        Ok(())
    };
    let send = |outcome: Outcome| write(&WorkerMessage::Outcome { outcome });
    let mut on_event = |event| {
        let _ = write(&WorkerMessage::Progress { event });
    };
    if rounds_per_setup <= 1 {
        return send(harness.measure(exp.as_mut(), &mut on_event));
    }
    let mut opened = match harness.open(exp.as_mut()) {
        Ok(o) => o,
        Err(outcome) => return send(outcome),
    };
    // Rounds until the input closes, a round fails or a job is wrong; then always tear down.
    let served = (|| -> Result<()> {
        loop {
            let outcome = opened.round(&mut on_event);
            let measured = matches!(outcome, Outcome::Measured(_));
            send(outcome)?;
            if !measured {
                return Ok(());
            }
            let Some(next) = jobs.next() else {
                // The coordinator closed the input: this setup's rounds are over.
                return Ok(());
            };
            let next = next.context("reading the next job")?;
            if next.index != job.index || next.id != job.id {
                bail!(
                    "a resident worker of {} was sent a job for {}",
                    job.id,
                    next.id
                );
            }
        }
    })();
    let closed = opened.close();
    served.and(closed)
}

fn check_variant(exp: &dyn Experiment, job: &Job) -> Result<()> {
    if exp.meta().id != job.id {
        bail!(
            "registry mismatch: index {} is {}, not {}",
            job.index,
            exp.meta().id,
            job.id
        );
    }
    Ok(())
}

/// Duplicate stdout into a private, close-on-exec descriptor and point fd 1 at stderr.
fn take_stdout() -> Result<File> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) on fd 1 returns a new descriptor we then own exclusively.
    let fd = unsafe { libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3) };
    if fd < 0 {
        bail!("duplicating stdout: {}", std::io::Error::last_os_error());
    }
    // SAFETY: dup2 replaces fd 1 with a copy of fd 2; both are open in a worker.
    if unsafe { libc::dup2(2, 1) } < 0 {
        bail!("redirecting stdout: {}", std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor owned by nobody else.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}
