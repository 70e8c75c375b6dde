//! Model `io_uring`: one thread keeps one read per file in flight (queue depth = files),
//! resubmitting each file's next chunk as its previous one completes.
//!
//! Buffered reads that miss the page cache cannot complete inline: the kernel hands them to its
//! io-wq worker threads (part of this process, so their CPU and device reads are in the process
//! counters). So this model is "one application thread", not "no threads".

use super::sample::{since, Job, Sample, WorkerReport};
use anyhow::{bail, Context, Result};
use concbench_core::{CancelToken, SampleTimer};
use concbench_measure::clock;
use concbench_measure::usage::{device_read_bytes, thread_usage, IoScope};
use io_uring::{opcode, types, IoUring};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::time::Duration;

/// Whether this kernel (and its seccomp filter, and `kernel.io_uring_disabled`) lets this
/// process set up a ring; the reason when it does not.
pub fn probe() -> std::result::Result<(), String> {
    IoUring::new(2).map(|_| ()).map_err(|e| {
        format!(
            "io_uring_setup failed ({e}): the kernel lacks io_uring, a seccomp filter (containers) \
             blocks it, or sysctl kernel.io_uring_disabled is set"
        )
    })
}

/// Per-file progress.
struct FileState {
    buf: Vec<u8>,
    offset: u64,
    end: Option<Duration>,
}

pub fn run(job: Job<'_>, timer: &mut dyn SampleTimer) -> Result<Sample> {
    let Job { files, cfg, cancel } = job;
    let depth = files.len().max(1).next_power_of_two() as u32;
    let mut ring = IoUring::new(depth).context("io_uring_setup")?;
    let chunk = (cfg.read_kib as usize * 1024).max(1);
    let mut state: Vec<FileState> = files
        .iter()
        .map(|_| FileState {
            buf: vec![0u8; chunk],
            offset: 0,
            end: None,
        })
        .collect();
    let t0 = clock::now();
    let usage0 = thread_usage();
    let device0 = device_read_bytes(IoScope::Thread);
    timer.restart();
    let start = since(t0);
    let outcome = drive(&mut ring, &files, &mut state, t0, cancel);
    timer.stop();
    if let Err(e) = &outcome {
        if e.downcast_ref::<InFlight>().is_some() {
            // Reads may still land in the buffers after the ring is gone: never free them.
            std::mem::forget(state);
            return Err(outcome.unwrap_err());
        }
    }
    let bytes = outcome?;
    let device = device_read_bytes(IoScope::Thread);
    let ends: Vec<Duration> = state.iter().filter_map(|s| s.end).collect();
    let worker = WorkerReport {
        end: ends.iter().max().copied().unwrap_or(start),
        usage: thread_usage().since(&usage0),
        device_bytes: device.zip(device0).map(|(b, a)| b.saturating_sub(a)),
        bytes,
    };
    Ok(Sample {
        start,
        ends,
        workers: vec![worker],
    })
}

/// The ring failed with reads still in flight.
#[derive(Debug)]
struct InFlight(std::io::Error);

impl std::fmt::Display for InFlight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "io_uring_enter failed with reads in flight: {}", self.0)
    }
}

impl std::error::Error for InFlight {}

/// Submit one read per file, then resubmit each file's next chunk as completions arrive, until
/// every file hit its end. After an error no more reads are submitted, but those in flight are
/// still awaited, so no buffer is freed under the kernel. Returns the bytes read.
fn drive(
    ring: &mut IoUring,
    files: &[File],
    state: &mut [FileState],
    t0: std::time::Instant,
    cancel: &CancelToken,
) -> Result<u64> {
    let mut in_flight = 0usize;
    let mut bytes = 0u64;
    let mut failure: Option<anyhow::Error> = None;
    for i in 0..files.len() {
        match push_read(ring, files, state, i) {
            Ok(()) => in_flight += 1,
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    while in_flight > 0 {
        match ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(InFlight(e).into()),
        }
        let done: Vec<(usize, i32)> = ring
            .completion()
            .map(|c| (c.user_data() as usize, c.result()))
            .collect();
        if failure.is_none() && cancel.is_cancelled() {
            failure = Some(anyhow::anyhow!("interrupted"));
        }
        for (i, res) in done {
            in_flight -= 1;
            if res < 0 {
                let err = std::io::Error::from_raw_os_error(-res);
                failure.get_or_insert_with(|| anyhow::anyhow!("reading file {i}: {err}"));
            } else if res == 0 {
                state[i].end = Some(since(t0));
            } else {
                state[i].offset += res as u64;
                bytes += res as u64;
                if failure.is_none() {
                    match push_read(ring, files, state, i) {
                        Ok(()) => in_flight += 1,
                        Err(e) => failure = Some(e),
                    }
                }
            }
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(bytes),
    }
}

/// Queue the next chunk of file `i`. The ring has one slot per file and a file has at most one
/// read in flight, so the submission queue cannot be full.
fn push_read(ring: &mut IoUring, files: &[File], state: &mut [FileState], i: usize) -> Result<()> {
    let s = &mut state[i];
    let entry = opcode::Read::new(
        types::Fd(files[i].as_raw_fd()),
        s.buf.as_mut_ptr(),
        s.buf.len() as u32,
    )
    .offset(s.offset)
    .build()
    .user_data(i as u64);
    // SAFETY: the buffer lives in `state`, which outlives every read in flight (`drive` awaits
    // them all, and `run` leaks `state` if it cannot), and no one else touches it meanwhile.
    let pushed = unsafe { ring.submission().push(&entry) };
    if pushed.is_err() {
        bail!("io_uring submission queue unexpectedly full");
    }
    Ok(())
}
