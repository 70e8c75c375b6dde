//! One epoll reactor on one thread: edge-triggered connections, a level-triggered listener.
//!
//! The blocking call is a timer: a request that must "block" for 10 ms is parked in a FIFO of
//! deadlines (every delay is the same, so the FIFO is already sorted: no heap needed) and
//! answered when `epoll_wait`'s timeout says it is due, while the loop serves everyone else.
//! The naive variant (`epoll-naive-blocking`) sleeps inside the loop instead, as an event-loop
//! handler that calls a blocking API would: the whole loop stops for 10 ms per request.
//!
//! Raw epoll through rustix rather than mio: the per-CPU design needs one listener per reactor
//! and nothing here needs portability; rustix's calls are safe and allocation-free.

use crate::protocol::{respond, InBuf, Request};
use crate::{crash, listener as listen, Handler, Ready};
use anyhow::{Context, Result};
use rustix::buffer::spare_capacity;
use rustix::event::epoll::{self, CreateFlags, Event, EventData, EventFlags};
use rustix::event::Timespec;
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::OwnedFd;
// The reactor's timers are functionality, not measurement: they read the monotonic clock
// themselves (concbench's measuring clock lives in concbench-measure).
use std::time::Instant;

/// How the reactor performs the handler's blocking call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocking {
    /// Park the request on a timer and keep serving.
    Timer,
    /// Sleep inside the loop (the naive event-loop handler).
    Sleep,
}

/// The listener's token; connections use their slab index.
const LISTENER: u64 = u64::MAX;

pub fn serve(
    listener: TcpListener,
    handler: Handler,
    blocking: Blocking,
    ready: Ready,
) -> Result<()> {
    let mut reactor = Reactor::new(listener, handler, blocking)?;
    ready.signal("");
    reactor.run()
}

struct Conn {
    stream: TcpStream,
    input: InBuf,
    out: Vec<u8>,
    written: usize,
    /// Requests parked on a timer; the connection closes only when they are answered.
    parked: u32,
    /// Close once everything is written (the client asked for `Connection: close`).
    close_after: bool,
    generation: u32,
}

struct Parked {
    due: Instant,
    slot: u32,
    generation: u32,
    request: Request,
}

pub struct Reactor {
    epoll: OwnedFd,
    listener: TcpListener,
    handler: Handler,
    blocking: Blocking,
    conns: Vec<Option<Conn>>,
    free: Vec<u32>,
    timers: VecDeque<Parked>,
    generation: u32,
}

impl Reactor {
    pub fn new(listener: TcpListener, handler: Handler, blocking: Blocking) -> Result<Self> {
        listener.set_nonblocking(true)?;
        let epoll = epoll::create(CreateFlags::CLOEXEC).context("epoll_create")?;
        epoll::add(
            &epoll,
            &listener,
            EventData::new_u64(LISTENER),
            EventFlags::IN,
        )?;
        Ok(Self {
            epoll,
            listener,
            handler,
            blocking,
            conns: Vec::new(),
            free: Vec::new(),
            timers: VecDeque::new(),
            generation: 0,
        })
    }

