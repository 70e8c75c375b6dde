//! One io_uring ring on one thread: accept, recv, send and the blocking call's timeout are all
//! submitted as operations and completed in batches, so the loop makes one system call
//! (`io_uring_enter`) per batch instead of one per read and write.
//!
//! Kernels or sandboxes (seccomp in containers, `kernel.io_uring_disabled`) may refuse
//! io_uring: then the design runs the epoll reactor instead and says so in its ready note,
//! which the experiment reports as a warning and a `io_uring_fallback` metric.

use super::epoll::{Blocking, Reactor};
use crate::protocol::{respond, InBuf, Request};
use crate::{crash, Handler, Ready};
use anyhow::{Context, Result};
use io_uring::{opcode, squeue, types, IoUring};
use std::collections::VecDeque;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};

const ENTRIES: u32 = 4096;
const ACCEPT: u64 = 0;
const RECV: u64 = 1;
const SEND: u64 = 2;
const TIMER: u64 = 3;

pub fn serve(listener: TcpListener, handler: Handler, ready: Ready) -> Result<()> {
    match Ring::new(&listener, handler) {
        Ok(mut ring) => {
            ready.signal("");
            ring.run()
        }
        Err(why) => {
            let mut reactor = Reactor::new(listener, handler, Blocking::Timer)?;
            ready.signal(&format!(
                "io_uring unavailable ({why:#}); fell back to epoll"
            ));
            reactor.run()
        }
    }
}

struct Conn {
    stream: TcpStream,
    input: InBuf,
    /// Bytes being sent (must not change while a send is in flight).
    out: Vec<u8>,
    sent: usize,
    /// Responses made while a send is in flight.
    next: Vec<u8>,
    /// Requests waiting for their timeout, in order.
    parked: VecDeque<Request>,
    receiving: bool,
    sending: bool,
    timers: u32,
    close_after: bool,
    closing: bool,
}

struct Ring {
    ring: IoUring,
    listener_fd: i32,
    handler: Handler,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    /// The blocking call's duration; read by the kernel when a timeout is submitted.
    delay: Box<types::Timespec>,
    completions: Vec<(u64, i32)>,
}

impl Ring {
    fn new(listener: &TcpListener, handler: Handler) -> Result<Self> {
        let ring = IoUring::new(ENTRIES).context("io_uring_setup")?;
        let mut probe = io_uring::Probe::new();
        ring.submitter()
            .register_probe(&mut probe)
            .context("IORING_REGISTER_PROBE")?;
        for (code, name) in [
            (opcode::Accept::CODE, "accept"),
            (opcode::Recv::CODE, "recv"),
            (opcode::Send::CODE, "send"),
            (opcode::Timeout::CODE, "timeout"),
        ] {
            anyhow::ensure!(
                probe.is_supported(code),
                "the kernel lacks IORING_OP for {name}"
            );
        }
        Ok(Self {
            ring,
            listener_fd: listener.as_raw_fd(),
            handler,
            conns: Vec::new(),
            free: Vec::new(),
            delay: Box::new(handler.blocking.unwrap_or_default().into()),
            completions: Vec::with_capacity(ENTRIES as usize),
        })
    }

