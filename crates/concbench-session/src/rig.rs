//! What a run measures with and what it gives back: the rig (the worker runner, the machine's
//! clock and counters, whoever shows progress, Ctrl-C, the host facts) and the finished run (its
//! document and how the run went).

use crate::machine::Machine;
use crate::monitor::Load;
use crate::runner::RoundRunner;
use crate::settle::Settled;
use crate::variant::Variant;
use concbench_core::{CancelToken, Host, ResultDoc};
use concbench_measure::HarnessEvent;
use std::time::Duration;

/// What the run tells whoever shows progress.
pub trait Observer {
    /// The machine is still busy: other processes use `others` CPUs after `waited`.
    fn settling(&mut self, others: f64, waited: Duration, limit: Duration);
    /// The planned total of rounds changed (it grows pass by pass, and as undecided verdicts
    /// ask for more).
    fn planned(&mut self, rounds: usize);
    /// The plan's total before the first round: every variant's base rounds (a verdict's six,
    /// another's one). The budget may cut it short, and undecided verdicts may add to it; told
    /// once, so that a progress bar's total does not climb from the first pass's count.
    fn estimated(&mut self, _rounds: usize) {}
    fn round_started(&mut self, pass: usize, variant: &Variant);
    fn harness_event(&mut self, event: HarnessEvent);
    fn round_ended(&mut self);
    fn note(&mut self, line: &str);
    /// The measuring has ended (before the document is made).
    fn finished(&mut self) {}
}

/// What measures the rounds and where: the worker runner, the machine's clock and counters,
/// whoever shows progress, Ctrl-C, and the host facts.
pub struct Rig<'a> {
    pub runner: &'a mut dyn RoundRunner,
    pub machine: &'a dyn Machine,
    pub observer: &'a mut dyn Observer,
    pub cancel: &'a CancelToken,
    pub host: &'a Host,
}

/// How the run went, beside its document: for the closing line.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    /// Rounds measured and passes run.
    pub rounds: usize,
    pub passes: usize,
    pub settled: Option<Settled>,
    /// Other processes' CPUs and the steal share over the whole run.
    pub load: Option<Load>,
}

/// The finished run.
#[derive(Debug, Clone)]
pub struct Finished {
    pub doc: ResultDoc,
    pub stats: RunStats,
}
