//! Holding CPUs out of deep idle, and always letting them go again.
//!
//! Three ways, each a guard whose `Drop` restores the machine (so a panic, an error or a
//! Ctrl-C that ends the run cleanly all restore it):
//! * [`DmaLatency`]: `/dev/cpu_dma_latency` held at 0 — the kernel's PM QoS request that keeps
//!   every CPU in states with no exit latency for as long as the file is open. Root only. The
//!   kernel drops the request when the file is closed, so even a killed process restores it.
//! * [`Spinner`]: a `SCHED_IDLE` thread pinned on the target CPU, spinning. It runs only when
//!   nothing else wants the CPU, so the CPU never enters an idle state, and any woken thread
//!   preempts it at once. Needs no privilege.
//! * [`StatesDisabled`]: `cpuN/cpuidle/stateK/disable` set to 1 for some states of some CPUs.
//!   Root only; the previous values are written back on drop, and noted first in a journal
//!   ([`crate::journal`]) that the coordinator replays when a worker is killed (a second Ctrl-C,
//!   a time limit), where no destructor runs.
//!
//! Unavailable paths come back as `Err(reason)` (a sentence), for the caller to report as
//! skipped — never as a failure.

use crate::idle::{self, Root};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

const DMA_LATENCY: &str = "/dev/cpu_dma_latency";

/// Whether this process runs as root (the paths that need it are skipped otherwise).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `/dev/cpu_dma_latency` held at 0 µs while this lives.
#[derive(Debug)]
pub struct DmaLatency {
    // Never read: the request lives as long as the open file.
    _file: File,
}

impl DmaLatency {
    /// Hold the system-wide CPU latency limit at 0. `Err`: why it cannot be held here.
    pub fn hold() -> Result<Self, String> {
        let mut file = OpenOptions::new()
            .write(true)
            .open(DMA_LATENCY)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::PermissionDenied => {
                    format!("{DMA_LATENCY} needs root ({e})")
                }
                std::io::ErrorKind::NotFound => {
                    format!("{DMA_LATENCY} does not exist on this kernel")
                }
                _ => format!("cannot open {DMA_LATENCY}: {e}"),
            })?;
        // The kernel takes the request as a binary 32-bit value.
        file.write_all(&0i32.to_ne_bytes())
            .map_err(|e| format!("cannot write {DMA_LATENCY}: {e}"))?;
        Ok(DmaLatency { _file: file })
    }

    /// The current system-wide limit, µs (root only; `None` when unreadable).
    pub fn current() -> Option<i32> {
        let bytes = std::fs::read(DMA_LATENCY).ok()?;
        Some(i32::from_ne_bytes(bytes.get(..4)?.try_into().ok()?))
    }
}