    fn run(&mut self) -> Result<()> {
        self.push_accept()?;
        loop {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e).context("io_uring_enter"),
            }
            self.completions.clear();
            self.completions
                .extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
            for i in 0..self.completions.len() {
                let (data, res) = self.completions[i];
                let slot = (data >> 2) as usize;
                match data & 3 {
                    ACCEPT => self.on_accept(res)?,
                    RECV => self.on_recv(slot, res)?,
                    SEND => self.on_send(slot, res)?,
                    _ => self.on_timer(slot)?,
                }
                self.maybe_free(slot);
            }
        }
    }

    /// Queue one operation, submitting first if the queue is full.
    fn push(&mut self, entry: squeue::Entry) -> Result<()> {
        loop {
            // SAFETY: every buffer an entry points to (a connection's input buffer, its `out`
            // vector, the boxed timespec) stays allocated and untouched until the operation
            // completes: connections are freed only when nothing is in flight (maybe_free).
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                return Ok(());
            }
            self.ring.submit().context("io_uring_enter")?;
        }
    }

    fn push_accept(&mut self) -> Result<()> {
        let e = opcode::Accept::new(
            types::Fd(self.listener_fd),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
        .flags(libc::SOCK_CLOEXEC)
        .build()
        .user_data(ACCEPT);
        self.push(e)
    }

    fn on_accept(&mut self, res: i32) -> Result<()> {
        if res >= 0 {
            // SAFETY: the kernel just created this descriptor for us; nothing else owns it.
            let stream = unsafe { TcpStream::from_raw_fd(res) };
            let _ = stream.set_nodelay(true);
            let slot = self.insert(stream);
            self.push_recv(slot)?;
        }
        self.push_accept()
    }

    fn insert(&mut self, stream: TcpStream) -> usize {
        let conn = Conn {
            stream,
            input: InBuf::new(),
            out: Vec::with_capacity(256),
            sent: 0,
            next: Vec::with_capacity(256),
            parked: VecDeque::new(),
            receiving: false,
            sending: false,
            timers: 0,
            close_after: false,
            closing: false,
        };
        match self.free.pop() {
            Some(s) => {
                self.conns[s] = Some(conn);
                s
            }
            None => {
                self.conns.push(Some(conn));
                self.conns.len() - 1
            }
        }
    }

    fn push_recv(&mut self, slot: usize) -> Result<()> {
        let Some(c) = self.conns[slot].as_mut() else {
            return Ok(());
        };
        let spare = c.input.spare();
        let e = opcode::Recv::new(
            types::Fd(c.stream.as_raw_fd()),
            spare.as_mut_ptr(),
            spare.len() as u32,
        )
        .build()
        .user_data(((slot as u64) << 2) | RECV);
        c.receiving = true;
        self.push(e)
    }

    fn on_recv(&mut self, slot: usize, res: i32) -> Result<()> {
        let handler = self.handler;
        let Some(c) = self.conns[slot].as_mut() else {
            return Ok(());
        };
        c.receiving = false;
        if res <= 0 || c.closing {
            close(c);
            return Ok(());
        }
        c.input.filled(res as usize);
        let mut timers = 0;
        loop {
            let req = match c.input.next_request() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(_) => {
                    close(c);
                    return Ok(());
                }
            };
            if req == Request::Crash {
                crash::on_crash_request(&handler);
                close(c);
                return Ok(());
            }
            c.close_after |= req.closes();
            crate::work::burn(handler.cpu);
            if handler.blocking.is_some() {
                c.parked.push_back(req);
                timers += 1;
            } else {
                respond(req, &mut c.next);
            }
            if c.close_after {
                break;
            }
        }
        let rearm = !c.close_after;
        for _ in 0..timers {
            self.push_timer(slot)?;
        }
        if rearm {
            self.push_recv(slot)?;
        }
        self.start_send(slot)
    }

    fn push_timer(&mut self, slot: usize) -> Result<()> {
        if let Some(c) = self.conns[slot].as_mut() {
            c.timers += 1;
        }
        let e = opcode::Timeout::new(&*self.delay as *const types::Timespec)
            .build()
            .user_data(((slot as u64) << 2) | TIMER);
        self.push(e)
    }

    fn on_timer(&mut self, slot: usize) -> Result<()> {
        let Some(c) = self.conns[slot].as_mut() else {
            return Ok(());
        };
        c.timers -= 1;
        if let Some(req) = c.parked.pop_front() {
            if !c.closing {
                respond(req, &mut c.next);
            }
        }
        self.start_send(slot)
    }

    /// Send what is waiting, unless a send is already in flight.
    fn start_send(&mut self, slot: usize) -> Result<()> {
        let Some(c) = self.conns[slot].as_mut() else {
            return Ok(());
        };
        if c.sending || c.closing {
            return Ok(());
        }
        if c.sent == c.out.len() {
            c.out.clear();
            c.sent = 0;
            std::mem::swap(&mut c.out, &mut c.next);
        }
        if c.out.is_empty() {
            if c.close_after && c.timers == 0 {
                close(c);
            }
            return Ok(());
        }
        let rest = &c.out[c.sent..];
        let e = opcode::Send::new(
            types::Fd(c.stream.as_raw_fd()),
            rest.as_ptr(),
            rest.len() as u32,
        )
        .flags(libc::MSG_NOSIGNAL)
        .build()
        .user_data(((slot as u64) << 2) | SEND);
        c.sending = true;
        self.push(e)
    }

    fn on_send(&mut self, slot: usize, res: i32) -> Result<()> {
        let Some(c) = self.conns[slot].as_mut() else {
            return Ok(());
        };
        c.sending = false;
        if res < 0 {
            close(c);
            return Ok(());
        }
        c.sent += res as usize;
        self.start_send(slot)
    }

    /// Free a closing connection once no operation refers to it any more.
    fn maybe_free(&mut self, slot: usize) {
        let idle = self
            .conns
            .get(slot)
            .and_then(Option::as_ref)
            .is_some_and(|c| c.closing && !c.receiving && !c.sending && c.timers == 0);
        if idle {
            self.conns[slot] = None;
            self.free.push(slot);
        }
    }
}

/// Start closing: a pending recv completes (with 0) once the socket is shut down.
fn close(c: &mut Conn) {
    if !c.closing {
        c.closing = true;
        let _ = c.stream.shutdown(Shutdown::Both);
    }
}
