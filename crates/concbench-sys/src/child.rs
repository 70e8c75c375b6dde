//! Forked children that cannot outlive concbench.
//!
//! Every child forked through [`fork_child`] asks the kernel to SIGKILL it when its parent
//! thread dies (`PR_SET_PDEATHSIG`), and the returned [`Child`] kills and reaps it on drop. So a
//! failed experiment, a panic, Ctrl-C or a `kill -9` of concbench leaves nothing running.
//!
//! Caveat of `PR_SET_PDEATHSIG`: it fires when the *thread* that forked exits. Fork from a
//! thread that outlives the child (the harness thread does).

use anyhow::{bail, Result};
use rustix::process::Pid;

/// A forked child process. Dropping it kills (SIGKILL) and reaps it if it is still there.
#[derive(Debug)]
pub struct Child {
    pid: libc::pid_t,
    reaped: bool,
}

impl Child {
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    pub fn rustix_pid(&self) -> Option<Pid> {
        Pid::from_raw(self.pid)
    }

    /// Wait for the child to end; returns its raw wait status.
    pub fn wait(&mut self) -> Result<i32> {
        if self.reaped {
            bail!("child {} already reaped", self.pid);
        }
        let status = wait_pid(self.pid)?;
        self.reaped = true;
        Ok(status)
    }

    /// Reap the child if it has ended (`Some(status)`), without waiting (`None`: still running).
    pub fn try_wait(&mut self) -> Result<Option<i32>> {
        if self.reaped {
            bail!("child {} already reaped", self.pid);
        }
        let mut status = 0;
        // SAFETY: waitpid writes one c_int into `status`; WNOHANG makes it return at once.
        let rc = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        match rc {
            0 => Ok(None),
            p if p == self.pid => {
                self.reaped = true;
                Ok(Some(status))
            }
            _ => bail!("waitpid({}): {}", self.pid, std::io::Error::last_os_error()),
        }
    }

    /// Give up ownership: the caller reaps the child itself (e.g. a server that forks one child
    /// per connection and reaps them all with `waitpid(-1)`). The child still dies with its
    /// parent (PR_SET_PDEATHSIG).
    pub fn into_pid(mut self) -> libc::pid_t {
        self.reaped = true;
        self.pid
    }

    /// Send SIGKILL and reap.
    pub fn kill(&mut self) -> Result<()> {
        if self.reaped {
            return Ok(());
        }
        // SAFETY: kill with a pid we forked and have not reaped, so it cannot have been reused.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        self.wait().map(|_| ())
    }

    /// Whether the raw wait status means "exited with code 0".
    pub fn exited_ok(status: i32) -> bool {
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// `waitpid(pid, 0)`, retried on EINTR. Returns the raw status.
pub fn wait_pid(pid: libc::pid_t) -> Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes one c_int into `status`, which lives across the call.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            return Ok(status);
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            bail!("waitpid({pid}): {err}");
        }
    }
}

/// Fork; in the child, arrange to die with the parent, run `body` and `_exit` with its code.
///
/// `body` runs in a copy of a possibly multi-threaded process: it must not wait for locks other
/// threads could have held at fork time. glibc's fork handlers keep malloc usable, so allocating
/// is fine; taking `stdout`'s lock is not (write to raw descriptors instead), and neither is
/// creating an `anyhow` error while `RUST_BACKTRACE` is set (capturing takes a global lock). A panic in `body`
/// exits the child with code 101 instead of unwinding into the parent's code.
pub fn fork_child(body: impl FnOnce() -> i32) -> Result<Child> {
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: fork has no memory-safety preconditions; the child only runs `body` (whose
    // contract is stated above) and then `_exit`s without returning into the parent's frames.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        bail!("fork: {}", std::io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number; getppid has no preconditions.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            // The parent may have died between fork and prctl: then nobody would signal us.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
        }
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or(101);
        // SAFETY: _exit ends the child without running the parent's atexit handlers or
        // destructors, which belong to the parent.
        unsafe { libc::_exit(code) };
    }
    Ok(Child { pid, reaped: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_exit_code_is_reported() {
        let mut c = fork_child(|| 0).unwrap();
        assert!(Child::exited_ok(c.wait().unwrap()));
        let mut c = fork_child(|| 3).unwrap();
        let s = c.wait().unwrap();
        assert!(libc::WIFEXITED(s) && libc::WEXITSTATUS(s) == 3);
    }

    #[test]
    fn dropping_a_child_kills_and_reaps_it() {
        let c = fork_child(|| {
            std::thread::sleep(std::time::Duration::from_secs(60));
            0
        })
        .unwrap();
        let pid = c.pid();
        drop(c);
        // SAFETY: kill with signal 0 only checks existence.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        assert!(!alive, "child {pid} still exists after drop");
    }
}
