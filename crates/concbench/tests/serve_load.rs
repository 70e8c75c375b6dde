//! `concbench serve` and `concbench load` end to end: a server on loopback, load against it,
//! the JSON report, refusals of bad input (exit code 2), runs that measured nothing (exit code
//! 1, never a summary of zeros), and nothing left running afterwards.

mod common;

use common::{
    assert_usage_error, concbench, concbench_process, processes_with, read_json, TestHome,
};
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

#[test]
fn load_refuses_a_non_loopback_target_without_sending_anything() {
    let out = concbench()
        .args(["load", "http://10.11.12.13:80/", "-d", "100ms"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
}

#[test]
fn serve_rejects_an_unknown_design() {
    let out = concbench().args(["serve", "apache"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("prefork-fdpass"));
}

#[test]
fn load_against_serve_reports_requests_and_the_server_stops_cleanly() {
    // The home lives as long as the process: bound here, not a temporary.
    let home = TestHome::new();
    let mut server = home
        .process()
        .args(["serve", "prefork", "--workers", "4"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(line.contains("serving prefork on 127.0.0.1:"), "{line}");

    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("load.json");
    let out = concbench()
        .args(["load", &format!("http://{addr}/"), "-c", "4", "-d", "300ms"])
        .args(["--warmup", "50ms", "--json", json.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("requests/s"), "{summary}");
    // Latencies through the one duration formatter: scaled, never the unit id "us".
    let latency = summary
        .lines()
        .find(|l| l.starts_with("latency corrected"))
        .expect("a latency line");
    assert!(
        latency.contains(" p50 ") && !latency.contains(" us") && !latency.contains("(us)"),
        "{latency}"
    );
    let report = read_json(&json);
    assert!(report["requests"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["errors_total"], 0);
    assert!(!report["latency_corrected"]["spectrum"]
        .as_array()
        .unwrap()
        .is_empty());

    // SIGTERM ends the master; its children die with it (PR_SET_PDEATHSIG).
    let pid = server.id() as i32;
    // SAFETY: kill with the pid of our own unreaped child.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    server.wait().unwrap();
    let mut closed = false;
    for _ in 0..100 {
        if std::net::TcpStream::connect(&addr).is_err() {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        closed,
        "{addr} still accepts connections after the server stopped"
    );
}

/// A `concbench serve` started like a script's background job, its port, and the marker its
/// processes carry.
struct Served {
    child: Child,
    addr: String,
    marker: String,
}

/// Start `concbench serve ARGS`; with `sigint_ignored`, as a shell script starts a background
/// job (SIGINT ignored, inherited through exec).
fn serve(args: &[&str], sigint_ignored: bool, tag: &str) -> Served {
    let marker = format!("CONCBENCH_TEST_MARKER={}-serve-{tag}", std::process::id());
    let (k, v) = marker.split_once('=').unwrap();
    let mut cmd = concbench_process();
    cmd.arg("serve").args(args).env(k, v);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    if sigint_ignored {
        // SAFETY: signal(2) is async-signal-safe; it only changes the child's SIGINT action.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                Ok(())
            })
        };
    }
    let mut child = cmd.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("serving"), "{line}");
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    Served {
        child,
        addr,
        marker,
    }
}

impl Served {
    /// Send `signal`, wait for the exit (killing it after 20 s); returns the code and stderr.
    fn stop_with(mut self, signal: i32) -> (Option<i32>, String) {
        // SAFETY: kill with the pid of our own unreaped child.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("concbench serve ignored signal {signal}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = self.child.wait_with_output().unwrap();
        let left = processes_with(&self.marker);
        assert!(left.is_empty(), "left running: {left:?}");
        assert!(
            std::net::TcpStream::connect(&self.addr).is_err(),
            "{} still accepts connections",
            self.addr
        );
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn serve_started_from_a_script_stops_on_ctrl_c_with_its_pool() {
    let served = serve(&["prefork", "--workers", "3"], true, "sigint");
    assert!(processes_with(&served.marker).len() >= 4, "master and pool");
    let (code, stderr) = served.stop_with(libc::SIGINT);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("stopped the prefork server (SIGINT)"),
        "{stderr}"
    );
}

#[test]
fn serve_stops_when_its_terminal_closes() {
    let (code, stderr) = serve(&["thread-per-connection"], false, "sighup").stop_with(libc::SIGHUP);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn serve_on_a_port_in_use_names_the_flag_and_suggests_port_0() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    assert_usage_error(
        ["serve", "iterative", "--port", &port],
        &["--port: port", "in use", "--port 0"],
    );
}

#[test]
fn serve_on_a_cpu_that_does_not_exist_lists_the_cpus() {
    assert_usage_error(
        ["serve", "iterative", "--cpus", "0,100000"],
        &["--cpus: no CPU 100000", "its CPUs are 0"],
    );
}

#[test]
fn serve_on_a_non_loopback_address_warns() {
    let served = serve(&["iterative", "--bind", "0.0.0.0"], false, "bind");
    let (code, stderr) = served.stop_with(libc::SIGTERM);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: --bind 0.0.0.0: not a loopback address"),
        "{stderr}"
    );
}

#[test]
fn serve_says_when_its_server_ends_by_itself() {
    let mut served = serve(&["iterative", "--allow-crash"], false, "crash");
    let mut conn = std::net::TcpStream::connect(&served.addr).unwrap();
    std::io::Write::write_all(&mut conn, b"crash\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while served.child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "serve outlived its crashed server"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = served.child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the iterative server ended by itself"),
        "{stderr}"
    );
}

/// `concbench load URL ARGS` against a fresh `concbench serve prefork`, which is stopped (and
/// checked gone) before the caller judges the output.
fn load_against_serve(tag: &str, args: &[&str]) -> std::process::Output {
    let served = serve(&["prefork", "--workers", "4"], false, tag);
    let url = format!("http://{}/", served.addr);
    let out = concbench()
        .arg("load")
        .arg(&url)
        .args(args)
        .output()
        .unwrap();
    let (code, stderr) = served.stop_with(libc::SIGTERM);
    assert_eq!(code, Some(0), "{stderr}");
    out
}

/// A loopback address nobody listens on (bound, then released).
fn closed_port_url() -> String {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    format!("http://{addr}/")
}

#[test]
fn load_against_a_closed_port_fails_with_the_reason_not_zeros() {
    let out = concbench()
        .args(["load", &closed_port_url(), "-c", "2", "-d", "200ms"])
        .args(["--warmup", "0s"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("no successful response"), "{stderr}");
    assert!(stderr.contains("connect_refused"), "{stderr}");
    assert!(
        !stdout.contains("requests/s"),
        "a summary was printed: {stdout}"
    );
}

#[test]
fn load_with_a_window_of_no_length_is_a_usage_error() {
    for d in ["0", "0s", "0ms"] {
        assert_usage_error(["load", &closed_port_url(), "-d", d], &["longer than 0"]);
    }
}

#[test]
fn load_requests_counts_measured_requests_after_the_warm_up() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("load.json");
    let json = json.to_str().unwrap();
    let out = load_against_serve(
        "budget",
        &[
            "-c",
            "2",
            "--requests",
            "300",
            "--warmup",
            "200ms",
            "-d",
            "30s",
            "--json",
            json,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = read_json(std::path::Path::new(json));
    assert_eq!(report["requests"], 300, "{report}");
    assert!(report["warmup_requests"].as_u64().unwrap() > 0, "{report}");
}

#[test]
fn load_fails_when_fewer_requests_than_the_minimum_were_measured() {
    let exact = load_against_serve(
        "min-exact",
        &[
            "-c",
            "1",
            "--requests",
            "5",
            "--min-requests",
            "5",
            "--warmup",
            "0s",
        ],
    );
    assert!(
        exact.status.success(),
        "{}",
        String::from_utf8_lossy(&exact.stderr)
    );
    assert_usage_error(
        [
            "load",
            &closed_port_url(),
            "--requests",
            "5",
            "--min-requests",
            "6",
        ],
        &["--min-requests 6"],
    );
    // A rate that cannot reach the default minimum in the window: 20 req/s for 0.2 s.
    let few = load_against_serve(
        "min-few",
        &["-c", "1", "-R", "20", "-d", "200ms", "--warmup", "0s"],
    );
    let stderr = String::from_utf8_lossy(&few.stderr);
    assert_eq!(few.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("fewer than the 100"), "{stderr}");
}

#[test]
fn load_refuses_more_connections_than_descriptors_before_connecting() {
    let mut cmd = concbench_process();
    // SAFETY: setrlimit is async-signal-safe; it lowers only the child's descriptor limits.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 128,
                rlim_max: 128,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let out = cmd
        .args(["load", &closed_port_url(), "-c", "1000", "-d", "1s"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("file descriptors"), "{stderr}");
    assert!(stderr.contains("-c 64 or fewer"), "{stderr}");
    assert!(
        !stderr.contains("connect_refused"),
        "it connected: {stderr}"
    );
}

#[test]
fn load_refuses_a_cpu_that_does_not_exist_and_says_which_port_a_bare_url_takes() {
    // The URL names no port: the user is told which one was taken, before the CPU refusal.
    assert_usage_error(
        [
            "load",
            "http://127.0.0.1/",
            "--cpus",
            "100000",
            "-d",
            "100ms",
        ],
        &["--cpus: no CPU 100000", "its CPUs are", "using port 80"],
    );
}
