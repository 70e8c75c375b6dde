//! Which build of concbench is running: the SHA-256 of its own executable.
//!
//! `tool.version` is the crate's version, the same for every commit between two releases, so it
//! cannot tell "the same build" from "a build with a changed experiment". Pooling a host's runs
//! and counting the run-to-run spread in `compare` both need the runs to have measured with the
//! same code; the executable's bytes are exactly that, with no version-control system needed at
//! build time (a `cargo install` from a tarball has none).

use sha2::{Digest, Sha256};
use std::io::Read;

/// The first 16 hex digits of the SHA-256 of the running executable, or `None` when it cannot be
/// read (then runs are told apart by version alone, as before).
pub fn this_executable() -> Option<String> {
    let path = std::env::current_exe().ok()?;
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let digest = hasher.finalize();
    Some(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_running_executable_has_one_build_id() {
        let a = this_executable().expect("the test binary can read itself");
        assert_eq!(a.len(), 16);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(this_executable(), Some(a), "the same bytes, the same id");
    }
}
