//! One batch of the print experiment: create every worker, let each write its lines, drain the
//! pipe, wait for and reap them all.
//!
//! Every worker holds the write end of one pipe (inherited by forked children, shared through an
//! `Arc` by threads). When the last worker is gone the parent's read end reports end of file:
//! that is how the parent waits — reading the lines when the pipe is the sink, or just the end
//! of file otherwise — while still noticing Ctrl-C every 100 ms.

use super::writer::{Out, Writer};
use crate::support::{fd, repeat};
use anyhow::{bail, Context, Result};
use concbench_core::RunContext;
use concbench_sys::stdio::LineStream;
use concbench_sys::Child;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::io::Errno;
use std::ffi::CString;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    Process,
    Thread,
}

impl Model {
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Process => "process",
            Model::Thread => "thread",
        }
    }
}

/// What one batch does.
pub struct Batch<'a> {
    pub model: Model,
    pub workers: u64,
    pub count: u64,
    pub line: &'a [u8],
    /// Where lines go; `None` = into the pipe the parent drains.
    pub sink: Option<BorrowedFd<'a>>,
    /// Stack of each worker thread.
    pub stack_bytes: usize,
    /// Raw `write(2)` per line, or libc's line-buffered stream.
    pub writer: Writer,
}

impl Batch<'_> {
    /// The line as libc wants it (NUL-terminated).
    fn c_line(&self) -> Result<CString> {
        CString::new(self.line).context("a line with a NUL byte")
    }

    /// A stdio stream on `out` when the writer is stdio (one per process: forked children get
    /// a copy each, threads share it).
    fn stream(&self, out: BorrowedFd<'_>) -> Result<Option<LineStream>> {
        match self.writer {
            Writer::Write => Ok(None),
            Writer::Stdio => Ok(Some(
                LineStream::open(out).context("opening a stdio stream on the sink")?,
            )),
        }
    }
}

/// Run one batch; returns how many bytes the parent drained from the pipe.
pub fn run(ctx: &RunContext, b: &Batch<'_>) -> Result<u64> {
    let (read, write) = fd::pipe()?;
    rustix::fs::fcntl_setfl(&read, rustix::fs::OFlags::NONBLOCK).context("O_NONBLOCK")?;
    match b.model {
        Model::Process => processes(ctx, b, read, write),
        Model::Thread => threads(ctx, b, read, write),
    }
}

/// One worker thread's job: `count` lines, one `write(2)` each (as printf to a terminal does:
/// stdout is line-buffered there) or one `fputs` each, checking for Ctrl-C every 1024 lines.
fn write_lines(ctx: &RunContext, out: &Out<'_>, line: &[u8], count: u64) -> Result<()> {
    repeat(ctx, count, |_| out.put(line).context("writing a line"))
}

