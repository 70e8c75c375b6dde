//! SIGTERM (`kill`, a service manager) and SIGHUP (a closed ssh session) stop a run as Ctrl-C
//! does: exit code 130, a document marked interrupted, and nothing the run started left running
//! — a resident server's pool included. A second signal still ends the run at once, and takes
//! the whole tree with it.
//!
//! The server is S2's PHP-FPM variant: its pool leaves the probe's process group (PHP-FPM's
//! master calls `setsid`) and nginx clears its environment, so neither a process group nor an
//! environment marker finds them: what the run started is found by parentage in `/proc`, while
//! it runs. Where PHP-FPM or nginx is missing, a long fork round stands in (the same checks).

mod common;

use common::{processes_with, wait_for, TestHome};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long the run may take to reach what the test waits for (a first use writes the probe).
const START_LIMIT: Duration = Duration::from_secs(180);

#[test]
fn sigterm_stops_a_run_like_ctrl_c_and_ends_its_server() {
    let mut run = Run::start("term-once");
    run.signal(libc::SIGTERM);
    let (mut run, code) = run.wait();
    assert_eq!(code, Some(130), "SIGTERM is an interrupt, as Ctrl-C");
    run.assert_nothing_left();
    let doc = common::read_json(&run.out);
    assert_eq!(doc["interrupted"], true);
    common::assert_valid(&doc);
}

#[test]
fn a_closed_terminal_stops_a_run_like_ctrl_c() {
    let mut run = Run::start("hup-once");
    run.signal(libc::SIGHUP);
    let (mut run, code) = run.wait();
    assert_eq!(code, Some(130));
    run.assert_nothing_left();
    assert_eq!(common::read_json(&run.out)["interrupted"], true);
}

/// Regression: the second signal exited with the worker's `PR_SET_PDEATHSIG` as the only
/// cleanup, and nginx and the PHP-FPM pool, tied to no parent, served on.
#[test]
fn a_second_sigterm_ends_the_run_at_once_with_everything_it_started() {
    let mut run = Run::start("term-twice");
    run.signal(libc::SIGTERM);
    run.signal(libc::SIGTERM);
    let (mut run, code) = run.wait();
    assert_eq!(code, Some(130));
    run.assert_nothing_left();
}

/// A run under way, with what it had started once it served (or measured).
struct Run {
    child: Child,
    marker: String,
    out: PathBuf,
    /// Every process of the run's tree when it was under way and when it was signalled:
    /// (pid, start time).
    tree: Vec<(i32, u64)>,
    _home: TestHome,
}

impl Run {
    /// Start the run and return once its tree holds what it measures with.
    fn start(name: &str) -> Run {
        let home = TestHome::new();
        let out = home.path().join("out.json");
        let marker = format!(
            "CONCBENCH_TEST_MARKER={}-sigterm-{name}",
            std::process::id()
        );
        let (k, v) = marker.split_once('=').unwrap();
        let (args, ready) = selection();
        let mut cmd = home.process();
        cmd.arg("run")
            .args(args)
            .args(["--settle", "0", "--json"])
            .arg(&out)
            .env(k, v)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        with_default_signals(&mut cmd);
        let mut child = cmd.spawn().expect("the run starts");
        let root = child.id() as i32;
        wait_for(
            &mut child,
            START_LIMIT,
            &format!("{} in the run", ready.join(" and ")),
            || {
                let names: Vec<String> = tree_of(root).iter().skip(1).map(|p| comm(*p)).collect();
                ready.iter().all(|r| names.iter().any(|n| n.starts_with(r)))
            },
        );
        let mut run = Run {
            tree: Vec::new(),
            child,
            marker,
            out,
            _home: home,
        };
        run.remember(tree_of(root));
        run
    }

    /// Add `pids` (as they are now: with their start times) to the run's tree.
    fn remember(&mut self, pids: Vec<i32>) {
        for pid in pids {
            if let Some(started) = start_time(pid) {
                if !self.tree.contains(&(pid, started)) {
                    self.tree.push((pid, started));
                }
            }
        }
    }

