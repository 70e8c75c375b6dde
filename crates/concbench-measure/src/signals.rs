//! Ctrl-C, SIGTERM and SIGHUP (the terminal closed): the first asks the run to stop cleanly, the
//! second ends the process.
//!
//! A clean stop lets the harness tear the current experiment down (children killed and reaped,
//! files removed). If the user insists, exiting is still safe: every forked child dies with its
//! parent (`PR_SET_PDEATHSIG`, see `concbench-sys::child`), and before exiting the second
//! signal writes back the idle states the process or its worker disabled
//! ([`crate::journal::restore_on_exit`]): no destructor runs on that path.
//!
//! The handler only sets an atomic flag — no helper thread (as the `ctrlc` crate would start):
//! a second thread in the process makes every `fork` measurably slower (about 30% on a 2-CPU
//! VM), which would bias the process experiments.

use concbench_core::CancelToken;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Install the handlers once per process; returns the token experiments poll.
pub fn install_cancel_handler() -> anyhow::Result<CancelToken> {
    install_cancel_handler_below(&crate::idle::Root::default())
}

/// As [`install_cancel_handler`], with the restore journals below `root` (a test's tree).
pub fn install_cancel_handler_below(root: &crate::idle::Root) -> anyhow::Result<CancelToken> {
    crate::journal::arm(root);
    let flag = Arc::new(AtomicBool::new(false));
    // Under `nohup` SIGHUP is ignored on purpose: the run must outlive its terminal.
    let hangup = (!ignored(SIGHUP)).then_some(SIGHUP);
    if hangup.is_some() {
        // SAFETY: the action makes only async-signal-safe calls (fstat, open, dup2, close).
        unsafe { signal_hook::low_level::register(SIGHUP, leave_the_terminal) }?;
    }
    for sig in [SIGINT, SIGTERM].into_iter().chain(hangup) {
        // Registered first so it runs before the flag is set: a second signal restores what the
        // journals hold and exits at once.
        let armed = flag.clone();
        // SAFETY: the action loads an atomic, replays the journals with async-signal-safe calls
        // only (see `restore_on_exit`) and `_exit`s.
        unsafe {
            signal_hook::low_level::register(sig, move || {
                if armed.load(Ordering::SeqCst) {
                    crate::journal::restore_on_exit();
                    signal_hook::low_level::exit(130);
                }
            })
        }?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(CancelToken::from_flag(flag))
}

/// After SIGHUP every write to the closed terminal fails (EIO), and `eprintln!` panics on a
/// failed write: the run would die before writing its document. So stdout and stderr, where they
/// are a terminal (a character device), are pointed at /dev/null; files and pipes stay.
fn leave_the_terminal() {
    // SAFETY: open, fstat, dup2 and close are async-signal-safe; the path is a static C string;
    // fstat writes only into the local `st`.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null < 0 {
            return;
        }
        for fd in [libc::STDOUT_FILENO, libc::STDERR_FILENO] {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFCHR {
                libc::dup2(null, fd);
            }
        }
        libc::close(null);
    }
}

/// Whether `sig` is ignored in this process (inherited through exec, as `nohup` does).
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one into `old`.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}
