//! A running probe: started tied to the harness thread (dies with it, own process group, pinned
//! to the variant's CPUs), spoken to one JSON line at a time, ended on teardown.
//!
//! Reads wait with `poll` in short slices so Ctrl-C (the cancel token) and a deadline are
//! noticed even while a probe is busy or hung; a plain blocking read would wait forever.

use super::build::Launch;
use super::protocol::{self, Answer, Hello, Request};
use anyhow::{anyhow, bail, Context, Result};
use concbench_core::CancelToken;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a probe may take to greet (a JVM on a busy machine takes seconds).
const HELLO_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one request may take (the longest batch, Java's 1000 x 1000 prints, takes about a
/// minute on the seed's machine).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(600);
/// How long a probe gets to exit on its own after its stdin closes.
const EXIT_GRACE: Duration = Duration::from_secs(2);

pub struct ProbeProcess {
    /// "the go probe": how messages name it.
    label: String,
    /// `None` once stopped (so Drop does not signal a reaped, possibly reused, pid).
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    pending: Vec<u8>,
    stderr_path: PathBuf,
    pub hello: Hello,
}

impl ProbeProcess {
    /// Start the probe, pinned to `cpus` (nothing when empty), and read its greeting.
    pub fn start(
        label: &str,
        launch: &Launch,
        cpus: &[usize],
        stderr_path: PathBuf,
        cancel: &CancelToken,
    ) -> Result<Self> {
        Self::start_in(label, launch, cpus, &[], stderr_path, cancel)
    }

    /// As [`ProbeProcess::start`], in the control group whose `cgroup.procs` files are
    /// `cgroup_procs` (joined before the runtime starts, so it sizes itself by the group's
    /// limits; see `concbench_sys::spawn_tied_in`).
    pub fn start_in(
        label: &str,
        launch: &Launch,
        cpus: &[usize],
        cgroup_procs: &[std::ffi::CString],
        stderr_path: PathBuf,
        cancel: &CancelToken,
    ) -> Result<Self> {
        let stderr = std::fs::File::create(&stderr_path)
            .with_context(|| format!("creating {}", stderr_path.display()))?;
        let mut cmd = Command::new(&launch.program);
        cmd.args(&launch.args)
            .env_clear()
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(dir) = &launch.dir {
            cmd.current_dir(dir);
        }
        let mut child = concbench_sys::spawn_tied_in(&mut cmd, cpus, cgroup_procs)
            .with_context(|| format!("starting {label}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().context("the probe's stdout")?;
        let mut probe = Self {
            label: label.to_string(),
            child: Some(child),
            stdin,
            stdout,
            pending: Vec::new(),
            stderr_path,
            hello: Hello {
                v: 0,
                hello: String::new(),
                runtime: String::new(),
                version: String::new(),
                experiments: Vec::new(),
            },
        };
        let line = probe.read_line(HELLO_TIMEOUT, cancel)?;
        probe.hello = protocol::parse_hello(&line).map_err(|e| probe.explain(e))?;
        Ok(probe)
    }

    /// The probe's process id (the root of the tree a server probe serves from), while it runs.
    pub fn pid(&self) -> Option<i32> {
        self.child.as_ref().map(|c| c.id() as i32)
    }

    /// Send one request and wait for its answer.
    pub fn request(&mut self, req: &Request<'_>, cancel: &CancelToken) -> Result<Answer> {
        let mut line = serde_json::to_string(req)?;
        line.push('\n');
        let sent = self
            .stdin
            .as_mut()
            .context("the probe was already stopped")
            .and_then(|s| Ok(s.write_all(line.as_bytes()).and_then(|()| s.flush())?));
        if let Err(e) = sent {
            return Err(self.explain(e.context("sending a request")));
        }
        let answer = self.read_line(REQUEST_TIMEOUT, cancel)?;
        protocol::parse_answer(&answer).map_err(|e| self.explain(e))
    }

    /// Close stdin (a probe exits at EOF), then end its process group after a grace period.
    pub fn stop(mut self) -> Result<()> {
        self.stdin = None;
        let mut child = self.child.take().context("the probe was already stopped")?;
        let status = concbench_sys::end_group(&mut child, EXIT_GRACE)?;
        let _ = std::fs::remove_file(&self.stderr_path);
        if !status.success() {
            bail!(
                "{} did not exit cleanly at end of input ({status})",
                self.label
            );
        }
        Ok(())
    }

    /// Read one line, polling so that cancellation and the deadline are noticed.
    fn read_line(&mut self, timeout: Duration, cancel: &CancelToken) -> Result<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                return Ok(String::from_utf8_lossy(&line).into_owned());
            }
            cancel.check()?;
            if Instant::now() > deadline {
                let e = anyhow!("no answer within {} s", timeout.as_secs());
                return Err(self.explain(e));
            }
            let slice = Timespec {
                tv_sec: 0,
                tv_nsec: 100_000_000,
            };
            let mut fds = [PollFd::new(&self.stdout, PollFlags::IN)];
            match poll(&mut fds, Some(&slice)) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(anyhow!(e).context("polling the probe")),
            }
            let mut buf = [0u8; 8192];
            let n = self
                .stdout
                .read(&mut buf)
                .context("reading from the probe")?;
            if n == 0 {
                let e = anyhow!("it closed its output{}", self.exit_status());
                return Err(self.explain(e));
            }
            self.pending.extend_from_slice(&buf[..n]);
        }
    }

    /// ", exit status N" once the probe has exited (waiting briefly for it).
    fn exit_status(&mut self) -> String {
        for _ in 0..50 {
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                return format!(" ({status})");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        String::new()
    }

    /// Name the probe in an error and add the end of its stderr, where runtimes explain crashes.
    fn explain(&self, e: anyhow::Error) -> anyhow::Error {
        let tail = std::fs::read_to_string(&self.stderr_path)
            .map(|s| {
                let lines: Vec<&str> = s.lines().rev().take(5).collect();
                lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
            })
            .unwrap_or_default();
        let stderr = if tail.is_empty() {
            String::new()
        } else {
            format!("; its stderr ends with: {tail}")
        };
        anyhow!("{} ({}): {e:#}{stderr}", self.label, self.hello_version())
    }

    fn hello_version(&self) -> &str {
        if self.hello.version.is_empty() {
            "before its greeting"
        } else {
            &self.hello.version
        }
    }
}

impl Drop for ProbeProcess {
    fn drop(&mut self) {
        // Teardown normally calls `stop`; this covers early returns, panics and a Ctrl-C or
        // SIGTERM during a request. The probe gets its grace to exit at end of input: a server
        // probe stops its servers and removes their files then (PHP-FPM's left a directory in
        // /tmp when killed at once).
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            let _ = concbench_sys::end_group(&mut child, EXIT_GRACE);
        }
    }
}
