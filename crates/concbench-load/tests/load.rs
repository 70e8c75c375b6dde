//! The load generator against real servers on loopback: it completes requests and frames
//! responses; it counts errors by kind when a server closes early or resets; it honours a
//! request budget, an open-loop rate and pipelining. No traffic leaves the machine.

use concbench_load::{Connections, LoadConfig, Protocol, Rate, Shortfall};
use concbench_server::{start, Design, ServerConfig};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

/// Tests share one process; a server forked by one test would inherit (and keep open) the
/// sockets of another test's in-process server. One test at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

fn config(addr: SocketAddr, connections: usize) -> LoadConfig {
    let mut c = LoadConfig::new(addr);
    c.connections = connections;
    c.duration = Duration::from_millis(200);
    c
}

#[test]
fn keepalive_closed_loop_completes_requests_without_errors() {
    let _one = serial();
    let server = start(&ServerConfig::new(Design::Epoll)).unwrap();
    let mut cfg = config(server.addr(), 50);
    cfg.threads = 2;
    cfg.warmup = Duration::from_millis(50);
    let mut session = Connections::open(cfg).unwrap();
    let r = session.run().unwrap();
    assert!(r.requests > 0, "{r:?}");
    assert_eq!(r.errors_total, 0, "{:?}", r.errors);
    assert_eq!(
        (r.connections_requested, r.connections_established),
        (50, 50)
    );
    assert_eq!(r.connections_unserved, 0);
    assert!(r.latency_corrected.p50_us > 0.0 && r.latency_uncorrected.max_us > 0.0);
    assert_eq!(r.latency_corrected.count, r.requests);
    // A second run on the same connections works too.
    let again = session.run().unwrap();
    assert!(again.requests > 0 && again.errors_total == 0);
}

#[test]
fn pipelined_and_stevens_budgets_are_exact() {
    let _one = serial();
    let server = start(&ServerConfig::new(Design::TokioCurrent)).unwrap();
    let mut cfg = config(server.addr(), 4);
    cfg.pipeline = 8;
    cfg.max_requests = Some(1000);
    cfg.duration = Duration::from_secs(20);
    let r = concbench_load::run(cfg).unwrap();
    assert_eq!(r.requests, 1000, "{r:?}");
    assert_eq!(r.unanswered_at_end, 0);

    let mut cfg = config(server.addr(), 3);
    cfg.protocol = Protocol::Stevens { bytes: 4000 };
    cfg.per_request = true;
    cfg.max_requests = Some(300);
    cfg.duration = Duration::from_secs(20);
    let r = concbench_load::run(cfg).unwrap();
    assert_eq!(r.requests, 300, "{r:?}");
    assert_eq!(r.connections_established, 300);
    assert_eq!(r.errors_total, 0);
}

#[test]
fn open_loop_sends_at_the_rate_not_as_fast_as_possible() {
    let _one = serial();
    let server = start(&ServerConfig::new(Design::Epoll)).unwrap();
    for poisson in [false, true] {
        let mut cfg = config(server.addr(), 10);
        cfg.rate = Some(Rate {
            per_second: 500.0,
            poisson,
        });
        cfg.duration = Duration::from_millis(400);
        let r = concbench_load::run(cfg).unwrap();
        // 500/s for 0.4 s is 200 requests; a closed loop would do thousands.
        assert!(
            (100..=300).contains(&r.requests),
            "poisson={poisson}: {}",
            r.requests
        );
    }
}

/// A server that reads each request and closes without answering (or resets, with `reset`).
fn rude_server(reset: bool) -> (SocketAddr, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        listener.set_nonblocking(true).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_millis(600);
        while std::time::Instant::now() < deadline {
            match listener.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).unwrap();
                    let mut buf = [0u8; 256];
                    let _ = s.read(&mut buf);
                    if reset {
                        // SO_LINGER 0: close sends RST instead of FIN.
                        socket2::SockRef::from(&s)
                            .set_linger(Some(Duration::ZERO))
                            .unwrap();
                    } else {
                        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Le");
                    }
                }
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    });
    (addr, handle)
}

#[test]
fn a_server_that_closes_early_is_counted_as_errors() {
    let _one = serial();
    for reset in [false, true] {
        let (addr, server) = rude_server(reset);
        let mut cfg = config(addr, 5);
        cfg.duration = Duration::from_millis(300);
        let r = concbench_load::run(cfg).unwrap();
        server.join().unwrap();
        assert_eq!(r.requests, 0, "reset={reset}");
        let kind = if reset { "reset" } else { "server_closed" };
        assert!(
            r.errors.get(kind).copied().unwrap_or(0) > 0,
            "reset={reset}: {:?}",
            r.errors
        );
        assert!(r.requests_lost > 0);
        assert!(
            r.connections_requested > 5,
            "it reconnects after each failure"
        );
    }
}

#[test]
fn a_missing_server_is_counted_as_refused_connections() {
    let _one = serial();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut cfg = config(port, 3);
    cfg.per_request = true;
    cfg.protocol = Protocol::Stevens { bytes: 10 };
    let r = concbench_load::run(cfg).unwrap();
    assert_eq!(r.connections_established, 0);
    assert!(
        r.errors.get("connect_refused").copied().unwrap_or(0) > 0,
        "{:?}",
        r.errors
    );
    // The report says it holds no figure, rather than offering "0 requests/s".
    let shortfall = r.shortfall(1).expect("nothing was measured");
    assert!(
        matches!(shortfall, Shortfall::NoResponse { .. }),
        "{shortfall:?}"
    );
    assert!(
        shortfall.to_string().contains("connect_refused"),
        "{shortfall}"
    );
}

#[test]
fn a_budget_counts_measured_requests_and_the_warm_up_does_not_draw_on_it() {
    let _one = serial();
    let server = start(&ServerConfig::new(Design::Epoll)).unwrap();
    for per_request in [false, true] {
        let mut cfg = config(server.addr(), 4);
        cfg.per_request = per_request;
        cfg.warmup = Duration::from_millis(100);
        cfg.duration = Duration::from_secs(20);
        cfg.max_requests = Some(200);
        let r = concbench_load::run(cfg).unwrap();
        assert_eq!(r.requests, 200, "per_request={per_request}: {r:?}");
        assert!(r.warmup_requests > 0, "per_request={per_request}");
        assert_eq!(r.latency_corrected.count, 200);
        assert_eq!(r.shortfall(200), None);
    }
}

#[test]
fn a_window_of_no_length_is_a_usage_error() {
    let mut cfg = config("127.0.0.1:9".parse().unwrap(), 1);
    cfg.duration = Duration::ZERO;
    let err = Connections::open(cfg).err().expect("refused");
    assert!(concbench_core::error::is_usage_error(&err), "{err:#}");
    assert!(err.to_string().contains("--duration"), "{err:#}");
}

#[test]
fn connections_beyond_the_descriptor_limit_are_refused_before_connecting() {
    // Nothing listens on the discard port of a test machine; with the refusal coming first,
    // nothing is even tried.
    let cfg = config("127.0.0.1:9".parse().unwrap(), 1 << 40);
    let err = Connections::open(cfg).err().expect("refused");
    assert!(concbench_core::error::is_usage_error(&err), "{err:#}");
    assert!(err.to_string().contains("file descriptors"), "{err:#}");
}
