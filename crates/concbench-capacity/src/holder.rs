//! concbench's own holder (`concbench __holder`): a small program that speaks the probe protocol
//! (docs/PROBE_PROTOCOL.md) and holds idle units of Rust's models — forked processes, OS
//! threads, stackful coroutines, tokio tasks — so that `capacity` asks them exactly as it asks the
//! probes for goroutines, Java threads and Fibers: `hold` N more (kept until the program exits),
//! and `detect` what tokio and std size themselves for.
//!
//! Each `hold` times its units from the first creation until the last is idle, as a probe times
//! its own loop. A unit that cannot be created ends the batch: the answer's `created` says how
//! many were, `stopped` the system's words (`Resource temporarily unavailable (os error 11)`).

use anyhow::{bail, Context, Result};
use concbench_sys::Child;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fd::OwnedFd;
use serde_json::{json, Map, Value};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The stack of a held coroutine: the small size coroutine runtimes use (as `memory.coroutine`).
pub const COROUTINE_STACK_KIB: u64 = 64;

/// How long a batch may go without one more unit reaching idle before the holder stops waiting.
const NO_PROGRESS: Duration = Duration::from_secs(5);

/// The units a holder keeps, of the one kind its first `hold` asked for.
enum Units {
    None,
    Processes(Vec<Child>),
    Threads(Arc<AtomicU64>),
    Coroutines(Vec<Coroutine<(), (), (), DefaultStack>>),
    Tasks {
        rt: tokio::runtime::Runtime,
        wake: Arc<Notify>,
        idle: Arc<AtomicU64>,
    },
}

/// One batch: how many units reached idle, in how long, and why it stopped short.
struct Batch {
    created: u64,
    elapsed: Duration,
    stopped: Option<String>,
}

impl Units {
    fn kind(&self) -> &'static str {
        match self {
            Units::None => "none",
            Units::Processes(_) => "process",
            Units::Threads(_) => "thread",
            Units::Coroutines(_) => "coroutine",
            Units::Tasks { .. } => "tokio_task",
        }
    }

    fn start(kind: &str) -> Result<Units> {
        Ok(match kind {
            "process" => Units::Processes(Vec::new()),
            "thread" => Units::Threads(Arc::new(AtomicU64::new(0))),
            "coroutine" => Units::Coroutines(Vec::new()),
            "tokio_task" => Units::Tasks {
                rt: tokio::runtime::Builder::new_current_thread()
                    .build()
                    .context("building a current-thread tokio runtime")?,
                wake: Arc::new(Notify::new()),
                idle: Arc::new(AtomicU64::new(0)),
            },
            other => {
                bail!("args.unit must be process, thread, coroutine or tokio_task, not {other:?}")
            }
        })
    }

    fn held(&self) -> u64 {
        match self {
            Units::None => 0,
            Units::Processes(c) => c.len() as u64,
            Units::Threads(idle) => idle.load(Ordering::SeqCst),
            Units::Coroutines(c) => c.len() as u64,
            Units::Tasks { idle, .. } => idle.load(Ordering::SeqCst),
        }
    }

    fn grow(&mut self, n: u64) -> Result<Batch> {
        match self {
            Units::None => bail!("no unit kind"),
            Units::Processes(children) => fork_idle(children, n),
            Units::Threads(idle) => Ok(spawn_threads(idle, n)),
            Units::Coroutines(held) => Ok(suspend_coroutines(held, n)),
            Units::Tasks { rt, wake, idle } => Ok(spawn_tasks(rt, wake, idle, n)),
        }
    }

    /// Kill every held process, then reap them all (killing first lets them die together).
    fn release(self) {
        if let Units::Processes(children) = self {
            for c in &children {
                // SAFETY: kill with the pid of a child this process forked and has not reaped.
                unsafe { libc::kill(c.pid(), libc::SIGKILL) };
            }
            drop(children);
        } else {
            // Threads, coroutines and tasks end with the process; unwinding each is work for
            // nothing.
            std::mem::forget(self);
        }
    }
}

