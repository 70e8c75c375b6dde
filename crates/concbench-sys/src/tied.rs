//! Programs started with `std::process::Command` that cannot outlive the thread that started them.
//!
//! [`spawn_tied`] starts the program in a process group of its own (so a Ctrl-C at the terminal
//! reaches concbench, which tears down in order, and not the program directly), asks the kernel
//! to SIGKILL it when the starting thread dies (`PR_SET_PDEATHSIG`, as [`crate::fork_child`]
//! does) and restricts it to the given CPUs. [`end_group`] ends it: a grace period to exit on its
//! own, then SIGKILL to its whole tree and its whole group, so helpers it forked go too — those
//! that left the group as well (PHP-FPM's master calls `setsid`; see [`crate::end_tree`]).

use anyhow::{bail, Context, Result};
use rustix::thread::CpuSet;
use std::ffi::CString;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// Start `cmd` tied to the calling thread, allowed only on `cpus` (inherited when empty).
pub fn spawn_tied(cmd: &mut Command, cpus: &[usize]) -> Result<Child> {
    spawn_tied_in(cmd, cpus, &[])
}

/// As [`spawn_tied`], and moved into a control group before it runs: the child writes `0` (itself)
/// into each of `cgroup_procs` (the `cgroup.procs` files of a group, one per cgroup v1 hierarchy
/// or one for v2), so a runtime that sizes itself from its CPU quota or memory limit at start-up
/// already sees the group's. A write that fails fails the spawn.
pub fn spawn_tied_in(cmd: &mut Command, cpus: &[usize], cgroup_procs: &[CString]) -> Result<Child> {
    let mut set = CpuSet::new();
    for &c in cpus {
        set.set(c);
    }
    let pin = !cpus.is_empty();
    let joins: Vec<CString> = cgroup_procs.to_vec();
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the hook runs in the forked child before exec and only makes async-signal-safe
    // system calls (setpgid, prctl, getppid, open/write/close, sched_setaffinity) on values
    // prepared beforehand; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setpgid(0, 0) != 0 || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl: then nobody would signal us.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            for procs in &joins {
                join_cgroup(procs)?;
            }
            if pin {
                rustix::thread::sched_setaffinity(None, &set)?;
            }
            Ok(())
        });
    }
    cmd.spawn()
        .with_context(|| format!("starting {:?}", cmd.get_program()))
}

/// Move the calling process into the group whose `cgroup.procs` is `procs` (writing `0` names the
/// writer, in cgroup v1 and v2 alike). Async-signal-safe: open, write and close on a prepared path.
pub fn join_cgroup(procs: &CString) -> std::io::Result<()> {
    // SAFETY: `procs` is a valid NUL-terminated path; open returns a descriptor or -1.
    let fd = unsafe { libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: writes one byte from a static buffer to the descriptor opened above.
    let written = unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) };
    let err = std::io::Error::last_os_error();
    // SAFETY: closes the descriptor opened above, once.
    unsafe { libc::close(fd) };
    if written == 1 {
        Ok(())
    } else {
        Err(err)
    }
}

/// Whether `child` has exited, without reaping it (its pid, and so its group id, stay reserved).
fn has_exited(child: &Child) -> Result<bool> {
    // SAFETY: an all-zero siginfo_t is a valid value of this plain C struct.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid writes one siginfo_t into `info`; WNOWAIT leaves the child waitable.
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            child.id(),
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if rc != 0 {
        bail!(
            "waitid({}): {}",
            child.id(),
            std::io::Error::last_os_error()
        );
    }
    // SAFETY: waitid filled `info`; si_pid is 0 when the child has not exited yet.
    Ok(unsafe { info.si_pid() } != 0)
}

/// Give `child` (started by [`spawn_tied`]) up to `grace` to exit, then SIGKILL every process
/// descending from it and its whole process group, and reap it. Returns its exit status.
pub fn end_group(child: &mut Child, grace: Duration) -> Result<ExitStatus> {
    let deadline = Instant::now() + grace;
    while !has_exited(child)? && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Its tree first, while every process in it still has its parent: what left the group (a
    // server's pool in a session of its own) is found only by parentage. Regression: Ctrl-C or
    // SIGTERM while S2's PHP-FPM served killed the PHP probe's group and left the pool running.
    crate::kill_tree(child.id() as libc::pid_t, true);
    // The leader is not reaped yet, so its pid cannot have been reused as another group's id.
    // SAFETY: kill with a negative pid signals the process group we created in spawn_tied.
    unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
    child
        .wait()
        .with_context(|| format!("reaping {}", child.id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_ignores_eof_is_killed_with_its_group() {
        // `sh` starts a background sleeper in the same group, then sleeps itself.
        assert_its_helper_dies("sleep 60 & echo $!; sleep 60");
    }

    #[test]
    fn a_helper_that_left_the_group_is_killed_with_the_tree() {
        // Regression: PHP-FPM's master (`setsid`) outlived the PHP probe's group kill.
        assert_its_helper_dies("setsid sleep 60 & echo $!; sleep 60");
    }

    /// Start `sh -c script` (which prints its helper's pid), end it, and check the helper died.
    fn assert_its_helper_dies(script: &str) {
        let mut child = spawn_tied(
            Command::new("sh")
                .args(["-c", script])
                .stdout(std::process::Stdio::piped()),
            &[],
        )
        .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let grandchild: i32 = line.trim().parse().unwrap();
        let status = end_group(&mut child, Duration::from_millis(50)).unwrap();
        assert!(!status.success());
        // The grandchild was killed; it may linger as a zombie of init, but not run. A killed
        // task still has to be scheduled to die: on a loaded machine that takes a while, so poll
        // (a grandchild that was never signalled sleeps its 60 s and fails this).
        let stat =
            || std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
        let gone = |state: &str| state.is_empty() || state.contains(") Z");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !gone(&stat()) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let state = stat();
        assert!(gone(&state), "grandchild still running: {state}");
    }

    #[test]
    fn pinning_applies_to_the_started_program() {
        let cpu = *crate::allowed_cpus().unwrap().last().unwrap();
        let out = spawn_tied(
            Command::new("sh")
                .args(["-c", "grep Cpus_allowed_list /proc/self/status"])
                .stdout(std::process::Stdio::piped()),
            &[cpu],
        )
        .unwrap()
        .wait_with_output()
        .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.trim().ends_with(&format!("\t{cpu}")), "{text}");
    }
}
