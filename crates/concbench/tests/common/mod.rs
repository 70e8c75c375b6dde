//! Helpers for the end-to-end tests: run the real binary, read and validate its documents.
//!
//! Every invocation of the binary runs in a home of its own ([`TestHome`]: `HOME`, the XDG
//! directories, hence its own history and probe cache, and its own run lock), never in the
//! user's: a test must not store runs in the user's history, build into `~/.cache/concbench`, or
//! see what another test stored (a run pools its verdicts over the stored runs). A test that
//! runs the binary several times over one history uses one [`TestHome`] for all of them.

#![allow(dead_code)]

use assert_cmd::Command;
use std::ffi::OsStr;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A home of one test's own, removed when the last command using it is dropped.
#[derive(Clone)]
pub struct TestHome {
    dir: Rc<tempfile::TempDir>,
    lock: PathBuf,
}

impl TestHome {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("concbench-test-home-")
            .tempdir()
            .expect("a test home");
        let lock = dir.path().join("run.lock");
        Self {
            dir: Rc::new(dir),
            lock,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `$XDG_DATA_HOME`: the default history is `concbench/history.sqlite` in it.
    pub fn data(&self) -> PathBuf {
        self.path().join("data")
    }

    /// The history a run stores itself in by default.
    pub fn history(&self) -> PathBuf {
        self.data().join("concbench/history.sqlite")
    }

    /// concbench's cache (`$CONCBENCH_CACHE`): probe builds.
    pub fn cache(&self) -> PathBuf {
        self.path().join("cache/concbench")
    }

    /// The run lock of this home's runs: tests run side by side, and the machine-wide lock
    /// (`src/run_lock`) would refuse all but one of them. Tests of the lock set their own.
    pub fn lock(&self) -> &Path {
        &self.lock
    }

    /// Point every place the binary reads or writes at this home.
    pub fn apply(&self, cmd: &mut std::process::Command) {
        let home = self.path();
        cmd.env("CI", "true")
            .env("HOME", home)
            .env("XDG_DATA_HOME", self.data())
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_STATE_HOME", home.join("state"))
            .env("CONCBENCH_CACHE", self.cache())
            .env("CONCBENCH_LOCK", &self.lock)
            // Go's own compile cache (not concbench's) is shared by the tests, in the build's
            // target directory: a cold one costs a minute per Go build.
            .env("GOCACHE", shared_go_cache())
            .env_remove("CONCBENCH_DB")
            .env_remove("CONCBENCH_PROBE_SEARCH");
    }

    /// Hand this home to user `uid` (group `gid`): a test that runs the binary as another user
    /// (as root only).
    pub fn give_to(&self, uid: u32, gid: u32) {
        std::os::unix::fs::chown(self.path(), Some(uid), Some(gid)).expect("chown the test home");
    }

    /// `program` (a copy of the binary) as a plain process in this home.
    pub fn process_of(&self, program: &Path) -> WithHome<std::process::Command> {
        let mut cmd = std::process::Command::new(program);
        self.apply(&mut cmd);
        WithHome {
            cmd,
            _home: self.clone(),
        }
    }

    /// The binary, for `assert_cmd`.
    pub fn concbench(&self) -> WithHome<Command> {
        let mut plain = std::process::Command::new(assert_cmd::cargo::cargo_bin("concbench"));
        self.apply(&mut plain);
        WithHome {
            cmd: Command::from_std(plain),
            _home: self.clone(),
        }
    }

    /// The binary as a plain process (for tests that wire its stdio or signal it themselves).
    pub fn process(&self) -> WithHome<std::process::Command> {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("concbench"));
        self.apply(&mut cmd);
        WithHome {
            cmd,
            _home: self.clone(),
        }
    }
}

/// A command that keeps its test home alive as long as it lives.
pub struct WithHome<C> {
    cmd: C,
    _home: TestHome,
}

impl<C> Deref for WithHome<C> {
    type Target = C;
    fn deref(&self) -> &C {
        &self.cmd
    }
}

impl<C> DerefMut for WithHome<C> {
    fn deref_mut(&mut self) -> &mut C {
        &mut self.cmd
    }
}

/// The binary in a home of its own (see [`TestHome`]).
pub fn concbench() -> WithHome<Command> {
    TestHome::new().concbench()
}

