//! The machine's run lock across users and at the same instant (issue 42): root then `nobody`
//! and `nobody` then root take turns on one lock file in a sticky, world-writable directory (as
//! `/tmp` is) and exclude each other, and a refusal names the run that holds the lock — never
//! pid 0 or a run that has ended.
//!
//! The tests across users start runs as `nobody`, which needs root; as another user they are
//! skipped, saying so.

mod common;

use common::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// A short run, to its end in a second or so.
const SHORT_RUN: [&str; 5] = ["run", "--smoke", "--no-store", "--only", "syscall.getppid"];

/// `nobody` and `nogroup` on Debian (and most Linux systems).
const NOBODY: (u32, u32) = (65534, 65534);

/// Who starts a run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum User {
    Root,
    Nobody,
}

impl User {
    fn name(self) -> &'static str {
        match self {
            User::Root => "root",
            User::Nobody => "nobody",
        }
    }
}

/// Why runs as `nobody` cannot be started here, if they cannot.
fn cannot_switch_users() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("starting a run as nobody needs root".into());
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let nobody = format!("nobody:x:{}:", NOBODY.0);
    if !passwd.lines().any(|l| l.starts_with(&nobody)) {
        return Some(format!("no user nobody with uid {}", NOBODY.0));
    }
    None
}

/// One machine as the tests see it: a sticky, world-writable directory holding the lock, a copy
/// of the binary every user can run, and a home per user.
struct Machine {
    _shared: tempfile::TempDir,
    lock: PathBuf,
    binary: PathBuf,
    homes: [(User, TestHome); 2],
}

impl Machine {
    fn new() -> Self {
        let shared = tempfile::tempdir().unwrap();
        std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let bin_dir = shared.path().join("bin");
        std::fs::create_dir(&bin_dir).unwrap();
        let binary = binary_copy(&bin_dir);
        let nobody = TestHome::new();
        nobody.give_to(NOBODY.0, NOBODY.1);
        Machine {
            lock: shared.path().join("concbench-run.lock"),
            _shared: shared,
            binary,
            homes: [(User::Root, TestHome::new()), (User::Nobody, nobody)],
        }
    }

    /// A run of `user` with `args`, on this machine's lock. `nobody`'s runs start with umask
    /// 077, the strictest a user may have: the lock file must still serve every user.
    fn run(&self, user: User, args: &[&str]) -> WithHome<std::process::Command> {
        let home = &self.homes.iter().find(|(u, _)| *u == user).unwrap().1;
        let mut cmd = home.process_of(&self.binary);
        cmd.env("CONCBENCH_LOCK", &self.lock)
            .current_dir(home.path())
            .args(args)
            .arg("--json")
            .arg(home.path().join(format!("{}.json", args.len())));
        if user == User::Nobody {
            cmd.uid(NOBODY.0).gid(NOBODY.1);
            // SAFETY: umask is async-signal-safe and changes only the child.
            unsafe {
                cmd.pre_exec(|| {
                    libc::umask(0o077);
                    Ok(())
                })
            };
        }
        cmd
    }

    /// A short run of `user` to its end: its exit code and stderr.
    fn short_run(&self, user: User) -> (Option<i32>, String) {
        let out = self.run(user, &SHORT_RUN).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into(),
        )
    }

    /// A long run of `user`, returned once it holds the lock (its worker has started).
    fn holding(&self, user: User, marker: &str) -> Child {
        let long = [
            "run",
            "--settle",
            "0",
            "--no-store",
            "--only",
            "create.process_100k",
        ];
        started_measuring(&mut self.run(user, &long), marker)
    }
}

/// Stop a run started by this test (Ctrl-C) and wait for it.
fn stop(mut child: Child) {
    // SAFETY: kill with the pid of our own unreaped child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait().unwrap();
}

