//! What the pools of `isolation.crash` work on: numbered tasks from a queue, one of them poisoned
//! — the worker that takes it reports the crash and then takes a real SIGSEGV.

use std::hint::black_box;

/// Queue entry telling a worker to exit normally.
pub const STOP: u32 = u32::MAX;

/// The task that crashes its worker: a quarter into the queue, so tasks are in flight on the
/// other workers when it happens.
pub fn poison(tasks: u64) -> u32 {
    (tasks / 4) as u32
}

/// One task's work: a few microseconds of arithmetic the compiler cannot remove.
pub fn work(id: u32) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ id as u64;
    for i in 0..4096u64 {
        h = (h ^ black_box(i)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Messages a worker sends to its supervisor, one line each.
pub fn done(id: u32) -> String {
    format!("done {id}")
}
pub fn crashing(id: u32) -> String {
    format!("crash {id}")
}
pub const READY: &str = "ready";

/// Take a real SIGSEGV: the fault this experiment exists to observe. Never returns.
pub fn segfault() -> ! {
    // No core file for an intentional crash, also not through a core_pattern pipe such as
    // systemd-coredump: a process that is not dumpable dumps nothing.
    // SAFETY: prctl(PR_SET_DUMPABLE, 0) only changes this process's dumpable flag.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0) };
    let address = std::ptr::without_provenance_mut::<u8>(8);
    // SAFETY: deliberately unsound — this store IS the experiment. Address 8 lies in page 0,
    // which Linux never maps (vm.mmap_min_addr), so the CPU faults and the kernel delivers
    // SIGSEGV, as for any null-pointer dereference of a struct field. Nothing after it runs.
    unsafe { std::ptr::write_volatile(address, 1) };
    // Only reached if page 0 were mapped: end distinctly, so the supervisor reports it.
    // SAFETY: _exit has no preconditions.
    unsafe { libc::_exit(99) }
}

/// Whether a wait status is death by SIGSEGV.
pub fn died_of_segfault(status: i32) -> bool {
    libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSEGV
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fault_is_a_real_sigsegv() {
        let mut child = concbench_sys::fork_child(|| segfault()).unwrap();
        let status = child.wait().unwrap();
        assert!(died_of_segfault(status), "status {status:#x}");
    }

    #[test]
    fn work_depends_on_the_task() {
        assert_ne!(work(1), work(2));
    }
}
