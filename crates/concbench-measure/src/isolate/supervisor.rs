//! The coordinator side: start a worker, feed it a job, relay its progress, enforce a time
//! limit, forward Ctrl-C, and turn every way a worker can end into an [`Outcome`].

use super::{Job, WorkerMessage};
use crate::harness::HarnessEvent;
use concbench_core::{CancelToken, Failure, Outcome};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a worker gets to tear down after Ctrl-C was forwarded before it is killed.
const GRACE: Duration = Duration::from_secs(10);
/// How often the coordinator checks for Ctrl-C and the time limit.
const POLL: Duration = Duration::from_millis(100);

pub struct Supervisor {
    /// The program to start (concbench itself) and the arguments that make it a worker.
    pub program: PathBuf,
    pub args: Vec<String>,
    /// A variant still running after this long is killed and recorded as failed.
    pub time_limit: Duration,
    pub cancel: CancelToken,
}

enum Line {
    Message(WorkerMessage),
    Garbage(String),
}

impl Supervisor {
    /// Measure `job` in a fresh worker. Never panics; every failure is in the [`Outcome`].
    pub fn measure(&self, job: &Job, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome {
        let failed = |error: String| {
            Outcome::Failed(Failure {
                id: job.id.clone(),
                params: Default::default(),
                error,
            })
        };
        let mut child = match Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            // Its own process group: the terminal's Ctrl-C reaches only the coordinator, which
            // forwards it once (a second SIGINT would make the worker exit without tearing down).
            .process_group(0)
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                return failed(format!(
                    "starting a worker ({}): {e}",
                    self.program.display()
                ))
            }
        };
        crate::journal::worker_started(child.id());
        if let Some(mut stdin) = child.stdin.take() {
            let job_json = serde_json::to_vec(job).expect("a job always serialises");
            if let Err(e) = stdin.write_all(&job_json) {
                let _ = child.kill();
                let _ = child.wait();
                return failed(format!("sending the job to the worker: {e}"));
            }
        }
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let parsed = match serde_json::from_str::<WorkerMessage>(&line) {
                    Ok(m) => Line::Message(m),
                    Err(_) => Line::Garbage(line),
                };
                if tx.send(parsed).is_err() {
                    break;
                }
            }
        });

        let started = Instant::now();
        let mut outcome = None;
        let mut interrupted_at: Option<Instant> = None;
        let mut killed_for = None;
        loop {
            match rx.recv_timeout(POLL) {
                Ok(Line::Message(WorkerMessage::Progress { event })) => on_event(event),
                Ok(Line::Message(WorkerMessage::Outcome { outcome: o })) => outcome = Some(o),
                Ok(Line::Garbage(line)) => {
                    // Not eprintln!: it panics when the terminal has just closed.
                    let _ = writeln!(std::io::stderr(), "concbench: worker said: {line}");
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if self.cancel.is_cancelled() && interrupted_at.is_none() {
                // SAFETY: kill with a pid we spawned and have not reaped.
                unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
                interrupted_at = Some(Instant::now());
            }
            let overdue = started.elapsed() > self.time_limit;
            let stuck = interrupted_at.is_some_and(|t| t.elapsed() > GRACE);
            if (overdue || stuck) && killed_for.is_none() {
                let _ = child.kill();
                killed_for = Some(if overdue {
                    format!(
                        "timed out after {} s and was killed; rerun it alone with `--only {}` to see whether it hangs",
                        self.time_limit.as_secs(),
                        job.id
                    )
                } else {
                    "did not stop within 10 s of Ctrl-C and was killed".to_string()
                });
            }
        }
        let status = child.wait();
        let _ = reader.join();
        // A worker killed (a time limit, Ctrl-C twice) left the idle states it disabled.
        crate::journal::worker_ended(&crate::idle::Root::default(), child.id());
        if let Some(reason) = killed_for {
            return failed(reason);
        }
        match (outcome, status) {
            (Some(o), _) => o,
            (None, Ok(s)) => failed(describe_death(s)),
            (None, Err(e)) => failed(format!("waiting for the worker: {e}")),
        }
    }
}

/// "the worker was killed by signal 11 (SIGSEGV)" and the like.
fn describe_death(status: std::process::ExitStatus) -> String {
    if let Some(sig) = status.signal() {
        // SAFETY: strsignal returns a pointer to a static or thread-local string for any number.
        let name = unsafe { std::ffi::CStr::from_ptr(libc::strsignal(sig)) }
            .to_string_lossy()
            .into_owned();
        format!(
            "the experiment's worker process was killed by signal {sig} ({name}) before reporting"
        )
    } else {
        format!(
            "the experiment's worker process exited with code {} before reporting (its error is above)",
            status.code().unwrap_or(-1)
        )
    }
}
