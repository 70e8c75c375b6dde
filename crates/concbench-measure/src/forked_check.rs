//! Test support: run an assertion about this process's own memory in a forked, single-threaded
//! copy of the test binary.
//!
//! The test harness runs tests as threads of one process. A test that forks makes every page of
//! that process shared copy-on-write for as long as its child lives, so another test measuring
//! "PSS grew by what I touched" saw half of it (regression: CI failure
//! `touching_private_memory_raises_pss_rss_and_commit`, PSS 8.9 MiB for a 16 MiB block while a
//! sibling test's child was alive). In a forked child no sibling test runs, so nothing can fork it.
//!
//! That was not enough: the child still shares the parent's pages copy-on-write, and a sibling
//! test forking the *parent* while the child measures adds a third mapper to those pages, so the
//! child's share of them falls (regression: CI failure, same test, PSS 6.8 MiB for 16 MiB while
//! the sibling `pss_of_a_forked_child_excludes_what_it_shares` held 32 MiB and forked). PSS can
//! only fall by a new mapper, so [`in_forked_child`] holds the fork lock while its child lives,
//! and every other test in this crate forks the test process through [`fork_test_child`], which
//! takes it around the fork.
//! (A child started by `std::process::Command` is spawned with `CLONE_VM`, sharing, not copying,
//! the parent's mappings until it execs, so it adds no mapper.)

use std::sync::{Mutex, MutexGuard};

/// Held around every fork of the test process, and for the life of an [`in_forked_child`] child.
static FORKS: Mutex<()> = Mutex::new(());

/// Take the fork lock. A test that panicked while holding it leaves nothing inconsistent (the
/// lock guards no data), so a poisoned lock is taken as it is.
fn fork_guard() -> MutexGuard<'static, ()> {
    FORKS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `concbench_sys::fork_child` for a test of this crate, under the fork lock.
///
/// Not for use inside an [`in_forked_child`] check: that child inherits the lock held, and no
/// other check measures while it lives, so it forks with `fork_child` itself.
pub(crate) fn fork_test_child(body: impl FnOnce() -> i32) -> anyhow::Result<concbench_sys::Child> {
    let _no_check_measuring = fork_guard();
    concbench_sys::fork_child(body)
}

/// Run `check` in a forked child and return its verdict: `Ok(())`, or the message it failed with
/// (sent back through a pipe because the child must not touch the parent's stdout lock).
pub(crate) fn in_forked_child(check: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    let _no_sibling_forks = fork_guard();
    let (r, w) = rustix::pipe::pipe().map_err(|e| e.to_string())?;
    let mut child = concbench_sys::fork_child(move || match check() {
        Ok(()) => 0,
        Err(message) => {
            let _ = rustix::io::write(&w, message.as_bytes());
            1
        }
    })
    .map_err(|e| e.to_string())?;
    let status = child.wait().map_err(|e| e.to_string())?;
    if concbench_sys::Child::exited_ok(status) {
        return Ok(());
    }
    let mut message = vec![0u8; 4096];
    let n = rustix::io::read(&r, &mut message).unwrap_or(0);
    Err(format!(
        "check failed in the forked child (status {status:#x}): {}",
        String::from_utf8_lossy(&message[..n])
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passing_check_passes_and_a_failing_one_brings_its_message_back() {
        assert_eq!(in_forked_child(|| Ok(())), Ok(()));
        let err = in_forked_child(|| Err("seven is not eight".into())).unwrap_err();
        assert!(err.contains("seven is not eight"), "{err}");
    }
}
