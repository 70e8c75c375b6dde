//! `concbench man`: the man page, generated from the command line's own definition
//! (clap_mangen): `concbench.1` on stdout, or with `--dir` one page per command.

use crate::args::{Cli, ManArgs};
use crate::stdout::{errln, out};
use anyhow::Result;
use clap::CommandFactory;
use concbench_core::UsageError;
use std::process::ExitCode;

pub fn man(args: ManArgs) -> Result<ExitCode> {
    let Some(dir) = &args.dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(Cli::command()).render(&mut page)?;
        out!("{}", String::from_utf8_lossy(&page));
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .and_then(|()| clap_mangen::generate_to(Cli::command(), dir))
        .map_err(|e| {
            UsageError::new(format!(
                "--dir: cannot write the man pages into {}: {e}; pass a folder you can write to",
                dir.display()
            ))
        })?;
    errln!(
        "concbench: wrote the man pages into {} (read one with `man {}/concbench.1`)",
        dir.display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
