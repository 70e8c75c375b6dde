//! Model `processes`: one forked process per file, all released together.
//!
//! Each child tells the parent it is ready (one byte on a pipe), waits for its go byte, reads its
//! file (inherited, already open — as the seed opened files before starting its readers), and
//! sends its [`WorkerReport`] back as one record on a shared pipe (atomic: far below PIPE_BUF).
//! The parent opens the gate only when every child is ready, so forking is not timed.

use super::config::Config;
use super::sample::{read_files_measured, since, Job, Sample, WorkerReport, RECORD_BYTES};
use anyhow::{bail, Context, Result};
use concbench_core::{CancelToken, SampleTimer};
use concbench_measure::clock;
use concbench_sys::{fork_child, Child};
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fd::OwnedFd;
use std::fs::File;
use std::time::Instant;

/// A reader that has not said it is ready after this long is not coming.
const READY_TIMEOUT_S: i64 = 30;

/// The pipes between the parent and its readers.
struct Pipes {
    ready: (OwnedFd, OwnedFd),
    go: (OwnedFd, OwnedFd),
    results: (OwnedFd, OwnedFd),
}

pub fn run(job: Job<'_>, timer: &mut dyn SampleTimer) -> Result<Sample> {
    // The readers are children: they never see the worker's Ctrl-C flag and die with it instead.
    let Job { mut files, cfg, .. } = job;
    let pipes = Pipes {
        ready: rustix::pipe::pipe()?,
        go: rustix::pipe::pipe()?,
        results: rustix::pipe::pipe()?,
    };
    let t0 = clock::now();
    let mut children: Vec<Child> = Vec::with_capacity(files.len());
    for (i, file) in files.iter_mut().enumerate() {
        let child = fork_child(|| reader_child(file, cfg, t0, &pipes))
            .with_context(|| format!("forking reader process {i}"))?;
        children.push(child);
    }
    await_ready(&pipes.ready.0, children.len())?;
    timer.restart();
    let start = since(t0);
    write_all(&pipes.go.1, &vec![1u8; children.len()]).context("releasing the readers")?;
    for (i, child) in children.iter_mut().enumerate() {
        let status = child.wait()?;
        if !Child::exited_ok(status) {
            bail!(
                "reader process {i} failed (wait status {status:#x}): it could not read its file"
            );
        }
    }
    timer.stop();
    let workers = (0..children.len())
        .map(|_| read_record(&pipes.results.0))
        .collect::<Result<Vec<_>>>()?;
    Ok(Sample {
        start,
        ends: workers.iter().map(|w| w.end).collect(),
        workers,
    })
}

/// The child's whole life: ready, wait for go, read, report. Returns the exit code.
fn reader_child(file: &mut File, cfg: &Config, t0: Instant, pipes: &Pipes) -> i32 {
    if write_all(&pipes.ready.1, &[1]).is_err() {
        return 2;
    }
    let mut go = [0u8; 1];
    if !matches!(read_retrying(&pipes.go.0, &mut go), Ok(1)) {
        return 3;
    }
    // Children never see the worker's Ctrl-C flag: they die with it instead (PDEATHSIG).
    match read_files_measured(std::slice::from_mut(file), cfg, t0, &CancelToken::new()) {
        Ok(report) => match write_all(&pipes.results.1, &report.to_record()) {
            Ok(()) => 0,
            Err(_) => 4,
        },
        Err(_) => 1,
    }
}

/// Wait until `n` ready bytes arrived, or fail after [`READY_TIMEOUT_S`].
fn await_ready(ready: &OwnedFd, n: usize) -> Result<()> {
    let mut got = 0;
    let mut buf = [0u8; 128];
    let timeout = Timespec {
        tv_sec: READY_TIMEOUT_S,
        tv_nsec: 0,
    };
    while got < n {
        let mut fds = [PollFd::new(ready, PollFlags::IN)];
        if poll(&mut fds, Some(&timeout))? == 0 {
            bail!("only {got} of {n} reader processes started within {READY_TIMEOUT_S} s");
        }
        got += read_retrying(ready, &mut buf[..(n - got).min(128)])?;
    }
    Ok(())
}

fn read_record(results: &OwnedFd) -> Result<WorkerReport> {
    let mut rec = [0u8; RECORD_BYTES];
    let mut got = 0;
    while got < RECORD_BYTES {
        let n = read_retrying(results, &mut rec[got..]).context("reading a reader's report")?;
        if n == 0 {
            bail!("a reader process's report was cut short");
        }
        got += n;
    }
    Ok(WorkerReport::from_record(&rec))
}

fn read_retrying(fd: &OwnedFd, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match rustix::io::read(fd, &mut *buf) {
            Err(rustix::io::Errno::INTR) => continue,
            other => return other.map_err(Into::into),
        }
    }
}

fn write_all(fd: &OwnedFd, mut buf: &[u8]) -> std::io::Result<()> {
    while !buf.is_empty() {
        match rustix::io::write(fd, buf) {
            Ok(n) => buf = &buf[n..],
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}