/// A `SCHED_IDLE` thread spinning on one CPU while this lives.
#[derive(Debug)]
pub struct Spinner {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Start spinning on `cpu`. `Err`: why it cannot (pinning or the policy refused).
    pub fn start(cpu: usize) -> Result<Self, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let flag = stop.clone();
        let handle = std::thread::Builder::new()
            .name(format!("awake-cpu{cpu}"))
            .stack_size(64 * 1024)
            .spawn(move || {
                let prepared = concbench_sys::pin_current_thread(cpu)
                    .map_err(|e| format!("pinning the spinner on CPU {cpu}: {e:#}"))
                    .and_then(|()| enter_sched_idle());
                let ok = prepared.is_ok();
                let _ = ready_tx.send(prepared);
                while ok && !flag.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
            .map_err(|e| format!("starting the spinner thread: {e}"))?;
        let mut s = Spinner {
            stop,
            handle: Some(handle),
        };
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(s),
            Ok(Err(reason)) => {
                s.halt();
                Err(reason)
            }
            Err(_) => {
                s.halt();
                Err("the spinner thread ended before it started".into())
            }
        }
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Switch the calling thread to `SCHED_IDLE`: it runs only when nothing else wants the CPU.
fn enter_sched_idle() -> Result<(), String> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; param is a valid sched_param for SCHED_IDLE.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    if rc != 0 {
        return Err(format!(
            "SCHED_IDLE refused: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Some idle states disabled while this lives; the previous values are written back on drop.
#[derive(Debug)]
pub struct StatesDisabled {
    root: Root,
    restore: Vec<(PathBuf, String)>,
}

impl StatesDisabled {
    /// Disable the states named in `names` on `cpus`. `Err`: why not (no cpuidle, no such
    /// state, not root); whatever was changed before the error is restored.
    pub fn disable(root: &Root, cpus: &[usize], names: &[&str]) -> Result<Self, String> {
        let mut guard = StatesDisabled {
            root: root.clone(),
            restore: Vec::new(),
        };
        for &cpu in cpus {
            let states = idle::states_of(root, cpu);
            if states.is_empty() {
                return Err(format!("CPU {cpu} publishes no cpuidle states"));
            }
            for name in names {
                let st = states
                    .iter()
                    .find(|s| s.name == *name)
                    .ok_or_else(|| format!("CPU {cpu} has no idle state named {name}"))?;
                let path = root.path(&format!(
                    "sys/devices/system/cpu/cpu{cpu}/cpuidle/state{}/disable",
                    st.index
                ));
                let before = std::fs::read_to_string(&path)
                    .map_err(|e| format!("reading {}: {e}", path.display()))?;
                // Noted before the change: a worker killed right after it still has it undone.
                crate::journal::record(root, &path, &before).map_err(|e| match e.kind() {
                    std::io::ErrorKind::PermissionDenied => {
                        format!("disabling an idle state needs root (its journal: {e})")
                    }
                    _ => format!("noting {} in the restore journal: {e}", path.display()),
                })?;
                guard
                    .restore
                    .push((path.clone(), before.trim().to_string()));
                std::fs::write(&path, "1").map_err(|e| match e.kind() {
                    std::io::ErrorKind::PermissionDenied => {
                        format!("disabling an idle state needs root ({})", path.display())
                    }
                    _ => format!("writing {}: {e}", path.display()),
                })?;
            }
        }
        Ok(guard)
    }
}

impl Drop for StatesDisabled {
    fn drop(&mut self) {
        // Newest first, so a state written twice ends at its first value.
        for (path, before) in self.restore.drain(..).rev() {
            if std::fs::write(&path, &before).is_ok() {
                crate::journal::forget(&self.root, &path);
            }
        }
    }
}

/// How a CPU is kept awake, as recorded in params and documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldMethod {
    DmaLatency,
    Spinner,
}

impl HoldMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            HoldMethod::DmaLatency => "cpu_dma_latency",
            HoldMethod::Spinner => "spinner",
        }
    }
}

/// Any one of the guards, for code that holds whichever the machine allows.
#[derive(Debug)]
pub enum Held {
    DmaLatency(DmaLatency),
    Spinners(Vec<Spinner>),
    States(StatesDisabled),
}

/// Hold `cpus` awake with `method`.
pub fn hold(method: HoldMethod, cpus: &[usize]) -> Result<Held, String> {
    match method {
        HoldMethod::DmaLatency => DmaLatency::hold().map(Held::DmaLatency),
        HoldMethod::Spinner => cpus
            .iter()
            .map(|&c| Spinner::start(c))
            .collect::<Result<Vec<_>, _>>()
            .map(Held::Spinners),
    }
}

/// How `run --hold-awake` held the CPUs, for the result document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunHold {
    /// `None`: nothing could be held (see `note`).
    pub method: Option<HoldMethod>,
    /// One sentence: what was held, or why not.
    pub note: String,
}

