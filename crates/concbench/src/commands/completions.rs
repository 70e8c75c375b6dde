//! `concbench completions SHELL`: a completion script generated from the command line's own
//! definition (clap_complete), so it never falls behind a new flag.

use crate::args::{Cli, CompletionsArgs};
use crate::stdout::out;
use anyhow::Result;
use clap::CommandFactory;
use std::process::ExitCode;

pub fn completions(args: CompletionsArgs) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut offered(), "concbench", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}

/// The command line without its hidden commands: clap_complete offers hidden subcommands too,
/// and the internal `__worker` is not for users.
fn offered() -> clap::Command {
    let full = Cli::command();
    let visible: Vec<clap::Command> = full
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect();
    let mut cmd = clap::Command::new("concbench")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommands(visible);
    if let Some(about) = full.get_about() {
        cmd = cmd.about(about.clone());
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_command_is_offered_and_no_hidden_one() {
        let names: Vec<String> = offered()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        for visible in ["run", "list", "report", "replicate", "serve", "load"] {
            assert!(names.iter().any(|n| n == visible), "{names:?}");
        }
        for hidden in ["__worker", "completions", "man"] {
            assert!(!names.iter().any(|n| n == hidden), "{names:?}");
        }
    }
}
