//! Model `one-thread-sequential`: the calling thread reads every file in turn.

use super::config::Config;
use super::sample::{read_files_measured, since, Sample};
use anyhow::{Context, Result};
use concbench_core::{CancelToken, SampleTimer};
use concbench_measure::clock;
use std::fs::File;

pub fn run(
    mut files: Vec<File>,
    cfg: &Config,
    cancel: &CancelToken,
    timer: &mut dyn SampleTimer,
) -> Result<Sample> {
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
