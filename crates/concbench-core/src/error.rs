//! Errors with a deliberate meaning for the command line.
//!
//! Most failures are carried as `anyhow::Error` chains; a [`UsageError`] anywhere in a chain tells
//! the binary that the user asked for something impossible (exit code 2) rather than that a
//! measurement failed (exit code 1).

/// The user's input is wrong: a flag value, an unknown experiment id, an unreadable file.
///
/// The message names the flag or input and says how to fix it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UsageError {
    pub message: String,
}

impl UsageError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// True when any error in the chain is a [`UsageError`].
pub fn is_usage_error(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.is::<UsageError>())
}
