//! A shared anonymous mapping (MAP_SHARED | MAP_ANONYMOUS) made before fork, so parent and
//! child see the same pages: a header of atomics for the hand-over, then the message bytes.

use anyhow::Result;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// The hand-over words at the start of the region. Futex words are 32-bit.
#[repr(C)]
pub struct Header {
    /// Messages sent; the receiver waits (futex) for it to change.
    pub sent: AtomicU32,
    /// Messages acknowledged; the sender waits (futex) for it to change.
    pub acked: AtomicU32,
    /// Length of the current message; [`STOP`] asks the receiver to exit.
    pub len: AtomicU64,
}

pub const STOP: u64 = u64::MAX;

/// Where the message bytes start: one page in, so they never share a cache line with the header.
const DATA_OFFSET: usize = 4096;

pub struct Region {
    base: *mut u8,
    len: usize,
}

// SAFETY: the region is plain shared memory; the header is only accessed through atomics and
// the data through the hand-over protocol (one writer at a time).
unsafe impl Send for Region {}

impl Region {
    pub fn new(capacity: usize) -> Result<Self> {
        let len = DATA_OFFSET + capacity;
        let base = crate::support::shared::map(len)?;
        Ok(Self { base, len })
    }

    pub fn header(&self) -> &Header {
        // SAFETY: the mapping is page-aligned, zero-filled (a valid Header) and outlives &self.
        unsafe { &*(self.base as *const Header) }
    }

    /// Copy `msg` into the data area (sender side, while the receiver is not reading).
    pub fn write(&self, msg: &[u8]) {
        assert!(
            DATA_OFFSET + msg.len() <= self.len,
            "message larger than the region"
        );
        // SAFETY: in bounds (checked above); the protocol guarantees the receiver is waiting.
        unsafe {
            std::ptr::copy_nonoverlapping(msg.as_ptr(), self.base.add(DATA_OFFSET), msg.len())
        };
    }

    /// The data area's first `len` bytes (receiver side, after the hand-over).
    pub fn read(&self, len: usize) -> &[u8] {
        assert!(DATA_OFFSET + len <= self.len, "length beyond the region");
        // SAFETY: in bounds; the sender does not write until this message is acknowledged.
        unsafe { std::slice::from_raw_parts(self.base.add(DATA_OFFSET), len) }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: base/len describe a mapping this value owns, and no borrow of it is alive.
        unsafe { crate::support::shared::unmap(self.base, self.len) };
    }
}