/// `n` more processes, each saying it is ready on a pipe before it sleeps in `pause()`.
fn fork_idle(children: &mut Vec<Child>, n: u64) -> Result<Batch> {
    let (ready_r, ready_w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    let start = Instant::now();
    let mut stopped = None;
    let mut forked = 0;
    for _ in 0..n {
        let w = &ready_w;
        let child = concbench_sys::fork_child(|| {
            // Not the holder's protocol channel: its end of file must come when the holder dies.
            // SAFETY: closing the inherited stdin and stdout descriptors of this child only.
            unsafe {
                libc::close(0);
                libc::close(1);
            }
            if rustix::io::write(w, b"r").is_err() {
                return 1;
            }
            loop {
                // SAFETY: pause has no preconditions; it sleeps until a signal (SIGKILL).
                unsafe { libc::pause() };
            }
        });
        match child {
            Ok(c) => {
                children.push(c);
                forked += 1;
            }
            Err(e) => {
                stopped = Some(format!("{e:#}"));
                break;
            }
        }
    }
    drop(ready_w);
    let ready = wait_bytes(&ready_r, forked);
    if ready < forked && stopped.is_none() {
        stopped = Some(format!(
            "{} forked processes never said they were ready",
            forked - ready
        ));
    }
    Ok(Batch {
        created: ready,
        elapsed: start.elapsed(),
        stopped,
    })
}

/// Read up to `want` bytes from `fd`, giving up after [`NO_PROGRESS`] without one.
fn wait_bytes(fd: &OwnedFd, want: u64) -> u64 {
    let mut got = 0;
    let mut buf = [0u8; 4096];
    let slice = Timespec {
        tv_sec: 0,
        tv_nsec: 100_000_000,
    };
    let mut last = Instant::now();
    while got < want && last.elapsed() < NO_PROGRESS {
        let mut fds = [PollFd::new(fd, PollFlags::IN)];
        match poll(&mut fds, Some(&slice)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Err(_) => break,
            Ok(_) => {}
        }
        match rustix::io::read(fd, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(k) => {
                got += k as u64;
                last = Instant::now();
            }
        }
    }
    got
}

/// Wait until `idle` reaches `target`, giving up after [`NO_PROGRESS`] without progress.
fn wait_count(idle: &AtomicU64, target: u64) {
    let mut last = (idle.load(Ordering::SeqCst), Instant::now());
    while idle.load(Ordering::SeqCst) < target && last.1.elapsed() < NO_PROGRESS {
        std::thread::sleep(Duration::from_micros(100));
        let now = idle.load(Ordering::SeqCst);
        if now != last.0 {
            last = (now, Instant::now());
        }
    }
}

/// A held thread's life: count in, then sleep until the process ends.
extern "C" fn idle_thread(counter: *mut libc::c_void) -> *mut libc::c_void {
    // SAFETY: `counter` points to the holder's AtomicU64, which is never freed while the
    // process lives (`Units::release` forgets it).
    let idle = unsafe { &*(counter as *const AtomicU64) };
    idle.fetch_add(1, Ordering::SeqCst);
    loop {
        // SAFETY: pause has no preconditions; nothing signals a held thread.
        unsafe { libc::pause() };
    }
}

/// `n` more threads with pthread's default attributes — the RLIMIT_STACK-sized stack and one
/// guard page: two memory maps, as a C or C++ program's thread takes (Rust's `std::thread`
/// adds a signal stack with its own guard page, two maps more, and aborts the process when it
/// cannot map it) — each asleep once it has counted in.
fn spawn_threads(idle: &Arc<AtomicU64>, n: u64) -> Batch {
    let before = idle.load(Ordering::SeqCst);
    let counter = Arc::as_ptr(idle) as *mut libc::c_void;
    let start = Instant::now();
    let mut stopped = None;
    let mut spawned = 0;
    for _ in 0..n {
        let mut tid: libc::pthread_t = 0;
        // SAFETY: a null attribute pointer means the defaults; `idle_thread` only reads the
        // counter, which outlives every thread (see `idle_thread`).
        let rc = unsafe { libc::pthread_create(&mut tid, std::ptr::null(), idle_thread, counter) };
        if rc != 0 {
            stopped = Some(std::io::Error::from_raw_os_error(rc).to_string());
            break;
        }
        // SAFETY: `tid` was just created and is neither joined nor detached elsewhere.
        unsafe { libc::pthread_detach(tid) };
        spawned += 1;
    }
    wait_count(idle, before + spawned);
    Batch {
        created: idle.load(Ordering::SeqCst) - before,
        elapsed: start.elapsed(),
        stopped,
    }
}

/// `n` more coroutines on their own mapped stacks, each resumed once to its first yield.
fn suspend_coroutines(held: &mut Vec<Coroutine<(), (), (), DefaultStack>>, n: u64) -> Batch {
    let start = Instant::now();
    let mut stopped = None;
    let mut created = 0;
    for _ in 0..n {
        let stack = match DefaultStack::new((COROUTINE_STACK_KIB * 1024) as usize) {
            Ok(s) => s,
            Err(e) => {
                stopped = Some(e.to_string());
                break;
            }
        };
        let mut co = Coroutine::with_stack(stack, |yielder, ()| yielder.suspend(()));
        if let CoroutineResult::Return(()) = co.resume(()) {
            stopped = Some("a coroutine returned before its first yield".into());
            break;
        }
        held.push(co);
        created += 1;
    }
    Batch {
        created,
        elapsed: start.elapsed(),
        stopped,
    }
}

/// `n` more tasks, each waiting on `wake` (registered before it counts in).
fn spawn_tasks(
    rt: &tokio::runtime::Runtime,
    wake: &Arc<Notify>,
    idle: &Arc<AtomicU64>,
    n: u64,
) -> Batch {
    let before = idle.load(Ordering::SeqCst);
    let start = Instant::now();
    rt.block_on(async {
        for _ in 0..n {
            let (wake, idle) = (wake.clone(), idle.clone());
            tokio::spawn(async move {
                let notified = wake.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                idle.fetch_add(1, Ordering::SeqCst);
                notified.await;
            });
        }
        while idle.load(Ordering::SeqCst) < before + n {
            tokio::task::yield_now().await;
        }
    });
    Batch {
        created: idle.load(Ordering::SeqCst) - before,
        elapsed: start.elapsed(),
        stopped: None,
    }
}

/// What tokio and std size themselves for here: a default multi-thread runtime's workers and
/// `available_parallelism` (std reads the cgroup quota, v1 and v2).
fn detect() -> Result<Map<String, Value>> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .build()
        .context("building a default multi-thread tokio runtime")?;
    let workers = rt.metrics().num_workers();
    drop(rt);
    let parallelism = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut m = Map::new();
    m.insert("tokio_workers".into(), json!(workers));
    m.insert("available_parallelism".into(), json!(parallelism));
    Ok(m)
}

