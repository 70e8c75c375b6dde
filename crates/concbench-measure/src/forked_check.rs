//! Test support: run an assertion about this process's own memory in a forked, single-threaded
//! copy of the test binary.
//!
//! The test harness runs tests as threads of one process. A test that forks makes every page of
//! that process shared copy-on-write for as long as its child lives, so another test measuring
//! "PSS grew by what I touched" saw half of it (regression: CI failure
//! `touching_private_memory_raises_pss_rss_and_commit`, PSS 8.9 MiB for a 16 MiB block while a
//! sibling test's child was alive). In a forked child no sibling test runs, so nothing can fork it.

/// Run `check` in a forked child and return its verdict: `Ok(())`, or the message it failed with
/// (sent back through a pipe because the child must not touch the parent's stdout lock).
pub(crate) fn in_forked_child(check: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
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
