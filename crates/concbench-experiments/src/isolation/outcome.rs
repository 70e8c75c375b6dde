//! What one run of a pool reports.

/// Tasks completed, whether the pool lived on, and how long recovery took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub tasks: u64,
    pub completed: u64,
    /// The pool finished every task but the poisoned one.
    pub survived: bool,
    /// From the crash report to the supervisor reaping the dead worker, microseconds.
    pub detect_us: Option<f64>,
    /// From reaping the dead worker to its replacement reporting ready, microseconds.
    pub respawn_us: Option<f64>,
}

impl Outcome {
    pub fn lost(&self) -> u64 {
        self.tasks - self.completed
    }
}
