//! What the `share` experiments move: a message of `bytes`, and what they measure about it.
//!
//! One operation = the sender hands over one message and waits for the receiver's 1-byte (or
//! one-word) acknowledgement, so every mechanism is timed from "sender has the message" to
//! "sender knows the receiver has it", the acknowledgement going back by the same mechanism.
//! Each mechanism makes the sender copy the message once into the medium (pipe buffer, shared
//! memory, a freshly allocated `Vec` for the channel), as a producer building a message would;
//! the pipe adds the copy out of the kernel that only it needs.

use concbench_core::Placement;

/// Message sizes: a small record, a buffer, a big blob.
pub const SIZES: [u64; 3] = [64, 64 * 1024, 4 * 1024 * 1024];

/// Both placements: same CPU (every hand-over is a switch) and two CPUs (a wake-up across CPUs).
pub const PLACEMENTS: [Placement; 2] = [Placement::SameCpu, Placement::CrossCpu];

/// The last byte of every message; the receiver checks it arrived.
pub const MARK: u8 = 0xA5;

/// A message of `bytes` bytes ending in [`MARK`].
pub fn message(bytes: u64) -> Vec<u8> {
    let mut m: Vec<u8> = (0..bytes).map(|i| (i % 251) as u8).collect();
    if let Some(last) = m.last_mut() {
        *last = MARK;
    }
    m
}

/// Whether a received message is complete: the right length, ending in [`MARK`].
pub fn intact(m: &[u8], bytes: u64) -> bool {
    m.len() as u64 == bytes && m.last() == Some(&MARK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_checked_by_length_and_mark() {
        let m = message(64);
        assert!(intact(&m, 64));
        assert!(!intact(&m[..63], 64));
        assert!(!intact(&message(65)[..64], 64));
    }
}