/// The binary as a plain process in a home of its own. The home lives as long as the returned
/// command: for a process that outlives the statement (`spawn`), bind a [`TestHome`] first and
/// use [`TestHome::process`], or the home is removed under the running process.
pub fn concbench_process() -> WithHome<std::process::Command> {
    TestHome::new().process()
}

/// A copy of the binary in `dir`, readable and runnable by every user (a test running it as
/// another user cannot count on reading the build's target directory).
pub fn binary_copy(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let copy = dir.join("concbench");
    std::fs::copy(assert_cmd::cargo::cargo_bin("concbench"), &copy).expect("copy the binary");
    for path in [dir, copy.as_path()] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    copy
}

/// Go's compile cache for the tests' probe builds.
fn shared_go_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("go-build")
}

/// The SYNTHETIC fixture document of the report crate (test data, not a measurement).
pub fn fixture() -> PathBuf {
    repo_root().join("crates/concbench-report/tests/fixtures/synthetic-all-families.json")
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("document written"))
        .expect("valid JSON")
}

/// Validate against `schema/result-v1.schema.json`; panics listing every violation.
pub fn assert_valid(doc: &serde_json::Value) {
    let errors = schema_violations(doc);
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
}

/// What `cmd` prints on stdout (it must succeed).
pub fn printed(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("UTF-8 output")
}

/// What `concbench report FILE --all` prints, run in `home` (it must succeed).
pub fn report_all(home: &TestHome, file: &Path) -> String {
    printed(home.concbench().arg("report").arg(file).arg("--all"))
}

/// Every violation of `schema/result-v1.schema.json` by `doc`, each with where it is.
pub fn schema_violations(doc: &serde_json::Value) -> Vec<String> {
    let schema_text =
        std::fs::read_to_string(repo_root().join("schema/result-v1.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

/// A smoke run of `only` (or everything) into `dir/out.json`; returns the document.
pub fn smoke_run(dir: &Path, only: Option<&str>) -> serde_json::Value {
    smoke_run_printing(dir, only).0
}

/// A smoke run of `only` (or everything) into `dir/out.json`; returns the document and what the
/// run printed on stdout.
pub fn smoke_run_printing(dir: &Path, only: Option<&str>) -> (serde_json::Value, String) {
    let out = dir.join("out.json");
    let mut cmd = concbench();
    cmd.args(["run", "--smoke", "--json"]).arg(&out);
    if let Some(o) = only {
        cmd.args(["--only", o]);
    }
    let stdout = cmd.assert().success().get_output().stdout.clone();
    (
        read_json(&out),
        String::from_utf8(stdout).expect("UTF-8 output"),
    )
}

/// `concbench ARGS` must exit with 2 (bad usage or input) and say every one of `needles` on
/// stderr (the flag at fault and the fix).
pub fn assert_usage_error<I, S>(args: I, needles: &[&str])
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = concbench().args(args).output().expect("concbench runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr:\n{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "stderr lacks {n:?}:\n{stderr}");
    }
}

/// Processes whose environment carries `marker` (children inherit it).
pub fn processes_with(marker: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(env) = std::fs::read(entry.path().join("environ")) {
            if env.split(|b| *b == 0).any(|kv| kv == marker.as_bytes()) {
                pids.push(pid);
            }
        }
    }
    pids
}

/// Start `cmd` (a long run: `run --settle 0 --only create.process_100k ...`) with `marker`
/// (`KEY=VALUE`) in its environment, stdout discarded and stderr piped, and return it once it
/// measures: its worker carries the marker too. Fails (leaving nothing running) after 30 s.
pub fn started_measuring(cmd: &mut std::process::Command, marker: &str) -> std::process::Child {
    let (k, v) = marker.split_once('=').expect("KEY=VALUE");
    let mut child = cmd
        .env(k, v)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the run starts");
    wait_for(
        &mut child,
        std::time::Duration::from_secs(30),
        "the worker's start",
        || processes_with(marker).len() >= 2,
    );
    child
}

/// Wait up to `limit` for `ready`; if it never holds, kill `child` (nothing is left running
/// after a failed test) and fail saying `what` did not happen.
pub fn wait_for(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    what: &str,
    ready: impl Fn() -> bool,
) {
    let deadline = std::time::Instant::now() + limit;
    while !ready() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not happen within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
