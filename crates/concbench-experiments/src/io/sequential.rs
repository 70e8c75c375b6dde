//! Model `one-thread-sequential`: the calling thread reads every file in turn.

use super::sample::{read_files_measured, since, Job, Sample};
use anyhow::{Context, Result};
use concbench_core::SampleTimer;
use concbench_measure::clock;

pub fn run(job: Job<'_>, timer: &mut dyn SampleTimer) -> Result<Sample> {
    let Job {
        mut files,
        cfg,
        cancel,
    } = job;
    let t0 = clock::now();
    timer.restart();
    let start = since(t0);
    let report = read_files_measured(&mut files, cfg, t0, cancel).context("reading the files")?;
    timer.stop();
    Ok(Sample {
        start,
        ends: vec![report.end],
        workers: vec![report],
    })
}
