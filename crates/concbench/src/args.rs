//! The command line (see DESIGN.md: the command set is a contract).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "concbench",
    version,
    about = "What concurrency really costs on this machine: processes vs threads vs coroutines, measured with confidence intervals."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure: print a table (progress on stderr) and write the result document.
    Run(RunArgs),
    /// Every experiment id, one line each, with a one-line description.
    List,
    /// Re-render a stored result document without measuring again.
    Report(ReportArgs),
    /// Internal: measure one variant for `run` (reads a job on stdin). Not for direct use.
    #[command(name = "__worker", hide = true)]
    Worker,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Pin {
    /// Pin as each experiment asks (same CPU for single-unit experiments).
    Auto,
    /// Pin nothing: the scheduler decides.
    None,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Short samples (>= 1 ms), 5 repetitions, smaller sweeps: the whole suite in about a minute.
    #[arg(long)]
    pub quick: bool,
    /// Only these families or experiment ids (comma-separated), e.g. `create,switch.pipe`.
    #[arg(long, value_delimiter = ',', value_name = "FAMILY|ID")]
    pub only: Vec<String>,
    /// Where to write the result document (default: concbench-results/run-<time>.json).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the report as markdown.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// CPU pinning policy.
    #[arg(long, value_enum, default_value_t = Pin::Auto)]
    pub pin: Pin,
    /// Repetitions per variant (default 10, or 5 with --quick).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub repeat: Option<u32>,
    /// Only variants whose params include KEY=VALUE (repeatable; all must match), e.g.
    /// `--only io.read --where files=4 --where file_mib=128`.
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = parse_where)]
    pub where_params: Vec<(String, String)>,
    /// Directory (on a disk, not tmpfs) for the io family's data files (default: a new directory
    /// in $TMPDIR, /var/tmp or the current directory, whichever is disk-backed).
    #[arg(long, value_name = "DIR")]
    pub io_dir: Option<PathBuf>,
    /// Keep the io family's data files after the run (with --io-dir, the next run reuses them).
    #[arg(long)]
    pub keep_io_files: bool,
    /// Prove every experiment runs: one repetition of a few iterations. For tests; not a measurement.
    #[arg(long, hide = true)]
    pub smoke: bool,
}

/// `KEY=VALUE` for `--where`.
fn parse_where(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!(
            "'{s}' is not KEY=VALUE; for example --where files=10 (keys are the params shown by a run)"
        )),
    }
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A result document written by `concbench run`.
    pub file: PathBuf,
    /// Write markdown here.
    #[arg(long, value_name = "OUT")]
    pub markdown: Option<PathBuf>,
    /// Write CSV here.
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,
}
