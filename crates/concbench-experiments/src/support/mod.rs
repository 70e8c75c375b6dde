//! Helpers several families share: auto-reset events, turn hand-overs between two units, and
//! partner threads that start pinned and report whether they got ready.

pub mod event;
pub mod handover;
pub mod partner;
pub mod runtime;

/// How often long loops poll for Ctrl-C (a power of two, so the check is a mask).
pub const CANCEL_POLL_MASK: u64 = 1023;
