//! The async runtime the async-task experiments run on: tokio's current-thread scheduler, so a
//! task switch is the runtime's own work on one OS thread, never a hand-over between threads.

use anyhow::{Context, Result};
use tokio::runtime::{Builder, Runtime};

pub fn current_thread() -> Result<Runtime> {
    Builder::new_current_thread()
        .build()
        .context("building a current-thread tokio runtime")
}
