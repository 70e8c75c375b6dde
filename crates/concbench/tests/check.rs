//! `concbench check` end to end on recorded trees (concbench-measure's tests/fixtures/sysfs) and
//! on this machine, as root and as an ordinary user: the screen, the exit code, `--json`.

mod common;

use common::*;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

fn tree(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../concbench-measure/tests/fixtures/sysfs")
        .join(name)
}

fn check_on(name: &str, extra: &[&str]) -> (i32, String) {
    let out = concbench()
        .arg("check")
        .arg("--root")
        .arg(tree(name))
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn a_haltpoll_vm_that_halts_at_once_bends_the_figures_and_exits_1() {
    let (code, text) = check_on("haltpoll_vm", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("BENDS") && text.contains("idle.halt_poll"),
        "{text}"
    );
    assert!(text.contains("guest_halt_poll_ns=0"), "{text}");
    assert!(text.contains("how: "), "{text}");
    // One screen.
    assert!(
        text.lines().count() <= 50,
        "{} lines:\n{text}",
        text.lines().count()
    );
}

#[test]
fn a_tuned_machine_bends_nothing_and_exits_0() {
    let (code, text) = check_on("tuned", &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("Nothing here bends the figures"), "{text}");
    assert!(!text.contains("BENDS"), "{text}");
}

#[test]
fn json_lists_every_setting_with_its_effect_and_the_same_exit_code() {
    let (code, text) = check_on("container", &["--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["bends"], true);
    let settings = v["settings"].as_array().unwrap();
    let quota = settings.iter().find(|s| s["key"] == "cgroup.cpu").unwrap();
    assert_eq!(quota["effect"], "bends");
    assert!(quota["how"].as_str().unwrap().contains("cpu.max"));
    assert!(settings
        .iter()
        .all(|s| s["why"].as_str().is_some_and(|w| !w.is_empty())));
    let keys: Vec<&str> = settings
        .iter()
        .map(|s| s["key"].as_str().unwrap())
        .collect();
    for key in [
        "idle.driver",
        "idle.pm_qos",
        "cpufreq.governor",
        "cpufreq.boost",
        "smt",
        "cpus.isolated",
        "thp",
        "perf_event_paranoid",
        "pmu",
        "aslr",
        "irqbalance",
        "steal",
        "hypervisor",
        "cgroup.cpu",
        "cgroup.memory",
        "swap",
    ] {
        assert!(keys.contains(&key), "{key} missing from {keys:?}");
    }
}

#[test]
fn the_measured_wake_up_figures_are_shown_beside_the_idle_driver() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("wake.json");
    std::fs::write(&doc, WAKE_DOC).unwrap();
    let (_, text) = check_on("vm_no_driver", &["--from", doc.to_str().unwrap()]);
    // The reasons are wrapped to the terminal: compare the words.
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("measured here: one cross-CPU hand-over: free 21.4 µs (0.80 idle entries per hand-over), spinner 3.9 µs"),
        "{text}"
    );
}

/// This machine, as root and (when the test runs as root) as nobody: never a failure, only
/// 0 or 1, and the ordinary user is told that some values need root.
#[test]
fn this_machine_checks_as_root_and_as_an_ordinary_user() {
    let out = concbench().arg("check").output().unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let mut cmd = concbench_process();
    cmd.arg("check").current_dir(std::env::temp_dir());
    // SAFETY: setgid/setuid are async-signal-safe and only change the child before exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = match cmd.output() {
        Ok(out) => out,
        // A checkout below a folder nobody may enter (/root): the ordinary user cannot even
        // start the binary, which says nothing about `check`.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            eprintln!("skipped: nobody cannot run {:?}: {e}", *cmd);
            return;
        }
        Err(e) => panic!("starting check as nobody: {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    assert!(text.contains("as an ordinary user"), "{text}");
}

/// A result document holding two `switch.wake.thread` results (only the fields `check` reads
/// and the document requires).
const WAKE_DOC: &str = r#"{
  "schema": "concbench/result/v1",
  "tool": {"name": "concbench", "version": "0"},
  "host": {"hostname": "h", "kernel": "6.1", "os": null, "arch": "x86_64", "cpu_model": "x",
    "logical_cpus": 2, "cpus_allowed": [0, 1], "smt": false, "virtualized": true,
    "hypervisor": null, "clocksource": "tsc", "mitigations": {}, "governor": null,
    "cpu_quota": null, "memory_total_kib": 1, "memory_available_kib": 1,
    "load_average": [0, 0, 0], "page_size": 4096, "is_root": true, "can_sched_fifo": true,
    "threads_max": null, "rlimit_nproc": null, "rlimit_nofile": null, "default_stack_kib": 8192},
  "started_at": "2026-11-27T00:00:00Z",
  "results": [
    {"id": "switch.wake.thread", "family": "switch", "title": "t", "op": "o", "unit": "ns",
     "params": {"idle": "free", "placement": "cross-cpu"}, "iterations": 1000,
     "median": 21400, "ci95": null, "min": 1, "max": 1, "mad": 0, "mean": 1, "samples": [21400],
     "counters": {"idle_sleeps_per_op": 0.8}, "warnings": []},
    {"id": "switch.wake.thread", "family": "switch", "title": "t", "op": "o", "unit": "ns",
     "params": {"idle": "spinner", "placement": "cross-cpu"}, "iterations": 1000,
     "median": 3900, "ci95": null, "min": 1, "max": 1, "mad": 0, "mean": 1, "samples": [3900],
     "counters": {}, "warnings": []}
  ],
  "verdicts": []
}"#;
