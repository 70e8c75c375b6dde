//! The page cache of one file: drop its pages, and count how many are still resident.
//!
//! Used to make a read cold without root (`drop_caches` needs root and empties every file's
//! cache on the machine; `POSIX_FADV_DONTNEED` drops one file's clean, unmapped pages) and to
//! *verify* the drop instead of assuming it. Counting uses `cachestat(2)` (Linux 6.5+, one call
//! per file) and falls back to `mincore(2)` over a read-only mapping on older kernels.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// `cachestat` is 451 on every architecture with the unified syscall table (x86_64, arm64, ...);
/// libc does not export the constant for x86_64 yet.
const SYS_CACHESTAT: libc::c_long = 451;

/// `struct cachestat_range` (include/uapi/linux/mman.h): `len == 0` means "to the end".
#[repr(C)]
struct CachestatRange {
    off: u64,
    len: u64,
}

/// `struct cachestat` (include/uapi/linux/mman.h).
#[repr(C)]
#[derive(Default)]
struct Cachestat {
    nr_cache: u64,
    nr_dirty: u64,
    nr_writeback: u64,
    nr_evicted: u64,
    nr_recently_evicted: u64,
}

/// How the resident page count was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountMethod {
    Cachestat,
    Mincore,
}

/// Resident pages of a file, and how they were counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Residency {
    pub resident_pages: u64,
    pub total_pages: u64,
    pub method: CountMethod,
}

impl Residency {
    /// The resident fraction, 0 for an empty file.
    pub fn share(&self) -> f64 {
        if self.total_pages == 0 {
            0.0
        } else {
            self.resident_pages as f64 / self.total_pages as f64
        }
    }
}

/// Write back the file's dirty pages, then ask the kernel to drop all its cached pages.
///
/// Dirty or mapped pages cannot be dropped, hence the `fdatasync` first; pages another process
/// maps stay resident, which [`residency`] then reveals.
pub fn drop_cached(file: &File) -> io::Result<()> {
    file.sync_data()?;
    rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed)?;
    Ok(())
}

/// How many of the file's pages are in the page cache, by `cachestat(2)` or else `mincore(2)`.
pub fn residency(file: &File) -> io::Result<Residency> {
    let len = file.metadata()?.len();
    let page = page_size() as u64;
    let total_pages = len.div_ceil(page);
    if let Some(resident_pages) = cachestat_resident(file)? {
        return Ok(Residency {
            resident_pages,
            total_pages,
            method: CountMethod::Cachestat,
        });
    }
    Ok(Residency {
        resident_pages: mincore_resident(file, len)?,
        total_pages,
        method: CountMethod::Mincore,
    })
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

/// Cached pages by `cachestat`, or `None` when the kernel lacks it (ENOSYS) or a filter denies it.
pub fn cachestat_resident(file: &File) -> io::Result<Option<u64>> {
    let range = CachestatRange { off: 0, len: 0 };
    let mut stat = Cachestat::default();
    // SAFETY: cachestat reads one cachestat_range and writes one cachestat, both valid and
    // correctly laid out (repr(C), the kernel's uapi layout); flags must be 0.
    let rc = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            file.as_raw_fd(),
            &range as *const CachestatRange,
            &mut stat as *mut Cachestat,
            0u32,
        )
    };
    if rc == 0 {
        return Ok(Some(stat.nr_cache));
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::ENOSYS) | Some(libc::EPERM) => Ok(None),
        _ => Err(err),
    }
}

/// Resident pages by mapping the file read-only (without faulting anything in) and `mincore`.
pub fn mincore_resident(file: &File, len: u64) -> io::Result<u64> {
    if len == 0 {
        return Ok(0);
    }
    let page = page_size();
    let len = usize::try_from(len).map_err(|_| io::Error::other("file too large to map"))?;
    // SAFETY: a new read-only mapping of an open file, not faulted in; nothing else refers to it.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let mut vec = vec![0u8; len.div_ceil(page)];
    // SAFETY: `addr..addr+len` is the mapping made above; `vec` has one byte per page of it.
    let rc = unsafe { libc::mincore(addr, len, vec.as_mut_ptr()) };
    let result = if rc == 0 {
        Ok(vec.iter().filter(|b| **b & 1 == 1).count() as u64)
    } else {
        Err(io::Error::last_os_error())
    };
    // SAFETY: unmapping exactly the mapping made above, which nothing references any more.
    unsafe { libc::munmap(addr, len) };
    result
}
