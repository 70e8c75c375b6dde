//! Ctrl-C, SIGTERM (`kill`, a service manager stopping the run) and SIGHUP (the terminal or the
//! ssh session closed): the first of any of them asks the run to stop cleanly, the second ends
//! the process and everything it started.
//!
//! All three are one cancel: the same token, so the same path — the round's worker is told to
//! stop and tears its experiment down (servers and their pools included), resident workers end
//! with what they set up, the run lock is released and what was measured is written, marked
//! interrupted. The exit code is 130 whichever signal it was, not 143 for SIGTERM or 129 for
//! SIGHUP: the process did not die of the signal, it stopped cleanly, and 130 is the one code
//! scripts check for "interrupted, partial document written" (docs/COMMANDS.md). (`concbench
//! serve` is the exception: stopping a server is its normal end, exit 0.)
//!
//! A clean stop lets the harness tear the current experiment down (children killed and reaped,
//! files removed). If the user insists, exiting is still safe: before exiting, the second
//! signal's handler SIGKILLs every process descending from this one
//! ([`concbench_sys::end_tree`]: a resident server's pool that left its process group and is
//! tied to no parent goes too), and writes back the idle states the process or its worker disabled
//! ([`crate::journal::restore_on_exit`]): no destructor runs on that path.
//!
//! The handler only sets an atomic flag — no helper thread (as the `ctrlc` crate would start):
//! a second thread in the process makes every `fork` measurably slower (about 30% on a 2-CPU
//! VM), which would bias the process experiments.

use concbench_core::CancelToken;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The signals that cancel a run (SIGHUP unless it is ignored, as under `nohup`).
pub const CANCELLING: [libc::c_int; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The exit code of a process that a second signal ended (and of a run stopped by the first).
pub const INTERRUPTED_EXIT: i32 = 130;

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
    for sig in CANCELLING
        .into_iter()
        .filter(|&s| s != SIGHUP)
        .chain(hangup)
    {
        // Registered first so it runs before the flag is set: a second signal ends the tree,
        // restores what the journals hold and exits at once.
        let armed = flag.clone();
        // SAFETY: the action loads an atomic, kills the process tree and replays the journals
        // with async-signal-safe calls only (see `end_tree` and `restore_on_exit`) and `_exit`s.
        unsafe {
            signal_hook::low_level::register(sig, move || {
                if armed.load(Ordering::SeqCst) {
                    end_everything();
                }
            })
        }?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(CancelToken::from_flag(flag))
}

/// The second signal: SIGKILL every descendant first, so nothing keeps working (or serving)
/// while the journals are replayed, then restore and exit. Async-signal-safe.
fn end_everything() -> ! {
    // SAFETY: getpid has no preconditions.
    concbench_sys::kill_tree(unsafe { libc::getpid() }, false);
    crate::journal::restore_on_exit();
    signal_hook::low_level::exit(INTERRUPTED_EXIT)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idle::Root;
    use std::io::{BufRead, Read};
    use std::time::{Duration, Instant};

    /// Install the handlers in this (forked) process, with `sig`'s action reset first: the test
    /// binary may run with SIGINT or SIGHUP ignored (a background job, `nohup`).
    fn installed(sig: libc::c_int, root: &Root) -> Result<CancelToken, String> {
        // SAFETY: signal(2) only changes this process's action for `sig`.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
        install_cancel_handler_below(root).map_err(|e| format!("{e:#}"))
    }

    #[test]
    fn ctrl_c_sigterm_and_sighup_each_cancel_the_run_without_ending_it() {
        for sig in CANCELLING {
            let dir = tempfile::tempdir().unwrap();
            let root = Root::new(dir.path());
            crate::forked_check::in_forked_child(|| {
                let cancel = installed(sig, &root)?;
                if cancel.is_cancelled() {
                    return Err("cancelled before any signal".into());
                }
                // SAFETY: raise signals this process, whose handler was installed above.
                unsafe { libc::raise(sig) };
                // Still running here: the first signal only asks for a clean stop.
                match cancel.is_cancelled() {
                    true => Ok(()),
                    false => Err(format!("signal {sig} did not cancel")),
                }
            })
            .unwrap_or_else(|e| panic!("signal {sig}: {e}"));
        }
    }

    /// Regression: a second signal exited with the worker's tie (`PR_SET_PDEATHSIG`) as the only
    /// cleanup, and what had left its process group and parent (PHP-FPM's pool, nginx) served on.
    #[test]
    fn a_second_sigterm_exits_130_and_ends_what_left_the_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        // Close-on-exec: the processes under test must not hold the parent's read open.
        let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap();
        // `move`: the parent's copy of the write end goes with the closure, so the read below
        // ends when the child's does.
        let mut child = crate::forked_check::fork_test_child(move || {
            if installed(libc::SIGTERM, &root).is_err() {
                return 2;
            }
            // A child, untied, and its child in a session of its own, as PHP-FPM's master.
            let Ok(mut sh) = std::process::Command::new("sh")
                .args(["-c", "setsid sleep 60 & echo $$ $!; exec sleep 60"])
                .stdout(std::process::Stdio::piped())
                .spawn()
            else {
                return 3;
            };
            let mut line = String::new();
            let out = sh.stdout.take().expect("piped");
            if std::io::BufReader::new(out).read_line(&mut line).is_err() {
                return 3;
            }
            let _ = rustix::io::write(&w, line.as_bytes());
            // SAFETY: raise signals this process, whose handlers were installed above: the
            // first asks for a clean stop, the second ends the tree and exits.
            unsafe {
                libc::raise(libc::SIGTERM);
                libc::raise(libc::SIGTERM);
            }
            4
        })
        .unwrap();
        let status = child.wait().unwrap();
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == INTERRUPTED_EXIT,
            "status {status:#x}"
        );
        let mut text = String::new();
        std::fs::File::from(r).read_to_string(&mut text).unwrap();
        let pids: Vec<i32> = text
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect();
        assert_eq!(pids.len(), 2, "{text:?}");
        for pid in pids {
            assert!(
                ends_within(pid, Duration::from_secs(30)),
                "{pid} still runs"
            );
        }
    }

    /// Whether `pid` is gone or a zombie within `limit` (SIGKILL is delivered asynchronously;
    /// the limit only bounds a failing test).
    fn ends_within(pid: i32, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| s[s.rfind(')')? + 2..].chars().next());
            if matches!(state, None | Some('Z' | 'X')) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
