//! What an experiment's `setup` prepared for its samples (partners, pipes, a runtime, data
//! files), held until `teardown` takes it back.
//!
//! The harness calls `run` only after `setup` succeeded (core's `Experiment` contract), so a
//! missing state is a bug in the harness or the experiment, not a condition of the host: one
//! type says so, once, instead of every experiment repeating an `Option` and its error.

use anyhow::{Context, Result};

/// The state `setup` prepared, empty before `setup` and after `teardown`.
#[derive(Debug)]
pub struct Prepared<T>(Option<T>);

impl<T> Default for Prepared<T> {
    fn default() -> Self {
        Self(None)
    }
}

const NOT_PREPARED: &str = "setup did not run";

impl<T> Prepared<T> {
    /// Nothing prepared yet.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Keep what `setup` prepared (replacing an earlier state, which is dropped).
    pub fn set(&mut self, state: T) {
        self.0 = Some(state);
    }

    /// The prepared state, for a sample.
    pub fn get(&self) -> Result<&T> {
        self.0.as_ref().context(NOT_PREPARED)
    }

    /// The prepared state, mutably, for a sample.
    pub fn get_mut(&mut self) -> Result<&mut T> {
        self.0.as_mut().context(NOT_PREPARED)
    }

    /// Take the state out (for a sample that consumes it, or for `teardown`), leaving it empty.
    pub fn take(&mut self) -> Result<T> {
        self.0.take().context(NOT_PREPARED)
    }

    /// Take the state out for `teardown`: `None` when `setup` failed before preparing it.
    pub fn release(&mut self) -> Option<T> {
        self.0.take()
    }

    /// The state when prepared, for code that may run either way (a test, an `info`).
    pub fn peek(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_before_setup_is_an_error_naming_the_cause() {
        let mut p: Prepared<u32> = Prepared::empty();
        assert_eq!(p.get().unwrap_err().to_string(), "setup did not run");
        assert!(p.get_mut().is_err());
        assert!(p.take().is_err());
        assert_eq!(p.release(), None);
    }

    #[test]
    fn teardown_takes_back_what_setup_prepared_once() {
        let mut p = Prepared::empty();
        p.set(7);
        *p.get_mut().unwrap() += 1;
        assert_eq!(p.get().unwrap(), &8);
        assert_eq!(p.release(), Some(8));
        assert_eq!(p.release(), None, "taken once");
    }
}
