//! Every design serves the same correct bytes for both protocols (HTTP keep-alive, pipelined,
//! `Connection: close`, and Stevens's `N\n`), also with the blocking call; and once stopped,
//! nothing of the server is left running or listening.

use concbench_server::protocol::{respond, Request};
use concbench_server::{start, Design, Handler, ServerConfig};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

fn expected(reqs: &[Request]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in reqs {
        respond(*r, &mut out);
    }
    out
}

fn read_exactly(stream: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut buf = vec![0; n];
    stream.read_exact(&mut buf).expect("response bytes");
    buf
}

/// Tests run on parallel threads of one process, and a fork copies every descriptor of that
/// process — including another test's listening socket, which would then outlive its server.
/// One server at a time, as in a real run.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

fn config(design: Design, blocking: Option<Duration>) -> ServerConfig {
    let mut c = ServerConfig::new(design);
    c.workers = 3;
    c.handler = Handler {
        blocking,
        ..Handler::default()
    };
    c
}

fn check_design(design: Design, blocking: Option<Duration>) {
    let server = start(&config(design, blocking)).unwrap();
    let addr = server.addr();
    let pid = server.pid();

    // HTTP keep-alive: two pipelined requests on one connection, then a sized one.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\nGET /4000 HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    let want = expected(&[
        Request::Http {
            body: None,
            close: false,
        },
        Request::Http {
            body: Some(4000),
            close: false,
        },
    ]);
    assert_eq!(read_exactly(&mut s, want.len()), want, "{design} HTTP");
    drop(s);

    // HTTP Connection: close — the server answers, then closes.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"GET /10 HTTP/1.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    assert_eq!(
        all,
        expected(&[Request::Http {
            body: Some(10),
            close: true
        }]),
        "{design} close"
    );

    // Stevens: "4000\n" -> exactly 4000 bytes, on a connection the client then closes.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"4000\n").unwrap();
    assert_eq!(
        read_exactly(&mut s, 4000),
        expected(&[Request::Stevens { bytes: 4000 }]),
        "{design} Stevens"
    );
    drop(s);

    server.stop().unwrap();
    assert_nothing_left(pid, addr);
}

/// The master is gone, no process of its group remains, and the port refuses connections.
/// The kernel releases some of it asynchronously (an io_uring ring's pending accept holds the
/// listening socket until the ring's teardown work runs; orphans are reaped by init), so the
/// checks allow up to two seconds.
fn assert_nothing_left(pid: i32, addr: std::net::SocketAddr) {
    let gone = || {
        // SAFETY: kill with signal 0 only checks existence (of the process, of its group).
        let procs = unsafe { libc::kill(pid, 0) != 0 && libc::kill(-pid, 0) != 0 };
        procs && TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err()
    };
    for _ in 0..200 {
        if gone() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: as above.
    let master = unsafe { libc::kill(pid, 0) };
    assert_ne!(master, 0, "server {pid} still exists");
    // SAFETY: as above.
    let group = unsafe { libc::kill(-pid, 0) };
    assert_ne!(group, 0, "server group {pid} still exists");
    panic!("{addr} still accepts connections");
}

#[test]
fn every_design_serves_both_protocols_and_leaves_nothing_behind() {
    let _one = serial();
    for design in Design::ALL {
        check_design(design, None);
    }
}

#[test]
fn every_design_serves_correctly_with_the_blocking_call() {
    let _one = serial();
    for design in Design::ALL {
        check_design(design, Some(Duration::from_millis(2)));
    }
}

#[test]
fn dropping_a_running_server_kills_its_whole_tree() {
    let _one = serial();
    for design in [
        Design::Prefork,
        Design::PreforkFdpass,
        Design::ForkPerConnection,
    ] {
        let server = start(&config(design, None)).unwrap();
        let (pid, addr) = (server.pid(), server.addr());
        // A connection held open keeps a fork-per-connection child alive.
        let _held = TcpStream::connect(addr).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        drop(server);
        assert_nothing_left(pid, addr);
    }
}