/// `first` runs, then `second` does on the file `first` left; then each is refused while the
/// other holds the lock, naming it.
fn take_turns(first: User, second: User) {
    if let Some(why) = cannot_switch_users() {
        eprintln!("SKIPPED {} then {}: {why}", first.name(), second.name());
        return;
    }
    let machine = Machine::new();
    let (code, stderr) = machine.short_run(first);
    assert_eq!(code, Some(0), "{} first: {stderr}", first.name());
    let meta = machine.lock.symlink_metadata().unwrap();
    let owner = if first == User::Root { 0 } else { NOBODY.0 };
    assert_eq!(meta.uid(), owner, "the first run created the lock file");
    assert_eq!(meta.mode() & 0o777, 0o644, "every user can open it");
    let (code, stderr) = machine.short_run(second);
    assert_eq!(
        code,
        Some(0),
        "{} on {}'s file: {stderr}",
        second.name(),
        first.name()
    );
    for (holder, refused) in [(first, second), (second, first)] {
        let marker = format!(
            "CONCBENCH_TEST_MARKER=lock-{}-{}",
            std::process::id(),
            holder.name()
        );
        let held = machine.holding(holder, &marker);
        let (code, stderr) = machine.short_run(refused);
        let named = format!("pid {} ({})", held.id(), holder.name());
        stop(held);
        assert_eq!(
            code,
            Some(2),
            "{} beside {}: {stderr}",
            refused.name(),
            holder.name()
        );
        assert!(
            stderr.contains(&named) && stderr.contains("--allow-concurrent"),
            "{stderr}"
        );
        assert!(!stderr.contains("os error"), "{stderr}");
    }
}

#[test]
fn regression_root_then_nobody_take_turns_and_exclude_each_other() {
    take_turns(User::Root, User::Nobody);
}

#[test]
fn nobody_then_root_take_turns_and_exclude_each_other() {
    take_turns(User::Nobody, User::Root);
}

/// Regression: of two runs started in the same second, the refused one said "pid 0, started
/// an unknown time", or named a run that had ended a minute earlier (the winner held the lock
/// but had not yet written its record into the file).
#[test]
fn regression_runs_started_together_name_the_live_run() {
    let home = TestHome::new();
    let start = |n: usize| {
        home.process()
            .args(SHORT_RUN)
            .arg("--json")
            .arg(home.path().join(format!("{n}.json")))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    for _ in 0..3 {
        let pair = [start(1), start(2)];
        let pids: Vec<u32> = pair.iter().map(Child::id).collect();
        let outs: Vec<_> = pair
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        for (i, out) in outs.iter().enumerate() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.code() == Some(2) {
                let other = format!("pid {} (", pids[1 - i]);
                assert!(stderr.contains(&other), "names {other}: {stderr}");
            } else {
                assert_eq!(out.status.code(), Some(0), "{stderr}");
            }
        }
    }
}

/// A lock path that is a link planted by someone else is refused, naming it, and its target is
/// left as it was (no run follows a link in a shared directory).
#[test]
fn regression_a_planted_link_is_refused_and_its_target_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let lock: &Path = &dir.path().join("concbench-run.lock");
    std::os::unix::fs::symlink(&victim, lock).unwrap();
    let out = concbench()
        .env("CONCBENCH_LOCK", lock)
        .args(SHORT_RUN)
        .arg("--json")
        .arg(dir.path().join("out.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("symbolic link") && stderr.contains(&lock.display().to_string()),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
}

/// A lock file another user made that this user may not open (an older build's, created under
/// umask 077) is refused naming the file, its owner and mode, and what to do — never a bare
/// "os error N".
#[test]
fn a_lock_file_nobody_may_open_is_named_with_its_owner_and_the_fix() {
    if let Some(why) = cannot_switch_users() {
        eprintln!("SKIPPED: {why}");
        return;
    }
    let machine = Machine::new();
    std::fs::write(&machine.lock, "").unwrap();
    std::fs::set_permissions(&machine.lock, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (code, stderr) = machine.short_run(User::Nobody);
    assert_eq!(code, Some(1), "{stderr}");
    let path = machine.lock.display().to_string();
    for needle in [
        path.as_str(),
        "owned by root, mode 0600",
        "rm ",
        "CONCBENCH_LOCK",
    ] {
        assert!(stderr.contains(needle), "lacks {needle:?}: {stderr}");
    }
}
