//! A design running in a forked server process that cannot outlive its parent.
//!
//! The parent binds the listening socket (so it knows the port at once), forks the server
//! process through `concbench_sys::fork_child` (SIGKILLed when the parent dies; killed and
//! reaped when the handle drops) and waits for the design's "ready" line on a pipe. The server
//! process leads its own process group and pins itself before it creates anything, so every
//! thread and child it makes inherits the CPUs.
//!
//! Stopping: [`RunningServer::stop`] sends SIGTERM, whose handler (Stevens's `sig_int`) ends
//! the whole group and reaps its children before exiting, so that the parent's
//! `RUSAGE_CHILDREN` then holds the CPU time of the entire server — master, threads and every
//! child, with microsecond resolution.

use crate::{designs, listener, termination, Ready, ServerConfig};
use anyhow::{bail, Context, Result};
use concbench_sys::Child;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
use std::time::Duration;

/// How long a design may take to start (a prefork pool, a runtime) before it is called stuck.
const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// A server process. Dropping it kills the whole server (its children die with it).
pub struct RunningServer {
    child: Child,
    addr: SocketAddr,
    note: String,
    status: Option<i32>,
}

impl RunningServer {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
    /// The server's master process.
    pub fn pid(&self) -> i32 {
        self.child.pid()
    }
    /// What the design said when it became ready (e.g. an io_uring fallback); empty if nothing.
    pub fn note(&self) -> &str {
        &self.note
    }
    /// Whether the master process still runs (a crash of a single-process design ends it).
    /// Once it has ended, its wait status is kept in [`RunningServer::exit_status`].
    pub fn alive(&mut self) -> bool {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status.is_none()
    }

    /// The raw wait status once the master has ended and [`RunningServer::alive`] noticed.
    pub fn exit_status(&self) -> Option<i32> {
        self.status
    }

    /// Stop gracefully: SIGTERM, then reap. The server's own handler ends its children first.
    /// Returns the raw wait status.
    pub fn stop(mut self) -> Result<i32> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        // SAFETY: kill with the pid of our unreaped child.
        unsafe { libc::kill(self.child.pid(), libc::SIGTERM) };
        self.child.wait().context("reaping the server")
    }
}

/// Fork a server process running `config` and wait until it serves.
pub fn start(config: &ServerConfig) -> Result<RunningServer> {
    let listener = listener::bind(config.bind, config.design.needs_reuseport())
        .with_context(|| format!("binding {}", config.bind))?;
    let addr = listener.local_addr()?;
    let (read_end, write_end) = rustix::pipe::pipe().context("creating the ready pipe")?;
    // The closure owns what only the child needs (the parent drops its copies when fork_child
    // returns); the child leaves its inherited copy of the read end alone.
    let child = concbench_sys::fork_child(move || server_main(listener, config, write_end))?;
    let note = read_ready(read_end, config.design.name())?;
    Ok(RunningServer {
        child,
        addr,
        note,
        status: None,
    })
}

/// The server process: own process group, pinned, SIGTERM ends the group, then the design.
fn server_main(listener: std::net::TcpListener, config: &ServerConfig, ready: OwnedFd) -> i32 {
    // SAFETY: setpgid(0, 0) makes this process a group leader; it affects nothing else.
    unsafe { libc::setpgid(0, 0) };
    termination::install_group_terminator();
    if config
        .handler
        .blocking
        .is_some_and(|d| d < crate::work::SHORT_BLOCK)
    {
        crate::work::precise_sleeps();
    }
    if !config.cpus.is_empty() && concbench_sys::affinity::set_current_thread(&config.cpus).is_err()
    {
        return 3;
    }
    let mut pipe = Some(std::fs::File::from(ready));
    let ready = Ready::new(move |note| {
        if let Some(mut p) = pipe.take() {
            let _ = writeln!(p, "ready {note}");
        }
    });
    match designs::serve(listener, config, ready) {
        Ok(()) => 0,
        Err(e) => {
            let msg = format!("concbench server ({}): {e:#}\n", config.design.name());
            // SAFETY: write(2) of a valid buffer to stderr.
            unsafe { libc::write(2, msg.as_ptr().cast(), msg.len()) };
            1
        }
    }
}

/// Read "ready <note>\n" from the server, or fail if it exits or stalls first.
fn read_ready(fd: OwnedFd, design: &str) -> Result<String> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let mut file = std::fs::File::from(fd);
    let mut line = Vec::new();
    let timeout = Timespec {
        tv_sec: READY_TIMEOUT.as_secs() as i64,
        tv_nsec: 0,
    };
    while !line.ends_with(b"\n") {
        let mut fds = [PollFd::new(&file, PollFlags::IN)];
        if poll(&mut fds, Some(&timeout))? == 0 {
            bail!("the {design} server did not start within {READY_TIMEOUT:?}");
        }
        let mut byte = [0u8; 256];
        let n = file.read(&mut byte)?;
        if n == 0 {
            bail!("the {design} server exited before serving (its error is above)");
        }
        line.extend_from_slice(&byte[..n]);
    }
    let text = String::from_utf8_lossy(&line);
    Ok(text
        .trim_end()
        .strip_prefix("ready")
        .unwrap_or("")
        .trim()
        .to_string())
}
