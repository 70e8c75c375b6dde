//! Model `threads`: one thread per file, all released together (the seed's `CyclicBarrier`).

use super::config::Config;
use super::gate::StartGate;
use super::sample::{read_files_measured, since, Job, Sample, WorkerReport};
use anyhow::{anyhow, Context, Result};
use concbench_core::{CancelToken, SampleTimer};
use concbench_measure::clock;
use std::fs::File;
use std::sync::Arc;
use std::thread::JoinHandle;

/// Reader threads need little stack: their buffers are on the heap.
const READER_STACK: usize = 256 << 10;

type Reader = JoinHandle<std::io::Result<WorkerReport>>;

pub fn run(job: Job<'_>, timer: &mut dyn SampleTimer) -> Result<Sample> {
    let Job { files, cfg, cancel } = job;
    let t0 = clock::now();
    let gate = Arc::new(StartGate::default());
    let mut readers: Vec<Reader> = Vec::with_capacity(files.len());
    for (i, file) in files.into_iter().enumerate() {
        match spawn_reader(file, *cfg, t0, gate.clone(), cancel.clone()) {
            Ok(r) => readers.push(r),
            Err(e) => {
                gate.abort();
                join_all(readers);
                return Err(e).with_context(|| format!("starting reader thread {i}"));
            }
        }
    }
    gate.wait_ready(readers.len());
    timer.restart();
    let start = since(t0);
    gate.open();
    let reports = join_all(readers);
    timer.stop();
    let workers = reports.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(Sample {
        start,
        ends: workers.iter().map(|w| w.end).collect(),
        workers,
    })
}

fn spawn_reader(
    mut file: File,
    cfg: Config,
    t0: std::time::Instant,
    gate: Arc<StartGate>,
    cancel: CancelToken,
) -> Result<Reader> {
    Ok(std::thread::Builder::new()
        .stack_size(READER_STACK)
        .spawn(move || {
            if !gate.arrive_and_wait() {
                return Err(std::io::Error::other("start aborted"));
            }
            read_files_measured(std::slice::from_mut(&mut file), &cfg, t0, &cancel)
        })?)
}

fn join_all(readers: Vec<Reader>) -> Vec<Result<WorkerReport>> {
    readers
        .into_iter()
        .map(|r| {
            r.join()
                .map_err(|_| anyhow!("a reader thread panicked"))?
                .context("reading a file")
        })
        .collect()
}