    /// Send `sig` and return once the run has taken it (it is no longer pending), so that a
    /// second one is a second signal, not merged into the first.
    fn signal(&mut self, sig: i32) {
        let pid = self.child.id() as i32;
        // What started since (a pool's later workers) is the run's too.
        self.remember(tree_of(pid));
        // SAFETY: kill with the pid of our own child, not reaped yet.
        unsafe { libc::kill(pid, sig) };
        let taken = || pending(pid).is_none_or(|set| set & (1 << (sig - 1)) == 0);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !taken() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Wait for the run to end; its exit code.
    fn wait(mut self) -> (Run, Option<i32>) {
        let status = self.child.wait().expect("the run ends");
        (self, status.code())
    }

    /// No process of the run's tree runs any more, nor any process it started later. SIGKILL
    /// is delivered asynchronously: the processes get a while to die (a bound for a failing
    /// test, not a timing assertion).
    fn assert_nothing_left(&mut self) {
        let left = || -> Vec<String> {
            self.tree
                .iter()
                .filter(|(pid, started)| runs(*pid, *started))
                .map(|(pid, _)| format!("{pid} ({})", comm(*pid)))
                .chain(processes_with(&self.marker).iter().map(|p| p.to_string()))
                .collect()
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !left().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = left();
        assert!(left.is_empty(), "left running: {left:?}");
    }
}

impl Drop for Run {
    /// A failed test leaves nothing running either; nor does a second signal leave the PHP-FPM
    /// probe's directory in the temporary directory (killed at once, the probe cannot remove it).
    fn drop(&mut self) {
        for (pid, started) in &self.tree {
            if runs(*pid, *started) {
                // SAFETY: kill with a pid that is still the process the run started.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
        }
        let prefixes: Vec<String> = self
            .tree
            .iter()
            .map(|(pid, _)| format!("concbench-php-fpm-{pid}-"))
            .collect();
        for entry in std::fs::read_dir(std::env::temp_dir())
            .into_iter()
            .flatten()
        {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            if prefixes.iter().any(|p| name.starts_with(p)) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// What to run and the names (`comm` prefixes) of the processes whose presence says it is under
/// way: S2's PHP-FPM server (full mode: its worker stays resident between rounds) once nginx
/// and the pool run, or, without PHP-FPM or nginx, 100k-fork batches once the worker runs.
fn selection() -> (Vec<&'static str>, &'static [&'static str]) {
    if has_php_fpm() {
        let args = ["--only", "server.keepalive", "--where", "design=php-fpm"];
        (args.to_vec(), &["nginx", "php-fpm"])
    } else {
        eprintln!("no php-fpm or nginx here: a long fork round stands in for the server");
        (vec!["--only", "create.process_100k"], &["concbench"])
    }
}

/// Whether PHP, PHP-FPM and nginx are installed where concbench looks for them.
fn has_php_fpm() -> bool {
    let found = |names: &[&str]| names.iter().any(|n| program(n).is_some());
    found(&["php"])
        && found(&["nginx"])
        && found(&[
            "php-fpm",
            "php-fpm8.4",
            "php-fpm8.3",
            "php-fpm8.2",
            "php-fpm8.1",
        ])
}

fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/usr/local/sbin".into()])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// SIGINT, SIGTERM and SIGHUP at their defaults in the run: the test binary may run with some
/// ignored (a background job, `nohup`), and the run would inherit that.
fn with_default_signals(cmd: &mut Command) {
    // SAFETY: signal(2) is async-signal-safe and only changes the child's own actions.
    unsafe {
        cmd.pre_exec(|| {
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        })
    };
}

/// `root` and its descendants, by parentage.
fn tree_of(root: i32) -> Vec<i32> {
    concbench_measure::tree::descendants(root)
}

fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(proc(pid).join("stat")).ok()?;
    let after_name = &text[text.rfind(')')? + 2..];
    Some(after_name.split(' ').map(str::to_string).collect())
}

fn proc(pid: i32) -> PathBuf {
    Path::new("/proc").join(pid.to_string())
}

/// The process's start time (field 22 of `stat`): a pid reused later is not the same process.
fn start_time(pid: i32) -> Option<u64> {
    stat_fields(pid)?.get(19)?.parse().ok()
}

/// Whether `pid` is still the process that started at `started`, and not a zombie.
fn runs(pid: i32, started: u64) -> bool {
    stat_fields(pid).is_some_and(|f| {
        f.first().is_some_and(|s| s != "Z" && s != "X") && f.get(19) == Some(&started.to_string())
    })
}

fn comm(pid: i32) -> String {
    std::fs::read_to_string(proc(pid).join("comm"))
        .map(|c| c.trim().to_string())
        .unwrap_or_default()
}

/// The signals pending for the whole process (`ShdPnd`, a bit per signal).
fn pending(pid: i32) -> Option<u64> {
    let status = std::fs::read_to_string(proc(pid).join("status")).ok()?;
    let hex = status.lines().find_map(|l| l.strip_prefix("ShdPnd:"))?;
    u64::from_str_radix(hex.trim(), 16).ok()
}
