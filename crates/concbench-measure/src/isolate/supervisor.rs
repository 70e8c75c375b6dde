//! The coordinator side: start a worker, feed it a job, relay its progress, enforce a time
//! limit, forward Ctrl-C (or SIGTERM, SIGHUP: one cancel, see [`crate::signals`]), and turn
//! every way a worker can end into an [`Outcome`]. A worker killed (past its time limit, or its
//! grace after the cancel) is killed with every process it started
//! ([`concbench_sys::end_tree`]).
//!
//! A worker measures one round and exits ([`Supervisor::round`]), or stays resident and
//! measures the rounds of one setup, a job at a time, until its input closes
//! ([`Supervisor::start`], [`Resident`]: `Experiment::rounds_per_setup`).

use super::{Job, WorkerMessage};
use crate::harness::HarnessEvent;
use concbench_core::{CancelToken, Failure, Outcome};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a worker gets to tear down after Ctrl-C was forwarded (or, resident, after its input
/// closed) before it is killed.
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

/// A started worker: its process, its input (while open) and its messages.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: mpsc::Receiver<Line>,
    reader: Option<JoinHandle<()>>,
}

/// How the wait for a worker's outcome ended.
enum Waited {
    /// The worker reported (and, when asked to wait for its exit, exited).
    Reported(Outcome),
    /// It ended or was killed without reporting: why.
    Died(String),
}

fn failed(job: &Job, error: String) -> Outcome {
    Outcome::Failed(Failure {
        id: job.id.clone(),
        params: Default::default(),
        error,
    })
}

