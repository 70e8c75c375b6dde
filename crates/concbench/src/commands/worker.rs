//! `concbench __worker`: measure the one variant the coordinator sends on stdin (see
//! `concbench_measure::isolate`).

use std::process::ExitCode;

pub fn worker() -> anyhow::Result<ExitCode> {
    concbench_measure::isolate::worker::serve(concbench_experiments::at)?;
    Ok(ExitCode::SUCCESS)
}
