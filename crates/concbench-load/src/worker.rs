//! One load thread's event loop over its share of the connections.
//!
//! Times are nanoseconds since the run's start. A min-heap of wake-ups (open-loop due times and
//! reconnect back-offs, at most one per connection, so it never grows past its capacity) sets
//! `epoll_wait`'s timeout. Edge-triggered sockets: a short read means the socket is drained,
//! so the extra read that would only return EAGAIN is skipped, as in the servers.

use crate::conn::{classify, classify_connect, Conn, InFlight};
use crate::response::{consume, Framing, Head, Step};
use crate::stats::{ErrorKind, ThreadStats};
use crate::{LoadConfig, Protocol};
use anyhow::{Context, Result};
use concbench_measure::{clock, usage};
use rustix::buffer::spare_capacity;
use rustix::event::epoll::{self, CreateFlags, Event, EventData, EventFlags};
use rustix::event::Timespec;
use rustix::io::Errno;
use rustix::net::{recv, send, RecvFlags, SendFlags};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Wait this long before reconnecting after a failure (a refused connect would otherwise spin).
const BACKOFF_NS: u64 = 10_000_000;
/// The fault connection's epoll token.
const FAULT: u64 = u64::MAX;

/// State shared by the load threads of one run.
#[derive(Default)]
pub struct Shared {
    /// Requests left in the budget (`u64::MAX`: unlimited).
    pub remaining: AtomicU64,
    /// When the fault was sent and when its connection dropped (ns, 0 = not yet).
    pub fault_sent: AtomicU64,
    pub fault_observed: AtomicU64,
    pub fault_answered: AtomicBool,
}

impl Shared {
    fn claim(&self) -> bool {
        // Without a budget (the experiments' windows) no atomic read-modify-write per request.
        if self.remaining.load(Ordering::Relaxed) == u64::MAX {
            return true;
        }
        self.remaining
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| match r {
                0 => None,
                u64::MAX => Some(u64::MAX),
                r => Some(r - 1),
            })
            .is_ok()
    }
    fn exhausted(&self) -> bool {
        self.remaining.load(Ordering::Relaxed) == 0
    }
}

/// What every thread of a run reads.
pub struct Plan<'a> {
    pub cfg: &'a LoadConfig,
    pub shared: &'a Shared,
    /// The request repeated `pipeline + 1` times (pending writes wrap inside it).
    pub batch: &'a [u8],
    pub request_len: usize,
    pub epoch: Instant,
    pub warm_end: u64,
    pub end: u64,
    /// Open loop: the schedule, and the mean gap between one connection's requests, ns.
    pub rate: Option<crate::Rate>,
    pub gap_ns: Option<f64>,
}

pub struct Worker<'a> {
    plan: &'a Plan<'a>,
    epoll: OwnedFd,
    wakeups: BinaryHeap<Reverse<(u64, u32)>>,
    waiting: Vec<bool>,
    stats: ThreadStats,
    rbuf: Box<[u8]>,
    /// Requests claimed and not yet answered or lost (ends a budgeted run).
    outstanding: u64,
    fault_at: Option<u64>,
    fault_sock: Option<TcpStream>,
}

impl<'a> Worker<'a> {
    pub fn new(plan: &'a Plan<'a>, conns: usize, with_fault: bool, seconds: usize) -> Result<Self> {
        Ok(Self {
            plan,
            epoll: epoll::create(CreateFlags::CLOEXEC).context("epoll_create")?,
            wakeups: BinaryHeap::with_capacity(conns + 1),
            waiting: vec![false; conns],
            stats: ThreadStats::new(seconds),
            rbuf: vec![0; 64 * 1024].into_boxed_slice(),
            outstanding: 0,
            fault_at: plan
                .cfg
                .fault
                .as_ref()
                .filter(|_| with_fault)
                .map(|f| f.at.as_nanos() as u64),
            fault_sock: None,
        })
    }

    fn now(&self) -> u64 {
        clock::now().duration_since(self.plan.epoch).as_nanos() as u64
    }

