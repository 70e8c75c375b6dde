//! One file per command.

mod advise;
mod compare;
mod fleet;
mod history;
mod list;
mod load;
mod push;
mod replicate;
mod report;
mod run;
mod serve;
mod worker;

use crate::args::{Cli, Command};
use std::process::ExitCode;

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::List => list::list(),
        Command::Report(a) => report::report(a),
        Command::Replicate(a) => replicate::replicate(a),
        Command::History(a) => history::history(a),
        Command::Compare(a) => compare::compare(a),
        Command::Advise(a) => advise::advise(a),
        Command::Serve(a) => serve::serve(a),
        Command::Load(a) => load::load(a),
        Command::Push(a) => push::push(a),
        Command::Fleet(a) => fleet::fleet(a),
        Command::Worker => worker::worker(),
    }
}

/// Write `text` to `path`, naming the flag in the error.
pub(crate) fn write_output(flag: &str, path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            concbench_core::UsageError::new(format!(
                "{flag}: cannot create {}: {e}",
                parent.display()
            ))
        })?;
    }
    std::fs::write(path, text).map_err(|e| {
        concbench_core::UsageError::new(format!(
            "{flag}: cannot write {}: {e}; choose a writable path",
            path.display()
        ))
    })?;
    Ok(())
}
