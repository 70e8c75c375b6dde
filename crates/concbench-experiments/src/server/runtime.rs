//! What a server's runtime does while it serves, window by window: the share of a CPU its JIT
//! compiler threads took (their run time from `/proc`), and, for a JVM started with unified
//! logging ([`JvmLogs`]), the methods it compiled and its garbage-collection pauses — from its
//! log files, read as they grow, so each window gets the lines written during it.
//!
//! Why both: the share of a CPU is what the steady-state criterion and the guard read (a JIT
//! that compiles competes with the request path for the server's CPU; a count says nothing of
//! how long a compilation took); the counts are the evidence a reader checks it against
//! (HotSpot's `-Xlog:jit+compilation`, `-Xlog:gc`).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// HotSpot's compiler threads, by the names the kernel keeps (15 bytes): "C1 CompilerThre",
/// "C2 CompilerThre", and Graal's "JVMCI CompilerT" when it compiles.
const JIT_THREADS: [&str; 3] = ["C1 Compiler", "C2 Compiler", "JVMCI"];

/// A JVM's unified logs of its JIT compilations and GC pauses.
#[derive(Debug, Clone, PartialEq)]
pub struct JvmLogs {
    pub jit: PathBuf,
    pub gc: PathBuf,
}

impl JvmLogs {
    /// Log files named after `tag` in `dir`.
    pub fn in_dir(dir: &Path, tag: &str) -> Self {
        JvmLogs {
            jit: dir.join(format!("{tag}-jit.log")),
            gc: dir.join(format!("{tag}-gc.log")),
        }
    }

    /// The JVM flags that write them: no decorations (the window a line belongs to is the one
    /// in which it was read), no rotation.
    pub fn flags(&self) -> Vec<String> {
        vec![
            format!(
                "-Xlog:jit+compilation=debug:file={}:none:filecount=0",
                self.jit.display()
            ),
            format!("-Xlog:gc:file={}:none:filecount=0", self.gc.display()),
        ]
    }
}

/// One window of a runtime's activity; `None` where the runtime has no such thing or it could
/// not be read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Activity {
    pub jit_share: Option<f64>,
    pub compilations: Option<u64>,
    pub gc_pauses: Option<u64>,
    pub gc_pause_ms: Option<f64>,
}

impl Activity {
    /// Sum of windows (shares weighted by their seconds).
    pub fn total(windows: &[(f64, Activity)]) -> Activity {
        let seconds: f64 = windows.iter().map(|(s, _)| s).sum();
        let sum_u = |f: fn(&Activity) -> Option<u64>| -> Option<u64> {
            windows.iter().map(|(_, a)| f(a)).sum()
        };
        let sum_f = |f: fn(&Activity) -> Option<f64>| -> Option<f64> {
            windows.iter().map(|(_, a)| f(a)).sum()
        };
        let busy: Option<f64> = windows
            .iter()
            .map(|(s, a)| a.jit_share.map(|j| j * s))
            .sum();
        Activity {
            jit_share: busy.map(|b| b / seconds.max(f64::MIN_POSITIVE)),
            compilations: sum_u(|a| a.compilations),
            gc_pauses: sum_u(|a| a.gc_pauses),
            gc_pause_ms: sum_f(|a| a.gc_pause_ms),
        }
    }
}

/// Watches one server's runtime: call [`RuntimeWatch::window`] at the end of each window.
pub struct RuntimeWatch {
    pid: i32,
    /// The compiler threads' run time at the last reading (`None`: no JIT to watch).
    jit_ns: Option<f64>,
    jit_log: Option<LogTail>,
    gc_log: Option<LogTail>,
}

impl RuntimeWatch {
    /// Start watching the tree under `pid`; `jvm` when it is a JVM (its logs, if it writes them).
    pub fn new(pid: i32, jvm: bool, logs: Option<&JvmLogs>) -> Self {
        let mut w = RuntimeWatch {
            pid,
            jit_ns: jvm.then(|| concbench_measure::tree::named_threads_run_ns(pid, &JIT_THREADS)),
            jit_log: logs.map(|l| LogTail::new(&l.jit)),
            gc_log: logs.map(|l| LogTail::new(&l.gc)),
        };
        // What the logs hold so far belongs to no window.
        w.window(1.0);
        w
    }

    /// The activity since the last call, over `seconds` of wall time.
    pub fn window(&mut self, seconds: f64) -> Activity {
        let jit_share = self.jit_ns.as_mut().map(|last| {
            let now = concbench_measure::tree::named_threads_run_ns(self.pid, &JIT_THREADS);
            let share = (now - *last).max(0.0) / 1e9 / seconds.max(1e-9);
            *last = now;
            share
        });
        let compilations = self
            .jit_log
            .as_mut()
            .map(|t| t.new_lines().iter().filter(|l| is_compilation(l)).count() as u64);
        let pauses: Option<Vec<f64>> = self.gc_log.as_mut().map(|t| {
            t.new_lines()
                .iter()
                .filter_map(|l| gc_pause_ms(l))
                .collect()
        });
        Activity {
            jit_share,
            compilations,
            gc_pauses: pauses.as_ref().map(|p| p.len() as u64),
            gc_pause_ms: pauses.map(|p| p.iter().sum()),
        }
    }
}

