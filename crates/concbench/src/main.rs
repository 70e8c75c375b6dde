//! concbench: what concurrency really costs on this machine.
//!
//! The binary is thin: parse arguments, dispatch to one file per command, map errors to exit
//! codes (0 success, 1 measurement failure, 2 bad usage or input, 130 interrupted).

// Output goes through `stdout::out!` and `errln!`, which end quietly when the reader goes away.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod closing_line;
mod commands;
mod db;
mod document;
mod leftovers;
mod output;
mod progress;
mod rig;
mod run_lock;
mod screen;
mod stdout;

use crate::stdout::errln;
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = args::Cli::parse();
    match commands::dispatch(args) {
        // Output lost to a full disk is a failure even when the command itself succeeded.
        Ok(code) if code == ExitCode::SUCCESS && stdout::failed() => ExitCode::from(1),
        Ok(code) => code,
        Err(err) => {
            errln!("concbench: error: {err:#}");
            if concbench_core::error::is_usage_error(&err) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
