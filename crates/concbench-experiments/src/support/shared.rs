//! Memory shared with forked children: an anonymous `MAP_SHARED` mapping made before fork, so
//! the parent, its threads and its children all see the same pages (atomics, futex words, data).

use anyhow::{bail, Result};

/// `len` bytes of zero-filled shared memory, page-aligned; unmapped with [`unmap`].
pub fn map(len: usize) -> Result<*mut u8> {
    // SAFETY: an anonymous shared mapping with no address hint; checked for failure below.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        bail!("mmap(MAP_SHARED): {}", std::io::Error::last_os_error());
    }
    Ok(base.cast())
}

/// Unmap what [`map`] returned.
///
/// # Safety
/// `base` and `len` must come from one [`map`] call, and nothing may use the memory afterwards.
pub unsafe fn unmap(base: *mut u8, len: usize) {
    // SAFETY: the caller guarantees base/len describe a live mapping nobody uses any more.
    unsafe { libc::munmap(base.cast(), len) };
}

/// One value of `T` in shared memory. `T` must be valid when all-zero (atomics, integers).
pub struct Shared<T> {
    base: *mut u8,
    _t: std::marker::PhantomData<T>,
}

// SAFETY: the value is only reached through `&T`; `T: Sync` makes that safe from any thread (and
// a forked child has its own copy of this handle on the same pages).
unsafe impl<T: Sync> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Shared<T> {}

impl<T: Sync> Shared<T> {
    /// A zero-filled `T` in a fresh shared mapping.
    pub fn zeroed() -> Result<Self> {
        Ok(Self {
            base: map(std::mem::size_of::<T>().max(1))?,
            _t: std::marker::PhantomData,
        })
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the mapping is page-aligned, zero-filled (a valid T by the type's contract) and
        // lives as long as self.
        unsafe { &*(self.base as *const T) }
    }
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // SAFETY: base/size come from `map` in `zeroed`; &self borrows have ended.
        unsafe { unmap(self.base, std::mem::size_of::<T>().max(1)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn a_forked_child_writes_what_the_parent_reads() {
        let shared = Shared::<AtomicU64>::zeroed().unwrap();
        let mut child = concbench_sys::fork_child(|| {
            shared.store(42, Ordering::SeqCst);
            0
        })
        .unwrap();
        child.wait().unwrap();
        assert_eq!(shared.load(Ordering::SeqCst), 42);
    }
}
