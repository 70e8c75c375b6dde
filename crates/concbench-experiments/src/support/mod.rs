//! Helpers several families share: the cancellable inner loop, auto-reset events, turn
//! hand-overs between two units, partner threads that start pinned and report whether they got
//! ready, and the async runtime.

pub mod event;
pub mod handover;
pub mod partner;
mod repeat;
pub mod runtime;

pub use repeat::repeat;
