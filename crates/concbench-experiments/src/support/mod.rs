//! Helpers several families share.

mod repeat;

pub use repeat::repeat;
