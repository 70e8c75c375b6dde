//! The worker side: read one [`Job`], measure it with the harness, report on the protocol channel.

use super::{Job, WorkerMessage};
use crate::{signals, Harness};
use anyhow::{anyhow, bail, Context, Result};
use concbench_core::Experiment;
use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::Arc;

/// Serve one job. `lookup(index)` returns the registry's variant at that index.
///
/// The protocol channel is the worker's original stdout; fd 1 is then pointed at stderr so that
/// nothing an experiment or its children print can corrupt the protocol.
///
/// `lookup` is a plain function pointer, not a generic: the worker's whole path (reading the
/// job, the progress messages, the outcome) is then compiled here, at this crate's opt-level 3,
/// and not in the binary that calls it, which the release profile builds at opt-level 0
/// (docs/BUILD.md).
pub fn serve(lookup: fn(usize) -> Option<Box<dyn Experiment>>) -> Result<()> {
    let mut channel = take_stdout()?;
    // Die with the coordinator: a worker must never outlive it. Its own children die with it in
    // turn (concbench-sys::child), so nothing is left running.
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and affects only this process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    let cancel = signals::install_cancel_handler()?;
    let job: Job = serde_json::from_reader(std::io::stdin().lock()).context("reading the job")?;
    let mut exp =
        lookup(job.index).ok_or_else(|| anyhow!("no experiment at index {}", job.index))?;
    if exp.meta().id != job.id {
        bail!(
            "registry mismatch: index {} is {}, not {}",
            job.index,
            exp.meta().id,
            job.id
        );
    }
    let harness = Harness {
        config: job.config,
        host: Arc::new(job.host),
        cancel,
        scratch_dir: job.scratch_dir,
        options: job.options,
    };
    let mut send = |msg: &WorkerMessage| -> Result<()> {
        let line = serde_json::to_string(msg)?;
        writeln!(channel, "{line}")?;
        channel.flush()?;
        Ok(())
    };
    let outcome = harness.measure(exp.as_mut(), &mut |event| {
        let _ = send(&WorkerMessage::Progress { event });
    });
    send(&WorkerMessage::Outcome { outcome })
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