fn error(message: String) -> Value {
    json!({"v": 1, "ok": false, "error": message})
}

/// One request line, answered.
fn answer(units: &mut Units, line: &str) -> Value {
    let req: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(format!("the request is not JSON: {e}")),
    };
    if req["v"] != 1 {
        return error("protocol version not supported (this holder speaks 1)".into());
    }
    let n = req["iterations"].as_u64().unwrap_or(0);
    match (req["id"].as_str(), n) {
        (Some("detect"), _) => {
            let start = Instant::now();
            match detect() {
                Ok(m) => {
                    json!({"v": 1, "ok": true, "ns_per_op": start.elapsed().as_nanos() as f64, "ops": 1, "metrics": m})
                }
                Err(e) => error(format!("{e:#}")),
            }
        }
        (Some("hold"), n) if n >= 1 => {
            let kind = req["args"]["unit"].as_str().unwrap_or("");
            if matches!(units, Units::None) {
                match Units::start(kind) {
                    Ok(u) => *units = u,
                    Err(e) => return error(format!("{e:#}")),
                }
            } else if units.kind() != kind {
                return error(format!("this holder holds {}s, not {kind}", units.kind()));
            }
            match units.grow(n) {
                Ok(b) => {
                    let mut a = json!({
                        "v": 1, "ok": true,
                        "ns_per_op": b.elapsed.as_nanos() as f64 / b.created.max(1) as f64,
                        "ops": b.created.max(1),
                        "metrics": {"created": b.created, "held": units.held()},
                    });
                    if let Some(s) = b.stopped {
                        a["stopped"] = s.into();
                    }
                    a
                }
                Err(e) => error(format!("{e:#}")),
            }
        }
        (id, _) => error(format!("unknown experiment {id:?} or iterations < 1")),
    }
}

