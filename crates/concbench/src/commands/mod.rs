//! One file per command.

mod advise;
mod capacity;
mod check;
mod compare;
mod completions;
pub(crate) mod cpus;
mod crossover;
mod fleet;
mod history;
mod holder;
mod limit;
mod list;
mod load;
mod man;
mod pooling;
mod push;
mod replicate;
mod report;
mod run;
mod serve;
mod warmup;
mod worker;

use crate::args::{Cli, Command};
use std::process::ExitCode;

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::List(a) => list::list(a),
        Command::Report(a) => report::report(a),
        Command::Replicate(a) => replicate::replicate(a),
        Command::History(a) => history::history(a),
        Command::Compare(a) => compare::compare(a),
        Command::Advise(a) => advise::advise(a),
        Command::Serve(a) => serve::serve(a),
        Command::Load(a) => load::load(a),
        Command::Warmup(a) => warmup::warmup(a),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => man::man(a),
        Command::Push(a) => push::push(a),
        Command::Fleet(a) => fleet::fleet(a),
        Command::Check(a) => check::check(a),
        Command::Capacity(a) => capacity::capacity(a),
        Command::Crossover(a) => crossover::crossover(a),
        Command::Worker => worker::worker(),
        Command::Holder => holder::holder(),
    }
}