impl Supervisor {
    /// One round of `job` in a fresh worker. Never panics; every failure is in the [`Outcome`].
    pub fn round(&self, job: &Job, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome {
        let mut worker = match self.spawn(job) {
            Ok(w) => w,
            Err(o) => return o,
        };
        if let Err(e) = worker.send(job) {
            worker.kill();
            return failed(job, format!("sending the job to the worker: {e}"));
        }
        // One job: end of input tells the worker so.
        worker.stdin = None;
        match self.limits().wait(&mut worker, job, on_event, false) {
            Waited::Reported(o) => o,
            Waited::Died(why) => failed(job, why),
        }
    }

    /// Start a worker that stays resident: it measures `job` now, and the same variant again
    /// for every further [`Resident::round`], on what its first round set up.
    pub fn start(
        &self,
        job: &Job,
        on_event: &mut dyn FnMut(HarnessEvent),
    ) -> (Outcome, Option<Resident>) {
        let worker = match self.spawn(job) {
            Ok(w) => w,
            Err(o) => return (o, None),
        };
        let mut resident = Resident {
            limits: self.limits(),
            worker: Some(worker),
        };
        let outcome = resident.round(job, on_event);
        let alive = matches!(outcome, Outcome::Measured(_)) && resident.worker.is_some();
        (outcome, alive.then_some(resident))
    }

    fn spawn(&self, job: &Job) -> Result<Worker, Outcome> {
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            // Its own process group: the terminal's Ctrl-C reaches only the coordinator, which
            // forwards it once (a second SIGINT would make the worker exit without tearing down).
            .process_group(0)
            .spawn()
            .map_err(|e| {
                failed(
                    job,
                    format!("starting a worker ({}): {e}", self.program.display()),
                )
            })?;
        crate::journal::worker_started(child.id());
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
        Ok(Worker {
            stdin: child.stdin.take(),
            child,
            rx,
            reader: Some(reader),
        })
    }

    fn limits(&self) -> Limits {
        Limits {
            time_limit: self.time_limit,
            cancel: self.cancel.clone(),
        }
    }
}

/// What a round is waited for under: the time limit and Ctrl-C.
struct Limits {
    time_limit: Duration,
    cancel: CancelToken,
}

impl Limits {
    /// Relay `worker`'s progress until it reports — and, unless `resident`, until it exits —
    /// under the time limit and Ctrl-C.
    fn wait(
        &self,
        worker: &mut Worker,
        job: &Job,
        on_event: &mut dyn FnMut(HarnessEvent),
        resident: bool,
    ) -> Waited {
        let started = Instant::now();
        let mut outcome = None;
        let mut interrupted_at: Option<Instant> = None;
        let mut killed_for = None;
        loop {
            match worker.rx.recv_timeout(POLL) {
                Ok(Line::Message(WorkerMessage::Progress { event })) => on_event(event),
                Ok(Line::Message(WorkerMessage::Outcome { outcome: o })) if resident => {
                    return Waited::Reported(o)
                }
                Ok(Line::Message(WorkerMessage::Outcome { outcome: o })) => outcome = Some(o),
                Ok(Line::Garbage(line)) => {
                    // Not eprintln!: it panics when the terminal has just closed.
                    let _ = writeln!(std::io::stderr(), "concbench: worker said: {line}");
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if self.cancel.is_cancelled() && interrupted_at.is_none() {
                worker.interrupt();
                interrupted_at = Some(Instant::now());
            }
            let overdue = started.elapsed() > self.time_limit;
            let stuck = interrupted_at.is_some_and(|t| t.elapsed() > GRACE);
            if (overdue || stuck) && killed_for.is_none() {
                worker.end_tree();
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
        let status = worker.reap();
        if let Some(reason) = killed_for {
            return Waited::Died(reason);
        }
        match (outcome, status) {
            (Some(o), _) => Waited::Reported(o),
            (None, Ok(s)) => Waited::Died(describe_death(s)),
            (None, Err(e)) => Waited::Died(format!("waiting for the worker: {e}")),
        }
    }
}

impl Worker {
    /// Write one job, as one line (a resident worker reads the next when it finishes a round).
    fn send(&mut self, job: &Job) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the worker's input is closed"))?;
        let mut line = serde_json::to_vec(job).expect("a job always serialises");
        line.push(b'\n');
        stdin.write_all(&line)?;
        stdin.flush()
    }

    fn interrupt(&self) {
        // SAFETY: kill with a pid we spawned and have not reaped.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
    }

    fn kill(&mut self) {
        self.end_tree();
        let _ = self.reap();
    }

    /// SIGKILL the worker and every process it started: a server's pool may have left the
    /// worker's process group and be tied to no parent, and would outlive it
    /// ([`concbench_sys::end_tree`]). The worker is not reaped yet, so its pid is still its own.
    fn end_tree(&mut self) {
        concbench_sys::kill_tree(self.child.id() as libc::pid_t, true);
    }

    /// Wait for the process and its reader; record the end in the journal.
    fn reap(&mut self) -> std::io::Result<std::process::ExitStatus> {
        self.stdin = None;
        let status = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        // A worker killed (a time limit, Ctrl-C twice) left the idle states it disabled.
        crate::journal::worker_ended(&crate::idle::Root::default(), self.child.id());
        status
    }
}

/// A worker that stays alive between the rounds of one setup (see the module notes). Dropping
/// it closes its input, so it tears down and exits; it is killed if it takes longer than the
/// grace period.
pub struct Resident {
    limits: Limits,
    worker: Option<Worker>,
}

impl Resident {
    /// Measure `job` (the same variant as the first) on what the worker set up. A worker that
    /// reports anything but a measurement, or dies, is gone afterwards ([`Resident::alive`]).
    pub fn round(&mut self, job: &Job, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome {
        let Some(worker) = self.worker.as_mut() else {
            return failed(job, "the resident worker has already ended".into());
        };
        if let Err(e) = worker.send(job) {
            self.end();
            return failed(job, format!("sending the job to the resident worker: {e}"));
        }
        let waited = self.limits.wait(worker, job, on_event, true);
        let outcome = match waited {
            Waited::Reported(o) => o,
            Waited::Died(why) => {
                self.worker = None;
                return failed(job, why);
            }
        };
        if !matches!(outcome, Outcome::Measured(_)) {
            self.end();
        }
        outcome
    }

    /// Whether the worker still runs (it has reported measurements only).
    pub fn alive(&self) -> bool {
        self.worker.is_some()
    }

    /// The worker's process id (its tree holds what it set up: a server).
    pub fn pid(&self) -> Option<u32> {
        self.worker.as_ref().map(|w| w.child.id())
    }

    /// Close the worker's input and wait for it to tear down and exit (killed after the grace
    /// period).
    pub fn end(&mut self) {
        let Some(mut worker) = self.worker.take() else {
            return;
        };
        worker.stdin = None;
        let deadline = Instant::now() + GRACE;
        loop {
            match worker.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() >= deadline => {
                    worker.end_tree();
                    break;
                }
                Ok(None) => {
                    // Relay nothing: a resident's teardown reports nothing; keep the pipe drained.
                    while worker.rx.try_recv().is_ok() {}
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
        let _ = worker.reap();
    }
}

impl Drop for Resident {
    fn drop(&mut self) {
        self.end();
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