/// Hold `cpus` awake for a whole run: `/dev/cpu_dma_latency` at 0 where a cpuidle driver reads
/// it and this is root; otherwise a `SCHED_IDLE` spinner on each CPU (without a cpuidle driver
/// the PM QoS limit never reaches the idle loop, so only a runnable thread keeps a CPU awake).
pub fn hold_for_run(root: &Root, cpus: &[usize]) -> (Option<Held>, RunHold) {
    let has_states = idle::read(root).has_states();
    let mut why_not_dma =
        String::from("no cpuidle driver, so a PM QoS limit does not reach the idle loop");
    if has_states {
        match DmaLatency::hold() {
            Ok(g) => {
                return (
                    Some(Held::DmaLatency(g)),
                    RunHold {
                        method: Some(HoldMethod::DmaLatency),
                        note: "/dev/cpu_dma_latency held at 0 µs for the whole run".into(),
                    },
                )
            }
            Err(reason) => why_not_dma = reason,
        }
    }
    match hold(HoldMethod::Spinner, cpus) {
        Ok(g) => (
            Some(g),
            RunHold {
                method: Some(HoldMethod::Spinner),
                note: format!(
                    "a SCHED_IDLE spinner on each of CPUs {cpus:?} for the whole run ({why_not_dma})"
                ),
            },
        ),
        Err(reason) => (
            None,
            RunHold {
                method: None,
                note: format!("not held: {why_not_dma}; spinner: {reason}"),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forked_check::in_forked_child;

    #[test]
    fn dma_latency_is_held_at_zero_and_released_as_root() {
        if !is_root() || !std::path::Path::new(DMA_LATENCY).exists() {
            eprintln!("skipped: needs root and {DMA_LATENCY}");
            return;
        }
        let _one = DMA.lock().unwrap_or_else(|e| e.into_inner());
        let held = DmaLatency::hold().expect("root may hold the latency limit");
        assert_eq!(DmaLatency::current(), Some(0));
        drop(held);
        assert_ne!(
            DmaLatency::current(),
            Some(0),
            "the limit outlived its guard"
        );
    }

    /// As an ordinary user (nobody) every privileged path says why, and the spinner's path works.
    #[test]
    fn an_ordinary_user_is_told_why_and_can_still_spin() {
        if !is_root() {
            // Already ordinary: check directly.
            assert!(DmaLatency::hold().is_err() || !std::path::Path::new(DMA_LATENCY).exists());
            return;
        }
        let verdict = in_forked_child(|| {
            // SAFETY: the forked child is single-threaded; dropping to nobody affects only it.
            let dropped = unsafe { libc::setgid(65534) == 0 && libc::setuid(65534) == 0 };
            if !dropped {
                return Err("could not become nobody".into());
            }
            match DmaLatency::hold() {
                Ok(_) => return Err("an ordinary user held /dev/cpu_dma_latency".into()),
                Err(reason) if reason.contains("root") || reason.contains("not exist") => {}
                Err(other) => return Err(format!("unexpected reason: {other}")),
            }
            let cpus = idle::online(&Root::default());
            if let Some(&cpu) = cpus.first() {
                let disabled = StatesDisabled::disable(&Root::default(), &[cpu], &["POLL"]);
                if disabled.is_ok() {
                    return Err("an ordinary user disabled an idle state".into());
                }
            }
            // The spinner's policy needs no privilege.
            enter_sched_idle()
        });
        assert_eq!(verdict, Ok(()));
    }

    #[test]
    fn a_run_is_held_by_whatever_the_machine_allows_and_says_how() {
        let cpus = concbench_sys::allowed_cpus().unwrap();
        let _one = DMA.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, how) = hold_for_run(&Root::default(), &cpus);
        assert_eq!(guard.is_some(), how.method.is_some(), "{how:?}");
        assert!(!how.note.is_empty());
        if how.method == Some(HoldMethod::DmaLatency) {
            assert_eq!(DmaLatency::current(), Some(0));
        }
        drop(guard);
    }

    #[test]
    fn without_cpuidle_a_run_is_held_by_spinners() {
        let dir = tempfile::tempdir().unwrap();
        let cpu = concbench_sys::allowed_cpus().unwrap()[0];
        let (guard, how) = hold_for_run(&Root::new(dir.path()), &[cpu]);
        assert!(matches!(guard, Some(Held::Spinners(ref s)) if s.len() == 1));
        assert_eq!(how.method, Some(HoldMethod::Spinner));
        assert!(how.note.contains("no cpuidle driver"), "{}", how.note);
    }

    #[test]
    fn a_spinner_starts_on_an_allowed_cpu_and_stops_on_drop() {
        let cpu = concbench_sys::allowed_cpus().unwrap()[0];
        let s = Spinner::start(cpu).expect("SCHED_IDLE needs no privilege");
        drop(s);
    }

    #[test]
    fn disabled_states_are_written_back_on_drop_even_after_a_panic() {
        let (dir, disable) = c6_tree();
        let root = Root::new(dir.path());
        let result = std::panic::catch_unwind(|| {
            let _g = StatesDisabled::disable(&root, &[0], &["C6"]).unwrap();
            assert_eq!(std::fs::read_to_string(&disable).unwrap(), "1");
            panic!("an experiment failed while the state was disabled");
        });
        assert!(result.is_err());
        assert_eq!(std::fs::read_to_string(&disable).unwrap(), "0");
    }

    /// Serialises the tests that hold or read `/dev/cpu_dma_latency`, a machine-wide setting.
    static DMA: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Run `body` in a forked child that installed the cancel handler (journals below `root`)
    /// and, once `body` holds what it holds, send it SIGINT twice; the child's exit code.
    fn killed_by_two_signals(root: &Root, body: impl FnOnce() -> Result<Held, i32>) -> i32 {
        let mut child = crate::forked_check::fork_test_child(|| {
            if crate::signals::install_cancel_handler_below(root).is_err() {
                return 2;
            }
            let _held = match body() {
                Ok(h) => h,
                Err(code) => return code,
            };
            // SAFETY: raise signals this process, whose handlers were installed above: the
            // first asks for a clean stop, the second exits at once (no destructor runs).
            unsafe {
                libc::raise(libc::SIGINT);
                libc::raise(libc::SIGINT);
            }
            4
        })
        .unwrap();
        let status = child.wait().unwrap();
        assert!(libc::WIFEXITED(status), "status {status:#x}");
        libc::WEXITSTATUS(status)
    }

    /// A fixture tree with CPU 0's C6 enabled.
    fn c6_tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let state = dir
            .path()
            .join("sys/devices/system/cpu/cpu0/cpuidle/state2");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("name"), "C6\n").unwrap();
        std::fs::write(state.join("disable"), "0\n").unwrap();
        (dir, state.join("disable"))
    }

    #[test]
    fn regression_idle_max_state_stayed_disabled_after_a_second_signal() {
        // `idle=max_c1` disables C1E and C6 for its round; a second Ctrl-C exited at once
        // (signal-hook's conditional shutdown), no destructor ran, and the states stayed off.
        let (dir, disable) = c6_tree();
        let root = Root::new(dir.path());
        let code = killed_by_two_signals(&root, || {
            let g = StatesDisabled::disable(&root, &[0], &["C6"]).map_err(|_| 3)?;
            if std::fs::read_to_string(&disable).unwrap_or_default() != "1" {
                return Err(5);
            }
            Ok(Held::States(g))
        });
        assert_eq!(code, 130, "the second signal exits with 130");
        assert_eq!(std::fs::read_to_string(&disable).unwrap(), "0");
        assert!(
            !dir.path().join("run/concbench").exists(),
            "the journal and its directory are gone"
        );
    }

    #[test]
    fn a_worker_killed_outright_has_its_states_restored_by_the_coordinator() {
        // SIGKILL (a time limit, the coordinator gone): the coordinator replays the journal
        // when the worker ends.
        let (dir, disable) = c6_tree();
        let root = Root::new(dir.path());
        let mut child = crate::forked_check::fork_test_child(|| {
            let g = StatesDisabled::disable(&root, &[0], &["C6"]);
            std::mem::forget(g);
            // SAFETY: raise signals this process; SIGKILL ends it without any destructor.
            unsafe { libc::raise(libc::SIGKILL) };
            0
        })
        .unwrap();
        let pid = child.pid() as u32;
        child.wait().unwrap();
        assert_eq!(std::fs::read_to_string(&disable).unwrap(), "1");
        assert_eq!(crate::journal::worker_ended(&root, pid), 1);
        assert_eq!(std::fs::read_to_string(&disable).unwrap(), "0");
    }

    #[test]
    fn a_run_held_awake_as_root_lets_go_on_a_second_signal() {
        if !is_root() || !std::path::Path::new(DMA_LATENCY).exists() {
            eprintln!("skipped: holding {DMA_LATENCY} needs root and the device");
            return;
        }
        let _one = DMA.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let code = killed_by_two_signals(&Root::new(dir.path()), || {
            let held = DmaLatency::hold().map_err(|_| 3)?;
            if DmaLatency::current() != Some(0) {
                return Err(5);
            }
            Ok(Held::DmaLatency(held))
        });
        assert_eq!(code, 130);
        assert_ne!(
            DmaLatency::current(),
            Some(0),
            "the limit outlived the process"
        );
    }

    #[test]
    fn a_run_held_awake_as_an_ordinary_user_spins_and_lets_go_on_a_second_signal() {
        // As root, the child becomes nobody first (as `runuser -u nobody` would); already
        // ordinary, it runs as it is.
        let dir = tempfile::tempdir().unwrap();
        let cpu = concbench_sys::allowed_cpus().unwrap()[0];
        let live = Root::default();
        let code = killed_by_two_signals(&Root::new(dir.path()), || {
            // SAFETY: the forked child is single-threaded; dropping to nobody affects only it.
            if is_root() && unsafe { libc::setgid(65534) != 0 || libc::setuid(65534) != 0 } {
                return Err(6);
            }
            if DmaLatency::hold().is_ok() {
                return Err(7);
            }
            let (held, how) = hold_for_run(&live, &[cpu]);
            match (held, how.method) {
                (Some(h), Some(HoldMethod::Spinner)) => Ok(h),
                _ => Err(8),
            }
        });
        assert_eq!(code, 130, "7: nobody held the latency limit; 8: no spinner");
    }

    #[test]
    fn a_missing_state_is_a_reason_not_a_failure() {
        let dir = tempfile::tempdir().unwrap();
        let err = StatesDisabled::disable(&Root::new(dir.path()), &[0], &["C6"]).unwrap_err();
        assert!(err.contains("no cpuidle states"), "{err}");
    }
}
