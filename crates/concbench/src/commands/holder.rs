//! `concbench __holder`: hold idle units for `capacity` (see `concbench_capacity::holder`).

use std::process::ExitCode;

pub fn holder() -> anyhow::Result<ExitCode> {
    concbench_capacity::holder::serve()?;
    Ok(ExitCode::SUCCESS)
}
