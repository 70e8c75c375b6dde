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
//!   Root only; the previous values are written back on drop.
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
    restore: Vec<(PathBuf, String)>,
}

impl StatesDisabled {
    /// Disable the states named in `names` on `cpus`. `Err`: why not (no cpuidle, no such
    /// state, not root); whatever was changed before the error is restored.
    pub fn disable(root: &Root, cpus: &[usize], names: &[&str]) -> Result<Self, String> {
        let mut guard = StatesDisabled {
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
                std::fs::write(&path, "1").map_err(|e| match e.kind() {
                    std::io::ErrorKind::PermissionDenied => {
                        format!("disabling an idle state needs root ({})", path.display())
                    }
                    _ => format!("writing {}: {e}", path.display()),
                })?;
                guard.restore.push((path, before.trim().to_string()));
            }
        }
        Ok(guard)
    }
}

impl Drop for StatesDisabled {
    fn drop(&mut self) {
        // Newest first, so a state written twice ends at its first value.
        for (path, before) in self.restore.drain(..).rev() {
            let _ = std::fs::write(&path, &before);
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
        let dir = tempfile::tempdir().unwrap();
        let state = dir
            .path()
            .join("sys/devices/system/cpu/cpu0/cpuidle/state2");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("name"), "C6\n").unwrap();
        std::fs::write(state.join("disable"), "0\n").unwrap();
        let root = Root::new(dir.path());
        let result = std::panic::catch_unwind(|| {
            let _g = StatesDisabled::disable(&root, &[0], &["C6"]).unwrap();
            assert_eq!(std::fs::read_to_string(state.join("disable")).unwrap(), "1");
            panic!("an experiment failed while the state was disabled");
        });
        assert!(result.is_err());
        assert_eq!(std::fs::read_to_string(state.join("disable")).unwrap(), "0");
    }

    #[test]
    fn a_missing_state_is_a_reason_not_a_failure() {
        let dir = tempfile::tempdir().unwrap();
        let err = StatesDisabled::disable(&Root::new(dir.path()), &[0], &["C6"]).unwrap_err();
        assert!(err.contains("no cpuidle states"), "{err}");
    }
}