/// The complete lines a growing file gained since the last read.
struct LogTail {
    path: PathBuf,
    file: Option<File>,
    partial: String,
}

impl LogTail {
    fn new(path: &Path) -> Self {
        LogTail {
            path: path.to_path_buf(),
            file: None,
            partial: String::new(),
        }
    }

    fn new_lines(&mut self) -> Vec<String> {
        if self.file.is_none() {
            // The JVM creates it when it starts logging.
            self.file = File::open(&self.path).ok();
        }
        let Some(f) = self.file.as_mut() else {
            return Vec::new();
        };
        let mut bytes = Vec::new();
        if f.read_to_end(&mut bytes).is_err() {
            return Vec::new();
        }
        self.partial.push_str(&String::from_utf8_lossy(&bytes));
        let Some(end) = self.partial.rfind('\n') else {
            return Vec::new();
        };
        let rest = self.partial.split_off(end + 1);
        let done = std::mem::replace(&mut self.partial, rest);
        done.lines().map(str::to_string).collect()
    }
}

/// A line of `-Xlog:jit+compilation=debug` that records a compilation (not a method "made not
/// entrant" or otherwise retired): `   1234   3       java.lang.String::hashCode (49 bytes)`.
fn is_compilation(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(|c: char| c.is_ascii_digit())
        && !t.contains("made not entrant")
        && !t.contains("made zombie")
}

/// The milliseconds of a pause line of `-Xlog:gc`:
/// `GC(3) Pause Young (Allocation Failure) 108M->7M(365M) 0.640ms`.
fn gc_pause_ms(line: &str) -> Option<f64> {
    if !line.contains(" Pause ") {
        return None;
    }
    line.trim_end()
        .rsplit(' ')
        .next()?
        .strip_suffix("ms")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn compilations_and_pauses_are_read_from_hotspots_own_lines() {
        // Lines of JDK 25's -Xlog:jit+compilation=debug and -Xlog:gc, decorations off.
        assert!(is_compilation(
            "    930       4       java.util.concurrent.ConcurrentHashMap::get (162 bytes)"
        ));
        assert!(is_compilation(
            "    948   !   4       java.lang.ref.ReferenceQueue::poll (44 bytes)"
        ));
        assert!(!is_compilation(
            "    103       3       java.util.concurrent.ConcurrentHashMap::get (162 bytes)   made not entrant: not used"
        ));
        assert!(!is_compilation("Using Serial"));
        assert_eq!(
            gc_pause_ms("GC(3) Pause Young (Allocation Failure) 108M->7M(365M) 0.640ms"),
            Some(0.64)
        );
        assert_eq!(gc_pause_ms("Using Serial"), None);
    }

    #[test]
    fn each_window_gets_the_lines_written_during_it() {
        let dir = tempfile::tempdir().unwrap();
        let logs = JvmLogs::in_dir(dir.path(), "t");
        let mut jit = std::fs::File::create(&logs.jit).unwrap();
        writeln!(jit, "      1       3       a::b (1 bytes)").unwrap();
        let mut watch = RuntimeWatch::new(std::process::id() as i32, false, Some(&logs));
        assert_eq!(watch.window(1.0).compilations, Some(0), "before the watch");
        write!(jit, "      2       4       a::c (1 bytes)\n      3  ").unwrap();
        let a = watch.window(1.0);
        assert_eq!(a.compilations, Some(1), "a half-written line waits");
        assert_eq!(a.gc_pauses, Some(0), "no GC log yet is no pause");
        assert_eq!(a.jit_share, None, "not a JVM");
        writeln!(jit, "   4       a::d (1 bytes)").unwrap();
        assert_eq!(watch.window(1.0).compilations, Some(1));
    }

    #[test]
    fn windows_add_up_with_shares_weighted_by_time() {
        let a = |share, n| Activity {
            jit_share: Some(share),
            compilations: Some(n),
            gc_pauses: Some(1),
            gc_pause_ms: Some(0.5),
        };
        let t = Activity::total(&[(1.0, a(0.1, 3)), (3.0, a(0.0, 1))]);
        assert!((t.jit_share.unwrap() - 0.025).abs() < 1e-12);
        assert_eq!((t.compilations, t.gc_pauses), (Some(4), Some(2)));
        assert_eq!(t.gc_pause_ms, Some(1.0));
    }
}
