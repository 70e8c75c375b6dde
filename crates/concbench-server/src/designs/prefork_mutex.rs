//! Stevens #4: prefork, with a pthread mutex in shared memory around `accept`
//! (PTHREAD_PROCESS_SHARED). It is also robust (PTHREAD_MUTEX_ROBUST): a child that dies while
//! holding it — the crash scenario — does not leave the others blocked forever; the next owner
//! gets EOWNERDEAD and marks it consistent.

use super::prefork::{accept_loop, supervise};
use crate::{Handler, Ready};
use anyhow::{bail, Result};
use std::net::TcpListener;

pub fn serve(listener: TcpListener, handler: Handler, workers: usize, ready: Ready) -> Result<()> {
    let mutex = SharedMutex::new()?;
    supervise(workers, ready, || {
        accept_loop(&listener, &handler, || mutex.lock(), || mutex.unlock())
    })
}

/// A robust, process-shared pthread mutex in an anonymous shared mapping inherited by fork.
struct SharedMutex {
    ptr: *mut libc::pthread_mutex_t,
}

impl SharedMutex {
    fn new() -> Result<Self> {
        let size = std::mem::size_of::<libc::pthread_mutex_t>();
        // SAFETY: an anonymous shared mapping, large enough for one mutex; never unmapped (it
        // lives as long as the server processes).
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            bail!("mmap: {}", std::io::Error::last_os_error());
        }
        let ptr = ptr.cast::<libc::pthread_mutex_t>();
        // SAFETY: the attribute is initialised before use and destroyed after; the mutex memory
        // is fresh, writable and suitably aligned (page-aligned mapping).
        unsafe {
            let mut attr: libc::pthread_mutexattr_t = std::mem::zeroed();
            libc::pthread_mutexattr_init(&mut attr);
            libc::pthread_mutexattr_setpshared(&mut attr, libc::PTHREAD_PROCESS_SHARED);
            libc::pthread_mutexattr_setrobust(&mut attr, libc::PTHREAD_MUTEX_ROBUST);
            let rc = libc::pthread_mutex_init(ptr, &attr);
            libc::pthread_mutexattr_destroy(&mut attr);
            if rc != 0 {
                bail!("pthread_mutex_init: error {rc}");
            }
        }
        Ok(Self { ptr })
    }

    fn lock(&self) -> Result<()> {
        // SAFETY: `ptr` points to an initialised process-shared mutex (see `new`).
        match unsafe { libc::pthread_mutex_lock(self.ptr) } {
            0 => Ok(()),
            // The previous owner died holding it: the mutex is ours; make it usable again.
            // SAFETY: we own the mutex after EOWNERDEAD, as pthread_mutex_consistent requires.
            libc::EOWNERDEAD => match unsafe { libc::pthread_mutex_consistent(self.ptr) } {
                0 => Ok(()),
                rc => bail!("pthread_mutex_consistent: error {rc}"),
            },
            rc => bail!("pthread_mutex_lock: error {rc}"),
        }
    }

    fn unlock(&self) -> Result<()> {
        // SAFETY: called only by the owner, right after `lock`.
        match unsafe { libc::pthread_mutex_unlock(self.ptr) } {
            0 => Ok(()),
            rc => bail!("pthread_mutex_unlock: error {rc}"),
        }
    }
}
