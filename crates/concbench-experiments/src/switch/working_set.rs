//! The indirect cost of a switch (lmbench `lat_ctx` style): each side of a ping-pong owns a
//! buffer and reads all of it on every turn, so the switch also pays for refilling the caches
//! the other side evicted.
//!
//! The buffer is written when allocated so every page is really backed (a never-written buffer
//! maps the shared zero page, which would fit in any cache). It is read one word per 64-byte
//! cache line, as lat_ctx sums its data.

use std::hint::black_box;

/// Words per 64-byte cache line.
const WORDS_PER_LINE: usize = 64 / std::mem::size_of::<u64>();

pub struct WorkingSet {
    words: Vec<u64>,
}

impl WorkingSet {
    /// A buffer of `kib` KiB, every page written. `0` makes an empty set whose touch is free.
    pub fn new(kib: usize) -> Self {
        Self {
            words: vec![1u64; kib * 1024 / std::mem::size_of::<u64>()],
        }
    }

    /// Read one word from every cache line; returns their sum (so it cannot be optimised out).
    pub fn touch(&self) -> u64 {
        let sum = self
            .words
            .iter()
            .step_by(WORDS_PER_LINE)
            .fold(0u64, |acc, w| acc.wrapping_add(*w));
        black_box(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touch_reads_one_word_per_cache_line() {
        assert_eq!(WorkingSet::new(0).touch(), 0);
        // 16 KiB = 256 lines of 64 bytes, each word 1.
        assert_eq!(WorkingSet::new(16).touch(), 256);
    }
}
