//! One variant of a run, as the session schedules it and a runner measures it.

use concbench_core::{Meta, Params};

/// One variant of the run: the registry index the worker looks it up by, and what it records.
#[derive(Debug, Clone)]
pub struct Variant {
    pub index: usize,
    pub meta: Meta,
    /// Its params as recorded (placement included).
    pub params: Params,
    /// What is read from it is a difference with other variants, pass by pass
    /// (`Experiment::paired`): every variant of the run then gets a verdict's rounds.
    pub paired: bool,
    /// Consecutive rounds one setup serves (`Experiment::rounds_per_setup`): a server started
    /// once, warmed to steady state and measured in that many rounds before a fresh one. 1:
    /// every round is a fresh worker.
    pub rounds_per_setup: usize,
}

impl Variant {
    pub fn label(&self) -> String {
        format!("{} {}", self.meta.id, self.params.compact())
    }
}
