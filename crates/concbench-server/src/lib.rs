//! concbench's server designs, head to head: Stevens's (UNP vol. 1, ch. 30) iterative, fork,
//! prefork and prethread servers, and today's event loops (epoll, io_uring, tokio).
//!
//! Every design speaks the one [`protocol`] (HTTP/1.1 keep-alive and Stevens's `N\n`), sends the
//! same bytes, and handles the optional "blocking call" the way its model would: a sleep in
//! thread and process designs, a timer in event loops (plus a labelled naive loop that sleeps),
//! `tokio::time::sleep` in tokio. [`process::start`] runs a design in a forked server process
//! that dies with its parent (the server family and `concbench serve` alike).

pub mod conn;
pub mod crash;
pub mod designs;
pub mod listener;
pub mod process;
pub mod protocol;
mod termination;
pub mod work;

pub use designs::Design;
pub use process::{start, RunningServer};

use std::net::SocketAddr;
use std::time::Duration;

/// Stevens's pool size (UNP ch. 30 measured pools of 15 children or threads).
pub const DEFAULT_WORKERS: usize = 15;

/// How a design answers each request.
#[derive(Debug, Clone, Copy, Default)]
pub struct Handler {
    /// The "blocking call" made before each response (seed S2: 10 ms).
    pub blocking: Option<Duration>,
    /// CPU each request burns on its serving thread before the blocking call (the crossover
    /// sweep's 100 µs); see [`work::burn`].
    pub cpu: Option<Duration>,
    /// Honour the crash request (the crash scenario); otherwise it is a bad request.
    pub allow_crash: bool,
}

/// Everything a design needs besides its listening socket.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub design: Design,
    /// Where to listen; port 0 picks a free one. Loopback by default.
    pub bind: SocketAddr,
    pub handler: Handler,
    /// Pool size of prefork and prethread designs.
    pub workers: usize,
    /// CPUs the server may run on (empty: wherever the scheduler likes). Per-CPU designs run
    /// one reactor (or tokio worker) per CPU listed, or per allowed CPU when empty.
    pub cpus: Vec<usize>,
}

impl ServerConfig {
    pub fn new(design: Design) -> Self {
        Self {
            design,
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            handler: Handler::default(),
            workers: DEFAULT_WORKERS,
            cpus: Vec::new(),
        }
    }

    /// Reactors or runtime workers of per-CPU designs.
    pub fn per_cpu_count(&self) -> usize {
        if self.cpus.is_empty() {
            concbench_sys::allowed_cpus().map_or(1, |c| c.len().max(1))
        } else {
            self.cpus.len()
        }
    }
}

/// What a design reports once it accepts connections: a note such as an io_uring fallback.
pub struct Ready {
    sink: Box<dyn FnMut(&str) + Send>,
}

impl Ready {
    pub fn new(sink: impl FnMut(&str) + Send + 'static) -> Self {
        Self {
            sink: Box::new(sink),
        }
    }

    /// Tell whoever started the server that it serves; `note` is empty or says what differs.
    pub fn signal(mut self, note: &str) {
        (self.sink)(note);
    }
}
