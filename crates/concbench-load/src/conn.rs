//! One client connection's state: its socket, the requests in flight with their two send
//! times, where it is in the response it reads, and bytes still to write.

use crate::response::{Framing, Head};
use socket2::{Domain, Socket, Type};
use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddr, TcpStream};

/// A request in flight: when it should have been sent and when it was.
#[derive(Debug, Clone, Copy)]
pub struct InFlight {
    pub intended: u64,
    pub sent: u64,
}

pub struct Conn {
    pub sock: Option<TcpStream>,
    pub connecting: bool,
    pub inflight: VecDeque<InFlight>,
    pub framing: Framing,
    pub head: Option<Head>,
    pub carry: Vec<u8>,
    /// Pending write range in the request batch.
    pub wpos: usize,
    pub wend: usize,
    /// Open loop: when the next request is due (ns since the run's start).
    pub next_due: u64,
    /// Per-request mode: the intended and actual start of the request being connected.
    pub pending: Option<InFlight>,
    /// Responses completed in this run.
    pub served: u64,
}

impl Conn {
    pub fn new(pipeline: usize) -> Self {
        Self {
            sock: None,
            connecting: false,
            inflight: VecDeque::with_capacity(pipeline.max(1)),
            framing: Framing::Header,
            head: None,
            carry: Vec::with_capacity(1024),
            wpos: 0,
            wend: 0,
            next_due: 0,
            pending: None,
            served: 0,
        }
    }

    /// Start a non-blocking connect (completes when the socket becomes writable).
    pub fn connect(&mut self, addr: SocketAddr) -> io::Result<()> {
        let socket = Socket::new(
            Domain::for_address(addr),
            Type::STREAM.nonblocking().cloexec(),
            None,
        )?;
        socket.set_tcp_nodelay(true)?;
        match socket.connect(&addr.into()) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(e) => return Err(e),
        }
        self.sock = Some(socket.into());
        self.connecting = true;
        Ok(())
    }

    /// Forget the socket and everything in flight (the caller counted what was lost).
    pub fn reset(&mut self) {
        self.sock = None;
        self.connecting = false;
        self.inflight.clear();
        self.framing = Framing::Header;
        self.head = None;
        self.carry.clear();
        self.wpos = 0;
        self.wend = 0;
        self.pending = None;
    }

    /// Whether the connection has a response outstanding or half read.
    pub fn busy(&self) -> bool {
        !self.inflight.is_empty() || !self.carry.is_empty()
    }
}

/// What a read or write error means for the error counts.
pub fn classify(e: &io::Error) -> crate::ErrorKind {
    match e.raw_os_error() {
        Some(libc::ECONNRESET | libc::EPIPE | libc::ECONNABORTED) => crate::ErrorKind::Reset,
        _ => crate::ErrorKind::Io,
    }
}

/// What a failed connect means.
pub fn classify_connect(e: &io::Error) -> crate::ErrorKind {
    match e.raw_os_error() {
        Some(libc::ECONNREFUSED) => crate::ErrorKind::ConnectRefused,
        Some(libc::ETIMEDOUT) => crate::ErrorKind::ConnectTimeout,
        _ => crate::ErrorKind::ConnectOther,
    }
}