    /// Run until the window ends (or the budget is spent); returns this thread's record.
    pub fn run(mut self, conns: &mut [Conn]) -> Result<ThreadStats> {
        let cpu_before = usage::thread_usage();
        self.begin(conns)?;
        let mut events: Vec<Event> = Vec::with_capacity(1024);
        loop {
            let now = self.now();
            if now >= self.plan.end || (self.plan.shared.exhausted() && self.outstanding == 0) {
                break;
            }
            self.fire_wakeups(conns, now);
            self.maybe_send_fault(now);
            let timeout = self.timeout(now);
            events.clear();
            match epoll::wait(&self.epoll, spare_capacity(&mut events), Some(&timeout)) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e).context("epoll_wait"),
            }
            for ev in &events {
                match ev.data.u64() {
                    FAULT => self.on_fault_event(),
                    i => self.on_event(conns, i as usize, ev.flags),
                }
            }
        }
        let cpu = usage::thread_usage().since(&cpu_before);
        self.stats.cpu_ns = cpu.user_ns + cpu.sys_ns;
        self.stats.wall_ns = self.now() as f64;
        Ok(self.stats)
    }

    fn begin(&mut self, conns: &mut [Conn]) -> Result<()> {
        for i in 0..conns.len() {
            let c = &mut conns[i];
            c.served = 0;
            // Requests left over from a previous run count from this run's start.
            for f in c.inflight.iter_mut() {
                *f = InFlight {
                    intended: 0,
                    sent: 0,
                };
            }
            self.outstanding += c.inflight.len() as u64;
            if let Some(s) = &c.sock {
                self.register(s, i as u64)?;
            }
            if let Some(gap) = self.plan.gap_ns {
                c.next_due = (fastrand::f64() * gap) as u64;
            }
            self.wake(conns, i, 0);
        }
        Ok(())
    }

    fn register(&self, sock: &TcpStream, token: u64) -> Result<()> {
        let flags = EventFlags::IN | EventFlags::OUT | EventFlags::RDHUP | EventFlags::ET;
        epoll::add(&self.epoll, sock, EventData::new_u64(token), flags).context("epoll_ctl")
    }

    fn timeout(&self, now: u64) -> Timespec {
        let mut until = self.plan.end;
        if let Some(Reverse((due, _))) = self.wakeups.peek() {
            until = until.min(*due);
        }
        if let Some(at) = self.fault_at {
            until = until.min(at);
        }
        let ns = until.saturating_sub(now);
        Timespec {
            tv_sec: (ns / 1_000_000_000) as i64,
            tv_nsec: (ns % 1_000_000_000) as i64,
        }
    }

    fn schedule(&mut self, i: usize, due: u64) {
        if !self.waiting[i] {
            self.waiting[i] = true;
            self.wakeups.push(Reverse((due, i as u32)));
        }
    }

    fn fire_wakeups(&mut self, conns: &mut [Conn], now: u64) {
        while let Some(&Reverse((due, i))) = self.wakeups.peek() {
            if due > now {
                return;
            }
            self.wakeups.pop();
            self.waiting[i as usize] = false;
            self.wake(conns, i as usize, now);
        }
    }

    /// Do whatever connection `i` can do now: connect, send, or wait for its due time.
    fn wake(&mut self, conns: &mut [Conn], i: usize, now: u64) {
        let c = &conns[i];
        if c.connecting {
            return;
        }
        if c.sock.is_none() && !self.plan.cfg.per_request {
            self.start_connect(conns, i, now, None);
            return;
        }
        let next = self.next_send(&conns[i], now);
        match next {
            Next::Now(intended) if self.plan.cfg.per_request => {
                if self.claim(now) {
                    self.advance_due(&mut conns[i]);
                    self.outstanding += 1;
                    self.start_connect(conns, i, now, Some(intended));
                }
            }
            Next::Now(_) => self.fill(conns, i, now),
            Next::At(due) => self.schedule(i, due),
            Next::Never => {}
        }
    }

    /// Take one request sent at `now` from the budget. The warm-up does not draw on it, so a
    /// budget counts measured requests.
    fn claim(&self, now: u64) -> bool {
        now < self.plan.warm_end || self.plan.shared.claim()
    }

    /// Whether the response to `f`, completed at `now`, is measured: completed in the window —
    /// or, with a budget, sent in it, so that exactly the budgeted requests are measured.
    fn measured(&self, f: &InFlight, now: u64) -> bool {
        match self.plan.cfg.max_requests {
            Some(_) => f.sent >= self.plan.warm_end,
            None => now >= self.plan.warm_end,
        }
    }

    /// When connection `i` may send its next request.
    fn next_send(&self, c: &Conn, now: u64) -> Next {
        let room = if self.plan.cfg.per_request {
            c.sock.is_none()
        } else {
            c.inflight.len() < self.plan.cfg.pipeline
        };
        if !room {
            return Next::Never;
        }
        match self.plan.gap_ns {
            None => Next::Now(now),
            Some(_) if c.next_due <= now => Next::Now(c.next_due),
            Some(_) => Next::At(c.next_due),
        }
    }

    fn advance_due(&self, c: &mut Conn) {
        if let Some(gap) = self.plan.gap_ns {
            let step = match self.plan.rate {
                Some(r) if r.poisson => -gap * (1.0 - fastrand::f64()).ln(),
                _ => gap,
            };
            c.next_due += step.max(1.0) as u64;
        }
    }

    /// Keep-alive: queue as many requests as the pipeline, the schedule and the budget allow,
    /// then write them with one system call.
    fn fill(&mut self, conns: &mut [Conn], i: usize, now: u64) {
        loop {
            match self.next_send(&conns[i], now) {
                Next::Now(intended) => {
                    if !self.claim(now) {
                        break;
                    }
                    self.advance_due(&mut conns[i]);
                    self.outstanding += 1;
                    self.queue(
                        &mut conns[i],
                        InFlight {
                            intended,
                            sent: now,
                        },
                    );
                }
                Next::At(due) => {
                    self.schedule(i, due);
                    break;
                }
                Next::Never => break,
            }
        }
        self.flush(conns, i);
    }

    /// Queue one request's bytes (written by the next flush).
    fn queue(&self, c: &mut Conn, f: InFlight) {
        let len = self.plan.request_len;
        if c.inflight.is_empty() {
            c.framing = self.fresh_framing();
        }
        c.inflight.push_back(f);
        if c.wend + len > self.plan.batch.len() {
            // The batch repeats the request, so pending bytes can move back by whole requests.
            let pending = c.wend - c.wpos;
            c.wpos %= len;
            c.wend = c.wpos + pending;
        }
        c.wend += len;
    }

    fn flush(&mut self, conns: &mut [Conn], i: usize) -> bool {
        let c = &mut conns[i];
        let Some(sock) = c.sock.as_ref() else {
            return false;
        };
        while c.wpos < c.wend {
            match send(sock, &self.plan.batch[c.wpos..c.wend], SendFlags::NOSIGNAL) {
                Ok(n) => c.wpos += n,
                Err(Errno::AGAIN) => return true,
                Err(Errno::INTR) => {}
                Err(e) => {
                    self.fail(conns, i, classify(&e.into()));
                    return false;
                }
            }
        }
        c.wpos = 0;
        c.wend = 0;
        true
    }

    fn fresh_framing(&self) -> Framing {
        match self.plan.cfg.protocol {
            Protocol::Http { .. } => Framing::Header,
            Protocol::Stevens { bytes } => Framing::Body(bytes),
        }
    }

    /// Start connecting; `request` is the per-request mode's request waiting for it.
    fn start_connect(&mut self, conns: &mut [Conn], i: usize, now: u64, request: Option<u64>) {
        self.stats.connections_requested += 1;
        let c = &mut conns[i];
        c.pending = request.map(|intended| InFlight {
            intended,
            sent: now,
        });
        let registered = c
            .connect(self.plan.cfg.target)
            .map_err(|e| classify_connect(&e))
            .and_then(|()| {
                let sock = c.sock.as_ref().expect("just connected");
                self.register(sock, i as u64).map_err(|_| ErrorKind::Io)
            });
        if let Err(kind) = registered {
            self.fail(conns, i, kind);
        }
    }

    fn on_event(&mut self, conns: &mut [Conn], i: usize, flags: EventFlags) {
        if i >= conns.len() || conns[i].sock.is_none() {
            return;
        }
        if conns[i].connecting {
            let now = self.now();
            if !self.finish_connect(conns, i, now, flags) {
                return;
            }
        }
        if conns[i].wpos < conns[i].wend && !self.flush(conns, i) {
            return;
        }
        if flags.intersects(EventFlags::IN | EventFlags::RDHUP | EventFlags::HUP | EventFlags::ERR)
        {
            // After the peer's FIN (RDHUP) a short read is not the end: read to the 0.
            self.read(conns, i, flags.contains(EventFlags::RDHUP));
        }
    }

    /// A connecting socket reported an event. False when it is not (or no longer) usable.
    fn finish_connect(
        &mut self,
        conns: &mut [Conn],
        i: usize,
        now: u64,
        flags: EventFlags,
    ) -> bool {
        let c = &mut conns[i];
        let err = match c.sock.as_ref().map(TcpStream::take_error) {
            Some(Ok(None)) => None,
            Some(Ok(Some(e))) | Some(Err(e)) => Some(e),
            None => return false,
        };
        if let Some(e) = err {
            self.fail(conns, i, classify_connect(&e));
            return false;
        }
        if !flags.contains(EventFlags::OUT) {
            return false;
        }
        c.connecting = false;
        self.stats.connections_established += 1;
        match c.pending.take() {
            Some(f) => {
                self.queue(c, f);
                self.flush(conns, i)
            }
            None => {
                self.wake(conns, i, now);
                conns[i].sock.is_some()
            }
        }
    }

    /// Read what `i` has, completing its responses. One clock reading per read call: the
    /// responses in one read completed together (the clock costs as much as a parse).
    fn read(&mut self, conns: &mut [Conn], i: usize, peer_closed: bool) {
        let mut rbuf = std::mem::take(&mut self.rbuf);
        let mut now = None;
        while let Some(sock) = conns[i].sock.as_ref() {
            match recv(sock, &mut rbuf[..], RecvFlags::empty()) {
                Ok((0, _)) => {
                    self.on_eof(conns, i);
                    break;
                }
                Ok((n, _)) => {
                    let at = self.now();
                    now = Some(at);
                    if !self.feed(conns, i, &rbuf[..n], at) || (n < rbuf.len() && !peer_closed) {
                        break;
                    }
                }
                Err(Errno::AGAIN) => break,
                Err(Errno::INTR) => {}
                Err(e) => {
                    self.fail(conns, i, classify(&e.into()));
                    break;
                }
            }
        }
        self.rbuf = rbuf;
        let c = &conns[i];
        if !self.plan.cfg.per_request && c.sock.is_some() && !c.connecting {
            let now = now.unwrap_or_else(|| self.now());
            self.wake(conns, i, now);
        }
    }

    /// Consume response bytes read at `now`. False when the connection was closed meanwhile.
    fn feed(&mut self, conns: &mut [Conn], i: usize, data: &[u8], now: u64) -> bool {
        let mut d = data;
        while !d.is_empty() {
            let c = &mut conns[i];
            if c.inflight.is_empty() {
                self.fail(conns, i, ErrorKind::BadResponse);
                return false;
            }
            match consume(&mut c.framing, &mut c.carry, &mut c.head, d) {
                Ok(Step::More) => return true,
                Ok(Step::Complete { used, head }) => {
                    d = &d[used..];
                    c.framing = self.fresh_framing();
                    if !self.complete(conns, i, head, now) {
                        return false;
                    }
                }
                Err(_) => {
                    self.fail(conns, i, ErrorKind::BadResponse);
                    return false;
                }
            }
        }
        true
    }

    /// One response is complete (read at `now`). False when the connection closes after it.
    fn complete(&mut self, conns: &mut [Conn], i: usize, head: Option<Head>, now: u64) -> bool {
        let c = &mut conns[i];
        let Some(f) = c.inflight.pop_front() else {
            return true;
        };
        c.served += 1;
        self.outstanding = self.outstanding.saturating_sub(1);
        if head.is_some_and(|h| !h.status_ok) {
            self.error(ErrorKind::HttpStatus, now);
        } else if self.measured(&f, now) {
            self.stats.record(now - f.intended, now - f.sent);
            self.stats.second(now).completed += 1;
        } else {
            self.stats.warmup_completed += 1;
        }
        self.after_fault(f.sent, now);
        let close = self.plan.cfg.per_request || head.is_some_and(|h| h.close);
        if close {
            self.drop_conn(conns, i);
            self.wake(conns, i, now);
            return false;
        }
        // The next requests are sent once the whole read is consumed (see `read`), so that
        // pipelined responses read together are answered by one write.
        true
    }

    fn after_fault(&mut self, sent: u64, now: u64) {
        let observed = self.plan.shared.fault_observed.load(Ordering::Relaxed);
        if observed > 0 && sent >= observed {
            self.stats.completed_after_fault += 1;
            let first = self.stats.first_after_fault.get_or_insert(now);
            *first = (*first).min(now);
        }
    }

    fn on_eof(&mut self, conns: &mut [Conn], i: usize) {
        let now = self.now();
        if conns[i].busy() || conns[i].pending.is_some() {
            self.fail(conns, i, ErrorKind::ServerClosed);
        } else {
            // The server closed an idle keep-alive connection: reconnect, no error.
            self.drop_conn(conns, i);
            self.wake(conns, i, now);
        }
    }

    /// Count an error on connection `i`, lose what it had in flight, retry after a back-off.
    fn fail(&mut self, conns: &mut [Conn], i: usize, kind: ErrorKind) {
        let now = self.now();
        self.error(kind, now);
        self.stats.lost += conns[i].inflight.len() as u64;
        self.drop_conn(conns, i);
        self.schedule(i, now + BACKOFF_NS);
    }

    fn error(&mut self, kind: ErrorKind, now: u64) {
        self.stats.error(kind, now);
        let sent = self.plan.shared.fault_sent.load(Ordering::Relaxed);
        if sent > 0 && now >= sent {
            self.stats.errors_after_fault += 1;
        }
    }

    fn drop_conn(&mut self, conns: &mut [Conn], i: usize) {
        let c = &mut conns[i];
        let gone = c.inflight.len() as u64 + u64::from(c.pending.is_some());
        self.outstanding = self.outstanding.saturating_sub(gone);
        c.reset();
    }

    fn maybe_send_fault(&mut self, now: u64) {
        if self.fault_at.is_none_or(|at| at > now) {
            return;
        }
        self.fault_at = None;
        let shared = self.plan.shared;
        shared.fault_sent.store(now.max(1), Ordering::Relaxed);
        let fault = self
            .plan
            .cfg
            .fault
            .as_ref()
            .expect("fault_at implies a fault");
        let sent = TcpStream::connect_timeout(&self.plan.cfg.target, Duration::from_secs(1))
            .and_then(|mut s| {
                s.write_all(&fault.request)?;
                s.set_nonblocking(true)?;
                Ok(s)
            });
        match sent {
            Ok(s) if self.register(&s, FAULT).is_ok() => self.fault_sock = Some(s),
            // Could not even deliver it: the server is already unreachable.
            _ => shared.fault_observed.store(now.max(1), Ordering::Relaxed),
        }
    }

    fn on_fault_event(&mut self) {
        let mut buf = [0u8; 4096];
        while let Some(s) = self.fault_sock.as_mut() {
            match s.read(&mut buf) {
                Ok(n) if n > 0 => self
                    .plan
                    .shared
                    .fault_answered
                    .store(true, Ordering::Relaxed),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                _ => {
                    let now = self.now().max(1);
                    self.plan
                        .shared
                        .fault_observed
                        .store(now, Ordering::Relaxed);
                    self.fault_sock = None;
                }
            }
        }
    }
}

enum Next {
    Now(u64),
    At(u64),
    Never,
}