/// One worker process's job, the same lines; returns its exit code. No Ctrl-C check (the parent
/// kills the children) and no `anyhow` error: creating one captures a backtrace under a global
/// lock that another thread of the forking process may have held at fork time, never to be
/// released in the child.
fn child_writes_lines(out: &Out<'_>, line: &[u8], count: u64) -> i32 {
    match (0..count)
        .try_for_each(|_| out.put(line))
        .and_then(|()| out.finish())
    {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

fn processes(ctx: &RunContext, b: &Batch<'_>, read: OwnedFd, write: OwnedFd) -> Result<u64> {
    let mut children: Vec<Child> = Vec::with_capacity(b.workers as usize);
    {
        let fd = b.sink.unwrap_or(write.as_fd());
        // Opened before the forks, as fork.c's stdout was: each child gets its own copy.
        let stream = b.stream(fd)?;
        let c_line = b.c_line()?;
        let out = match &stream {
            Some(s) => Out::Stream(s, &c_line),
            None => Out::Raw(fd),
        };
        for i in 0..b.workers {
            let child = concbench_sys::fork_child(|| child_writes_lines(&out, b.line, b.count))
                .with_context(|| format!("forking worker {i} of {}", b.workers))?;
            children.push(child);
        }
        // The parent's copy of the stream (a write end of the pipe) closes here.
    }
    drop(write);
    // On Ctrl-C this returns early; dropping `children` then kills and reaps every worker.
    let drained = drain(ctx, read.as_fd(), OnCancel::Stop)?;
    // Ctrl-C just as the last worker finished: still an interrupted batch.
    ctx.cancel.check()?;
    for c in &mut children {
        let status = c.wait()?;
        if !Child::exited_ok(status) {
            bail!("a worker process failed (wait status {status:#x})");
        }
    }
    Ok(drained)
}

fn threads(ctx: &RunContext, b: &Batch<'_>, read: OwnedFd, write: OwnedFd) -> Result<u64> {
    // One stream for every thread, as thread.c's stdout: each line takes its lock. The last
    // thread to finish closes it (it holds a write end of the pipe too).
    let stream = b.stream(b.sink.unwrap_or(write.as_fd()))?.map(Arc::new);
    let c_line = b.c_line()?;
    let c_line = &c_line;
    let write = Arc::new(write);
    std::thread::scope(move |s| {
        let mut handles = Vec::with_capacity(b.workers as usize);
        let mut spawn_error = None;
        for i in 0..b.workers {
            let alive = Arc::clone(&write);
            let stream = stream.clone();
            let spawned = std::thread::Builder::new()
                .stack_size(b.stack_bytes)
                .spawn_scoped(s, move || {
                    let out = match &stream {
                        Some(s) => Out::Stream(s, c_line),
                        None => Out::Raw(b.sink.unwrap_or(alive.as_fd())),
                    };
                    write_lines(ctx, &out, b.line, b.count)
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    spawn_error = Some(
                        anyhow::Error::new(e)
                            .context(format!("creating worker thread {i} of {}", b.workers)),
                    );
                    break;
                }
            }
        }
        drop(write);
        drop(stream);
        // Threads cannot be killed: drain to the end (they stop at their next Ctrl-C check).
        let drained = drain(ctx, read.as_fd(), OnCancel::DrainToEnd);
        let mut first_error = spawn_error;
        for h in handles {
            let outcome = h
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("a worker thread panicked")));
            if let (Err(e), None) = (outcome, &first_error) {
                first_error = Some(e);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => drained,
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum OnCancel {
    /// Return at once (the caller kills the workers).
    Stop,
    /// Keep reading until every worker is gone, then report the interruption.
    DrainToEnd,
}

/// Read the (non-blocking) pipe until every writer is gone; returns the bytes read.
fn drain(ctx: &RunContext, read: BorrowedFd<'_>, on_cancel: OnCancel) -> Result<u64> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    let mut cancelled = false;
    loop {
        if on_cancel == OnCancel::Stop {
            ctx.cancel.check()?;
        }
        match rustix::io::read(read, &mut buf) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(Errno::INTR) => {}
            Err(Errno::AGAIN) => {
                if cancelled {
                    wait_ignoring_cancel(read)?;
                } else if let Err(e) = fd::wait_readable(ctx, &mut [fd::readable(read)]) {
                    if on_cancel == OnCancel::Stop {
                        return Err(e);
                    }
                    cancelled = true;
                }
            }
            Err(e) => return Err(e).context("reading the workers' pipe"),
        }
    }
    if cancelled {
        ctx.cancel.check()?;
    }
    Ok(total)
}

fn wait_ignoring_cancel(read: BorrowedFd<'_>) -> Result<()> {
    match rustix::event::poll(&mut [fd::readable(read)], None) {
        Ok(_) | Err(Errno::INTR) => Ok(()),
        Err(e) => Err(e).context("poll"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::sink::line;

    fn batch(model: Model, sink: Option<BorrowedFd<'_>>, line: &[u8], writer: Writer) -> u64 {
        let ctx = crate::support::test_context();
        let b = Batch {
            model,
            workers: 7,
            count: 300,
            line,
            sink,
            stack_bytes: 64 * 1024,
            writer,
        };
        run(&ctx, &b).unwrap()
    }

    #[test]
    fn every_line_reaches_the_pipe_for_both_models_and_writers() {
        let l = line(12);
        for writer in [Writer::Write, Writer::Stdio] {
            assert_eq!(batch(Model::Process, None, &l, writer), 7 * 300 * 12);
            assert_eq!(batch(Model::Thread, None, &l, writer), 7 * 300 * 12);
        }
    }

    #[test]
    fn with_another_sink_the_pipe_only_signals_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let l = line(256);
        for model in [Model::Process, Model::Thread] {
            let t = crate::workload::sink::Target::open(
                crate::workload::sink::Sink::File,
                dir.path(),
                "lines",
            )
            .unwrap()
            .unwrap();
            assert_eq!(batch(model, Some(t.fd()), &l, Writer::Stdio), 0);
            t.verify(7 * 300 * 256).unwrap();
        }
    }

    #[test]
    fn a_cancelled_batch_stops_and_leaves_no_worker_behind() {
        let ctx = crate::support::test_context();
        ctx.cancel.cancel();
        let l = line(12);
        for model in [Model::Process, Model::Thread] {
            let b = Batch {
                model,
                workers: 3,
                count: 1_000_000,
                line: &l,
                sink: None,
                stack_bytes: 64 * 1024,
                writer: Writer::Write,
            };
            let err = run(&ctx, &b).unwrap_err();
            assert!(format!("{err:#}").contains("interrupted"), "{err:#}");
            assert_eq!(crate::support::children_of_this_thread(), "");
        }
    }
}