    pub fn run(&mut self) -> Result<()> {
        let mut events: Vec<Event> = Vec::with_capacity(1024);
        loop {
            let timeout = self.timeout();
            events.clear();
            match epoll::wait(&self.epoll, spare_capacity(&mut events), timeout.as_ref()) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e).context("epoll_wait"),
            }
            for ev in &events {
                match ev.data.u64() {
                    LISTENER => self.accept_all()?,
                    slot => self.on_ready(slot as u32, ev.flags),
                }
            }
            self.fire_due_timers();
        }
    }

    /// Time until the first parked request is due (None: wait for events only).
    fn timeout(&self) -> Option<Timespec> {
        let first = self.timers.front()?;
        let left = first.due.saturating_duration_since(Instant::now());
        Some(Timespec {
            tv_sec: left.as_secs() as i64,
            tv_nsec: i64::from(left.subsec_nanos()),
        })
    }

    fn accept_all(&mut self) -> Result<()> {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => self.register(stream),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if listen::transient(&e) => return Ok(()),
                Err(e) => return Err(e).context("accept"),
            }
        }
    }

    fn register(&mut self, stream: TcpStream) {
        if stream.set_nonblocking(true).is_err() || stream.set_nodelay(true).is_err() {
            return;
        }
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.conns.push(None);
                (self.conns.len() - 1) as u32
            }
        };
        let flags = EventFlags::IN | EventFlags::OUT | EventFlags::RDHUP | EventFlags::ET;
        if epoll::add(
            &self.epoll,
            &stream,
            EventData::new_u64(u64::from(slot)),
            flags,
        )
        .is_err()
        {
            self.free.push(slot);
            return;
        }
        self.generation = self.generation.wrapping_add(1);
        self.conns[slot as usize] = Some(Conn {
            stream,
            input: InBuf::new(),
            out: Vec::with_capacity(256),
            written: 0,
            parked: 0,
            close_after: false,
            generation: self.generation,
        });
    }

    /// A connection is readable and/or writable: read, answer, flush.
    fn on_ready(&mut self, slot: u32, flags: EventFlags) {
        // After the client's FIN (RDHUP) a short read is not the end: read to the 0.
        let peer_closed = flags.intersects(EventFlags::RDHUP | EventFlags::HUP);
        if self.conns[slot as usize].is_some() && !self.read_and_answer(slot, peer_closed) {
            self.close(slot);
        }
    }

    /// Returns false when the connection must close.
    fn read_and_answer(&mut self, slot: u32, peer_closed: bool) -> bool {
        let handler = self.handler;
        let blocking = self.blocking;
        let Some(conn) = self.conns[slot as usize].as_mut() else {
            return false;
        };
        let mut eof = false;
        loop {
            let spare = conn.input.spare();
            let room = spare.len();
            match conn.stream.read(spare) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => {
                    conn.input.filled(n);
                    if !drain_requests(conn, slot, &handler, blocking, &mut self.timers) {
                        return false;
                    }
                    // A short read emptied the socket: with edge triggering, new data brings a
                    // new event, so the extra read that would return EAGAIN is skipped.
                    if n < room && !peer_closed {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
        }
        if !flush(conn) {
            return false;
        }
        !(eof || (conn.close_after && conn.parked == 0 && conn.written == conn.out.len()))
    }

    fn fire_due_timers(&mut self) {
        let now = Instant::now();
        while self.timers.front().is_some_and(|t| t.due <= now) {
            let Some(t) = self.timers.pop_front() else {
                break;
            };
            let Some(conn) = self.conns[t.slot as usize].as_mut() else {
                continue;
            };
            if conn.generation != t.generation {
                continue;
            }
            conn.parked -= 1;
            respond(t.request, &mut conn.out);
            let done = conn.close_after && conn.parked == 0;
            if !flush(conn) || (done && conn.written == conn.out.len()) {
                self.close(t.slot);
            }
        }
    }

    fn close(&mut self, slot: u32) {
        if let Some(conn) = self.conns[slot as usize].take() {
            let _ = epoll::delete(&self.epoll, &conn.stream);
            self.free.push(slot);
        }
    }
}

/// Answer (or park) every complete request in the input buffer. False: protocol error.
fn drain_requests(
    conn: &mut Conn,
    slot: u32,
    handler: &Handler,
    blocking: Blocking,
    timers: &mut VecDeque<Parked>,
) -> bool {
    loop {
        let req = match conn.input.next_request() {
            Ok(Some(r)) => r,
            Ok(None) => return true,
            Err(_) => return false,
        };
        if req == Request::Crash {
            crash::on_crash_request(handler);
            return false;
        }
        if req.closes() {
            conn.close_after = true;
        }
        crate::work::burn(handler.cpu);
        match (handler.blocking, blocking) {
            (Some(d), Blocking::Timer) => {
                conn.parked += 1;
                timers.push_back(Parked {
                    due: Instant::now() + d,
                    slot,
                    generation: conn.generation,
                    request: req,
                });
            }
            (Some(d), Blocking::Sleep) => {
                std::thread::sleep(d);
                respond(req, &mut conn.out);
            }
            (None, _) => respond(req, &mut conn.out),
        }
        if conn.close_after {
            return true;
        }
    }
}

/// Write what is pending. False: the connection failed.
fn flush(conn: &mut Conn) -> bool {
    while conn.written < conn.out.len() {
        match conn.stream.write(&conn.out[conn.written..]) {
            Ok(n) => conn.written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    conn.out.clear();
    conn.written = 0;
    true
}
