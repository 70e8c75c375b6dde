//! `concbench serve` and `concbench load` end to end: a server on loopback, load against it,
//! the JSON report, refusals of bad input (exit code 2), and nothing left running afterwards.

mod common;

use common::{concbench, read_json};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

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
    let bin = assert_cmd::cargo::cargo_bin("concbench");
    let mut server = Command::new(&bin)
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
    assert!(String::from_utf8_lossy(&out.stdout).contains("requests/s"));
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
