//! `create.posix_spawn` and `create.fork_exec`: start a real program (`/bin/true`) and wait for
//! it. The difference between the two is what fork copies and exec then throws away.

use crate::support::repeat;
use anyhow::{bail, Context, Result};
use concbench_core::{Experiment, Host, Meta, RunContext, RunOutput, SampleTimer, Support};
use concbench_sys::child::{wait_pid, Child};
use std::ffi::CString;

const POSIX_SPAWN: Meta = Meta {
    id: "create.posix_spawn",
    family: "create",
    title: "Process: posix_spawn /bin/true + waitpid",
    op: "posix_spawn(\"/bin/true\"), waitpid()",
    unit: "ns",
    expected_switches_per_op: None,
};

const FORK_EXEC: Meta = Meta {
    id: "create.fork_exec",
    family: "create",
    title: "Process: fork + execve /bin/true + waitpid",
    op: "fork(), child execve(\"/bin/true\"), parent waitpid()",
    unit: "ns",
    expected_switches_per_op: None,
};

/// The program started: tiny, present on every Linux system.
const TRUE_CANDIDATES: [&str; 2] = ["/bin/true", "/usr/bin/true"];

#[derive(Clone, Copy)]
enum Method {
    PosixSpawn,
    ForkExec,
}

pub struct Spawn {
    method: Method,
    /// NUL-terminated program path, argv and an empty environment, built before any fork so the
    /// child allocates nothing.
    path: CString,
}

impl Spawn {
    pub fn posix_spawn() -> Self {
        Self {
            method: Method::PosixSpawn,
            path: CString::default(),
        }
    }
    pub fn fork_exec() -> Self {
        Self {
            method: Method::ForkExec,
            path: CString::default(),
        }
    }
}

pub(crate) fn true_path() -> Option<&'static str> {
    TRUE_CANDIDATES
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

impl Experiment for Spawn {
    fn meta(&self) -> &Meta {
        match self.method {
            Method::PosixSpawn => &POSIX_SPAWN,
            Method::ForkExec => &FORK_EXEC,
        }
    }

    fn supported(&self, _host: &Host) -> Support {
        match true_path() {
            Some(_) => Support::Yes,
            None => Support::No("no /bin/true or /usr/bin/true to start".into()),
        }
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        self.path = CString::new(true_path().context("no /bin/true")?)?;
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let (argv, envp) = bare_args(&self.path);
        repeat(ctx, iterations, |_| {
            let pid = match self.method {
                Method::PosixSpawn => posix_spawn(&self.path, &argv, &envp)?,
                Method::ForkExec => fork_exec(&self.path, &argv, &envp)?,
            };
            reap_ok(pid, &self.path)
        })?;
        Ok(RunOutput::default())
    }
}

/// Wait for the started program; its non-zero exit is an error.
pub(crate) fn reap_ok(pid: i32, path: &CString) -> Result<()> {
    let status = wait_pid(pid)?;
    if !Child::exited_ok(status) {
        bail!("{} exited with status {status:#x}", path.to_string_lossy());
    }
    Ok(())
}

/// `argv` (the path alone) and an empty environment for starting `path`.
pub(crate) fn bare_args(path: &CString) -> ([*mut libc::c_char; 2], [*mut libc::c_char; 1]) {
    (
        [path.as_ptr() as *mut libc::c_char, std::ptr::null_mut()],
        [std::ptr::null_mut()],
    )
}

pub(crate) fn posix_spawn(
    path: &CString,
    argv: &[*mut libc::c_char; 2],
    envp: &[*mut libc::c_char; 1],
) -> Result<i32> {
    let mut pid = 0;
    // SAFETY: path, argv and envp are NUL-terminated and outlive the call; null file actions and
    // attributes mean "inherit everything".
    let rc = unsafe {
        libc::posix_spawn(
            &mut pid,
            path.as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            argv.as_ptr(),
            envp.as_ptr(),
        )
    };
    if rc != 0 {
        bail!("posix_spawn: {}", std::io::Error::from_raw_os_error(rc));
    }
    Ok(pid)
}

fn fork_exec(
    path: &CString,
    argv: &[*mut libc::c_char; 2],
    envp: &[*mut libc::c_char; 1],
) -> Result<i32> {
    // SAFETY: the child calls only execve and _exit, both async-signal-safe, with pointers to
    // memory prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: as above.
        unsafe {
            libc::execve(
                path.as_ptr(),
                argv.as_ptr() as *const *const libc::c_char,
                envp.as_ptr() as *const *const libc::c_char,
            );
            libc::_exit(127);
        }
    }
    if pid < 0 {
        bail!("fork: {}", std::io::Error::last_os_error());
    }
    Ok(pid)
}
