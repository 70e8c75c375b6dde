//! The crash scenario's fault: a real SIGSEGV, raised by the hardware, in whichever unit read
//! the crash request — what a bug in a handler does, not a signal sent from outside.

use crate::Handler;

/// Called when a unit parsed the crash request: fault if crashes are allowed, else ignore it
/// (the request then gets no answer, like any request the server does not serve).
pub fn on_crash_request(handler: &Handler) {
    if handler.allow_crash {
        segfault();
    }
}

/// Write to a page mapped without access rights: the MMU faults and the kernel delivers
/// SIGSEGV, whose default action kills the whole process (every thread in it).
pub fn segfault() -> ! {
    // SAFETY: restoring the default action of SIGSEGV (Rust's runtime installs a handler for
    // stack overflows; it would also end in the default action, but this makes it certain).
    unsafe { libc::signal(libc::SIGSEGV, libc::SIG_DFL) };
    // SAFETY: mmap of one anonymous page with no access; no existing memory is affected.
    let page = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if page != libc::MAP_FAILED {
        // SAFETY: `page` is a mapping we own; the write faults by design (PROT_NONE), which is
        // the point: the process dies of SIGSEGV here and never continues.
        unsafe { std::ptr::write_volatile(page.cast::<u8>(), 1) };
    }
    // Only reached if the mapping failed: still die of SIGSEGV.
    // SAFETY: raising a signal whose action is the default (terminate).
    unsafe { libc::raise(libc::SIGSEGV) };
    std::process::abort()
}