/// Serve requests from `input` until its end, answering on `output`; then release the units.
pub fn serve_on(input: impl BufRead, mut output: impl Write) -> Result<()> {
    let hello = json!({
        "v": 1, "hello": "concbench-probe", "runtime": "rust",
        "version": format!("concbench {} (std::thread, fork, corosensei, tokio)", env!("CARGO_PKG_VERSION")),
        "experiments": ["hold", "detect"],
    });
    writeln!(output, "{hello}")?;
    output.flush()?;
    let mut units = Units::None;
    for line in input.lines() {
        let line = line.context("reading a request")?;
        writeln!(output, "{}", answer(&mut units, &line))?;
        output.flush()?;
    }
    units.release();
    Ok(())
}

/// `concbench __holder`: serve on stdin and stdout.
pub fn serve() -> Result<()> {
    serve_on(std::io::stdin().lock(), std::io::stdout().lock())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn talk(requests: &[&str]) -> Vec<Value> {
        let input = requests.join("\n") + "\n";
        let mut out = Vec::new();
        serve_on(input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn holds_coroutines_and_tasks_in_batches_and_counts_them() {
        for unit in ["coroutine", "tokio_task", "thread"] {
            let r = format!(r#"{{"v":1,"id":"hold","iterations":50,"args":{{"unit":"{unit}"}}}}"#);
            let a = talk(&[&r, &r]);
            assert_eq!(a[0]["hello"], "concbench-probe");
            assert_eq!(a[1]["metrics"]["created"], 50, "{unit}: {}", a[1]);
            assert_eq!(a[2]["metrics"]["held"], 100, "{unit}: {}", a[2]);
            assert!(a[2]["ns_per_op"].as_f64().unwrap() > 0.0);
            assert!(a[2].get("stopped").is_none());
        }
    }

    #[test]
    fn holds_processes_in_batches() {
        let r = r#"{"v":1,"id":"hold","iterations":5,"args":{"unit":"process"}}"#;
        let a = talk(&[r, r]);
        assert_eq!(a[1]["metrics"]["created"], 5, "{}", a[1]);
        assert_eq!(a[2]["metrics"]["held"], 10, "{}", a[2]);
    }

    #[test]
    fn one_holder_holds_one_kind_and_says_what_it_does_not_know() {
        let a = talk(&[
            r#"{"v":1,"id":"hold","iterations":3,"args":{"unit":"coroutine"}}"#,
            r#"{"v":1,"id":"hold","iterations":3,"args":{"unit":"tokio_task"}}"#,
            r#"{"v":1,"id":"hold","iterations":3,"args":{"unit":"fibre"}}"#,
            r#"{"v":1,"id":"memory","iterations":3}"#,
            r#"{"v":2,"id":"hold","iterations":3}"#,
        ]);
        assert_eq!(a[1]["ok"], true);
        assert!(a[2]["error"].as_str().unwrap().contains("holds coroutines"));
        assert_eq!(a[3]["ok"], false);
        assert!(a[4]["error"]
            .as_str()
            .unwrap()
            .contains("unknown experiment"));
        assert!(a[5]["error"].as_str().unwrap().contains("version"));
    }

    #[test]
    fn detect_reports_tokios_workers_and_stds_parallelism() {
        let a = talk(&[r#"{"v":1,"id":"detect","iterations":1}"#]);
        let m = &a[1]["metrics"];
        assert!(m["tokio_workers"].as_u64().unwrap() >= 1, "{m}");
        assert!(m["available_parallelism"].as_u64().unwrap() >= 1, "{m}");
    }
}
