//! How every measuring command ends: the answer on stdout, printed even when a write failed (the
//! error follows it), and the exit code of the run.

use crate::output::Written;
use crate::stdout::out;
use anyhow::Result;
use concbench_core::ResultDoc;
use concbench_report::{Exporter, Terminal};
use std::process::ExitCode;

/// Print the answer (every table with `all`), pointing at the files `written` holds; then fail
/// with the first write that failed, or exit with the run's code.
pub fn show(doc: &ResultDoc, all: bool, written: Written) -> Result<ExitCode> {
    let terminal = Terminal {
        width: concbench_report::terminal::stdout_width(),
        all,
        files: written.files.clone(),
    };
    out!("{}", terminal.render(doc)?);
    written.result()?;
    Ok(exit_code(doc))
}

/// 130 when interrupted, 1 when a variant failed, 0 otherwise.
pub fn exit_code(doc: &ResultDoc) -> ExitCode {
    if doc.interrupted {
        ExitCode::from(130)
    } else if !doc.failures.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
