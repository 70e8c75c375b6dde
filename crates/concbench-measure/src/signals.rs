//! Ctrl-C and SIGTERM: the first asks the run to stop cleanly, the second ends the process.
//!
//! A clean stop lets the harness tear the current experiment down (children killed and reaped,
//! files removed). If the user insists, exiting is still safe: every forked child dies with its
//! parent (`PR_SET_PDEATHSIG`, see `concbench-sys::child`).
//!
//! The handler only sets an atomic flag — no helper thread (as the `ctrlc` crate would start):
//! a second thread in the process makes every `fork` measurably slower (about 30% on a 2-CPU
//! VM), which would bias the process experiments.

use concbench_core::CancelToken;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Install the handlers once per process; returns the token experiments poll.
pub fn install_cancel_handler() -> anyhow::Result<CancelToken> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        // Registered first so it runs before the flag is set: a second signal exits at once.
        signal_hook::flag::register_conditional_shutdown(sig, 130, flag.clone())?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(CancelToken::from_flag(flag))
}
