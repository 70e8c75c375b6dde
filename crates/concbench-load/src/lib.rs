//! concbench's load generator: an epoll event loop per load thread, each pinned to a CPU.
//!
//! * keep-alive (optionally pipelined), or one connection per request (Stevens's clients);
//! * closed loop with C connections, or open loop at a fixed or Poisson rate;
//! * a warm-up excluded from the statistics, then a measured window (or a budget of measured
//!   requests: the warm-up does not draw on it);
//! * descriptors made room for (or the connections refused) before the first connect, and a
//!   report that says when it holds no figure ([`Shortfall`]);
//! * latency from the intended send time (corrected for coordinated omission) and from the
//!   actual send time (uncorrected), both in HdrHistograms, merged across threads exactly;
//! * a per-second timeline, errors by kind, connections established vs requested, and
//!   connections never served;
//! * an optional fault request (the crash scenario) and what happened around it.
//!
//! Nothing is allocated per request: buffers, histograms, timers and the timeline are sized
//! when a run starts. Raw epoll through rustix rather than mio: one readiness API on one OS is
//! all this needs, edge triggering lets a short read skip the extra EAGAIN read, and rustix's
//! calls are safe.

mod conn;
mod connections;
pub mod descriptors;
mod measured;
pub mod response;
pub mod stats;
pub mod target;
mod worker;

pub use connections::Connections;
pub use measured::Shortfall;
pub use stats::{ErrorKind, FaultReport, Latency, LoadReport};

use std::net::SocketAddr;
use std::time::Duration;

/// What each request is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protocol {
    /// `GET path HTTP/1.1` with a `Host` header.
    Http { host: String, path: String },
    /// Stevens's `N\n`, answered by exactly N bytes.
    Stevens { bytes: usize },
}

/// An open-loop schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Requests per second over all connections.
    pub per_second: f64,
    /// Exponential gaps (a Poisson process) instead of fixed ones.
    pub poisson: bool,
}

/// A request sent once, on its own connection, at a given time: the crash scenario's fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub at: Duration,
    pub request: Vec<u8>,
}

#[derive(Debug, Clone)]
pub struct LoadConfig {
    pub target: SocketAddr,
    pub protocol: Protocol,
    /// One connection per request (connect, request, response, close) instead of keep-alive.
    pub per_request: bool,
    pub connections: usize,
    /// Requests in flight per keep-alive connection (1 = no pipelining).
    pub pipeline: usize,
    pub threads: usize,
    /// CPUs to pin load threads to (thread i on `cpus[i % len]`); empty = unpinned.
    pub cpus: Vec<usize>,
    /// None: closed loop (each connection sends as soon as it may).
    pub rate: Option<Rate>,
    pub warmup: Duration,
    pub duration: Duration,
    /// Stop after this many measured requests (connections, in per-request mode): requests
    /// sent during the warm-up are not drawn from it, and exactly the requests sent after it
    /// are measured. `duration` is then the time limit.
    pub max_requests: Option<u64>,
    pub fault: Option<Fault>,
    /// Give up establishing keep-alive connections after this long.
    pub connect_timeout: Duration,
}

impl LoadConfig {
    /// Closed-loop keep-alive HTTP against `target`, one thread, unpinned.
    pub fn new(target: SocketAddr) -> Self {
        Self {
            target,
            protocol: Protocol::Http {
                host: target.to_string(),
                path: "/".into(),
            },
            per_request: false,
            connections: 1,
            pipeline: 1,
            threads: 1,
            cpus: Vec::new(),
            rate: None,
            warmup: Duration::ZERO,
            duration: Duration::from_secs(1),
            max_requests: None,
            fault: None,
            connect_timeout: Duration::from_secs(5),
        }
    }

    /// The bytes of one request.
    pub fn request_bytes(&self) -> Vec<u8> {
        match &self.protocol {
            Protocol::Http { host, path } => format!(
                "GET {path} HTTP/1.1\r\nHost: {host}\r\n{}\r\n",
                if self.per_request {
                    "Connection: close\r\n"
                } else {
                    ""
                }
            )
            .into_bytes(),
            Protocol::Stevens { bytes } => format!("{bytes}\n").into_bytes(),
        }
    }

    /// "keep-alive", "keep-alive, pipeline 16", "connection per request".
    pub fn mode(&self) -> String {
        match (self.per_request, self.pipeline) {
            (true, _) => "connection per request".into(),
            (false, 1) => "keep-alive".into(),
            (false, d) => format!("keep-alive, pipeline {d}"),
        }
    }
}

/// Open the connections and run the load on them once.
pub fn run(config: LoadConfig) -> anyhow::Result<LoadReport> {
    Connections::open(config)?.run()
}
