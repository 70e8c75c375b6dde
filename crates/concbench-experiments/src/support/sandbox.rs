//! Part of an experiment run in a forked child — a sandbox — that reports back line by line.
//!
//! For samples that must start from a fresh copy of the worker (no thread stacks or heap cached
//! by an earlier sample), that create so many units that a failure could take the measuring
//! process down, or that crash on purpose. The sandbox is a [`concbench_sys::fork_child`]: it dies
//! with the worker, and dropping a [`Sandbox`] kills and reaps it.

use super::fd::{pipe, write_all};
use super::lines::Lines;
use anyhow::{anyhow, bail, Result};
use concbench_core::RunContext;
use concbench_sys::Child;
use rustix::fd::{AsFd, OwnedFd};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The sandbox's end of the report channel; clones may be handed to threads.
#[derive(Clone)]
pub struct Reporter(Arc<OwnedFd>);

impl Reporter {
    /// Send one line. Lines up to PIPE_BUF (4 KiB) go in one `write(2)`, so lines from several
    /// threads or processes never interleave.
    pub fn line(&self, text: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        write_all(self.0.as_fd(), &bytes)
    }

    /// A named number, read back by [`run_reporting`].
    pub fn value(&self, name: &str, v: f64) -> std::io::Result<()> {
        self.line(&format!("value {name} {v}"))
    }

    /// A warning for the result, read back by [`run_reporting`].
    pub fn warning(&self, text: &str) -> std::io::Result<()> {
        self.line(&format!("warning {}", text.replace('\n', " ")))
    }
}

/// A running sandbox and the parent's end of its report channel.
pub struct Sandbox {
    child: Child,
    lines: Lines,
}

/// Fork a sandbox that runs `body`. An error from `body` is reported as an `error ...` line and
/// the sandbox exits with code 1.
pub fn spawn(body: impl FnOnce(Reporter) -> Result<()>) -> Result<Sandbox> {
    let (read, write) = pipe()?;
    let reporter = Reporter(Arc::new(write));
    let child = concbench_sys::fork_child(|| match body(reporter.clone()) {
        Ok(()) => 0,
        Err(e) => {
            let _ = reporter.line(&format!("error {e:#}").replace('\n', " "));
            1
        }
    })?;
    // Only the sandbox (and what it forks) holds the write end now: end of file = it is gone.
    drop(reporter);
    Ok(Sandbox {
        child,
        lines: Lines::new(read),
    })
}

impl Sandbox {
    pub fn pid(&self) -> i32 {
        self.child.pid()
    }

    /// The next line the sandbox reported, or `None` once it (and everything it forked) closed
    /// the channel. Stops with an error on Ctrl-C (dropping the sandbox then kills it).
    pub fn next_line(&mut self, ctx: &RunContext) -> Result<Option<String>> {
        self.lines.next(ctx)
    }

    /// Reap the sandbox; returns its raw wait status.
    pub fn wait(mut self) -> Result<i32> {
        self.child.wait()
    }
}

/// What a sandbox that ran to completion reported.
#[derive(Debug, Default)]
pub struct Report {
    pub values: BTreeMap<String, f64>,
    pub warnings: Vec<String>,
}

impl Report {
    pub fn get(&self, name: &str) -> Result<f64> {
        self.values
            .get(name)
            .copied()
            .ok_or_else(|| anyhow!("the sandbox did not report {name}"))
    }
}

/// Run `body` in a sandbox and collect its `value` and `warning` lines; its `error` line, an
/// exit code other than 0 or a death by signal is an error.
pub fn run_reporting(
    ctx: &RunContext,
    body: impl FnOnce(Reporter) -> Result<()>,
) -> Result<Report> {
    let mut sandbox = spawn(body)?;
    let mut report = Report::default();
    let mut error = None;
    while let Some(line) = sandbox.next_line(ctx)? {
        let (kind, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        match kind {
            "value" => {
                let (name, v) = rest
                    .split_once(' ')
                    .ok_or_else(|| anyhow!("malformed sandbox line: {line}"))?;
                report.values.insert(name.to_string(), v.parse()?);
            }
            "warning" => report.warnings.push(rest.to_string()),
            "error" => error = Some(rest.to_string()),
            _ => bail!("unexpected sandbox line: {line}"),
        }
    }
    let status = sandbox.wait()?;
    if let Some(e) = error {
        bail!("{e}");
    }
    if !Child::exited_ok(status) {
        bail!(
            "the sandbox process ended abnormally (wait status {status:#x}{})",
            if libc::WIFSIGNALED(status) {
                format!(", signal {}", libc::WTERMSIG(status))
            } else {
                String::new()
            }
        );
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_warnings_come_back() {
        let ctx = crate::support::test_context();
        let r = run_reporting(&ctx, |rep| {
            rep.value("answer", 42.5)?;
            rep.warning("mind the gap")?;
            Ok(())
        })
        .unwrap();
        assert_eq!(r.get("answer").unwrap(), 42.5);
        assert_eq!(r.warnings, vec!["mind the gap".to_string()]);
    }

    #[test]
    fn an_error_in_the_sandbox_is_an_error_here() {
        let ctx = crate::support::test_context();
        // Made before the fork: creating an anyhow error captures a backtrace under a lock that
        // another test's thread may hold at fork time (this test process has many threads; a
        // worker forking a sandbox has one).
        let no_luck = anyhow!("no luck");
        let err = run_reporting(&ctx, move |_| Err(no_luck)).unwrap_err();
        assert!(err.to_string().contains("no luck"), "{err}");
    }

    #[test]
    fn a_sandbox_killed_by_a_signal_is_an_error() {
        let ctx = crate::support::test_context();
        let err = run_reporting(&ctx, |_| {
            // SAFETY: raise has no memory-safety preconditions; it ends this sandbox.
            unsafe { libc::raise(libc::SIGKILL) };
            Ok(())
        })
        .unwrap_err();
        assert!(err.to_string().contains("signal 9"), "{err}");
    }
}
