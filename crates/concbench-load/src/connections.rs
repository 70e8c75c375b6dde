//! The load's connections: keep-alive connections established once, then one or more runs on them
//! (the experiments take several samples on the same 1000 connections), each run spread over
//! pinned load threads and merged into one report.

use crate::conn::{classify_connect, Conn};
use crate::stats::{FaultReport, Latency, LoadReport, ThreadStats, ERROR_KINDS};
use crate::worker::{Plan, Shared, Worker};
use crate::{LoadConfig, Rate};
use anyhow::{bail, Context, Result};
use concbench_core::UsageError;
use concbench_measure::clock;
use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};
use std::sync::atomic::Ordering;
use std::time::Duration;

pub struct Connections {
    cfg: LoadConfig,
    batch: Vec<u8>,
    request_len: usize,
    /// Each load thread's connections.
    groups: Vec<Vec<Conn>>,
    /// Connection attempts made and succeeded while opening them, and their errors.
    opened: ThreadStats,
}

impl Connections {
    /// Check the configuration and, for keep-alive, establish every connection.
    pub fn open(cfg: LoadConfig) -> Result<Connections> {
        validate(&cfg)?;
        crate::descriptors::ensure(cfg.connections)?;
        let request = cfg.request_bytes();
        let batch = request.repeat(cfg.pipeline + 1);
        let threads = cfg.threads.min(cfg.connections);
        let mut groups: Vec<Vec<Conn>> = (0..threads).map(|_| Vec::new()).collect();
        for i in 0..cfg.connections {
            groups[i % threads].push(Conn::new(cfg.pipeline));
        }
        let mut opened = ThreadStats::new(1);
        if !cfg.per_request {
            connect_all(&cfg, &mut groups, &mut opened)?;
        }
        Ok(Connections {
            request_len: request.len(),
            cfg,
            batch,
            groups,
            opened,
        })
    }

    /// Connections currently established (keep-alive).
    pub fn connected(&self) -> usize {
        self.groups
            .iter()
            .flatten()
            .filter(|c| c.sock.is_some() && !c.connecting)
            .count()
    }

    pub fn config(&self) -> &LoadConfig {
        &self.cfg
    }

    /// One run with the configured warm-up and duration.
    pub fn run(&mut self) -> Result<LoadReport> {
        self.run_window(self.cfg.warmup, self.cfg.duration)
    }

    /// One run: `warmup` (not recorded), then `duration` measured, with the configured rate.
    pub fn run_window(&mut self, warmup: Duration, duration: Duration) -> Result<LoadReport> {
        let rate = self.cfg.rate;
        self.run_at(warmup, duration, rate)
    }

    /// One run at `rate` (open loop; `None`: closed loop) instead of the configured one, on the
    /// same connections: a server's closed-loop maximum, then fractions of it.
    pub fn run_at(
        &mut self,
        warmup: Duration,
        duration: Duration,
        rate: Option<Rate>,
    ) -> Result<LoadReport> {
        let budget = self.cfg.max_requests;
        self.run_with(warmup, duration, rate, budget)
    }

    /// Send nothing new and wait, at most `timeout`, for every request in flight to be answered
    /// (a closed loop leaves one per connection; an open loop that follows must not inherit
    /// them). Returns the report of the wait (`unanswered_at_end` is what was still in flight).
    pub fn drain(&mut self, timeout: Duration) -> Result<LoadReport> {
        self.run_with(Duration::ZERO, timeout, None, Some(0))
    }

    fn run_with(
        &mut self,
        warmup: Duration,
        duration: Duration,
        rate: Option<Rate>,
        budget: Option<u64>,
    ) -> Result<LoadReport> {
        check_duration(duration)?;
        let cfg = &self.cfg;
        let shared = Shared::default();
        shared
            .remaining
            .store(budget.unwrap_or(u64::MAX), Ordering::Relaxed);
        let total = warmup + duration;
        let seconds = total.as_secs() as usize + 1;
        let plan = Plan {
            cfg,
            shared: &shared,
            batch: &self.batch,
            request_len: self.request_len,
            epoch: clock::now(),
            warm_end: warmup.as_nanos() as u64,
            end: total.as_nanos() as u64,
            rate,
            gap_ns: rate.map(|r| cfg.connections as f64 * 1e9 / r.per_second.max(1e-9)),
        };
        let results: Vec<Result<ThreadStats>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .groups
                .iter_mut()
                .enumerate()
                .map(|(t, group)| {
                    let plan = &plan;
                    scope.spawn(move || -> Result<ThreadStats> {
                        if !plan.cfg.cpus.is_empty() {
                            let cpu = plan.cfg.cpus[t % plan.cfg.cpus.len()];
                            concbench_sys::pin_current_thread(cpu)?;
                        }
                        Worker::new(plan, group.len(), t == 0, seconds)?.run(group)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| bail!("a load thread panicked")))
                .collect()
        });
        let mut merged = ThreadStats::new(seconds);
        let mut busiest: f64 = 0.0;
        for r in results {
            let s = r?;
            busiest = busiest.max(s.cpu_ns / s.wall_ns.max(1.0));
            merged.merge(&s);
        }
        let opened = std::mem::replace(&mut self.opened, ThreadStats::new(1));
        merged.merge(&opened);
        Ok(self.report(&merged, &shared, warmup, busiest, rate))
    }

    fn report(
        &self,
        s: &ThreadStats,
        shared: &Shared,
        warmup: Duration,
        busy: f64,
        rate: Option<Rate>,
    ) -> LoadReport {
        let cfg = &self.cfg;
        // Not clamped: a window of no length shows as one (see `LoadReport::shortfall`).
        let window_s = (s.wall_ns / 1e9 - warmup.as_secs_f64()).max(0.0);
        let conns = self.groups.iter().flatten();
        let unserved = conns
            .clone()
            .filter(|c| c.sock.is_some() && !c.connecting && c.served == 0)
            .count() as u64;
        let unanswered = conns.map(|c| c.inflight.len() as u64).sum();
        let errors = ERROR_KINDS
            .iter()
            .map(|k| (k.name().to_string(), s.errors[*k as usize]))
            .filter(|(_, n)| *n > 0)
            .collect();
        LoadReport {
            target: cfg.target.to_string(),
            threads: self.groups.len(),
            connections: cfg.connections,
            mode: cfg.mode(),
            pipeline: cfg.pipeline,
            rate: rate.map(|r| r.per_second),
            warmup_s: warmup.as_secs_f64(),
            duration_s: window_s,
            requests: s.completed,
            requests_per_second: if window_s > 0.0 {
                s.completed as f64 / window_s
            } else {
                0.0
            },
            warmup_requests: s.warmup_completed,
            latency_corrected: Latency::of(&s.corrected),
            latency_uncorrected: Latency::of(&s.uncorrected),
            errors,
            errors_total: s.errors.iter().sum(),
            requests_lost: s.lost,
            connections_requested: s.connections_requested,
            connections_established: s.connections_established,
            connections_unserved: unserved,
            unanswered_at_end: unanswered,
            timeline: s.timeline.clone(),
            client_cpu_busy: busy,
            fault: cfg.fault.as_ref().map(|_| fault_report(s, shared)),
        }
    }
}

fn fault_report(s: &ThreadStats, shared: &Shared) -> FaultReport {
    let sent = shared.fault_sent.load(Ordering::Relaxed);
    let observed = shared.fault_observed.load(Ordering::Relaxed);
    let observed = (observed > 0).then_some(observed);
    FaultReport {
        sent_at_s: sent as f64 / 1e9,
        observed_at_s: observed.map(|o| o as f64 / 1e9),
        answered: shared.fault_answered.load(Ordering::Relaxed),
        completed_after: s.completed_after_fault,
        errors_after: s.errors_after_fault,
        serving_continued: s.completed_after_fault > 0,
        recovery_ms: observed
            .zip(s.first_after_fault)
            .map(|(o, f)| f.saturating_sub(o) as f64 / 1e6),
    }
}

fn validate(cfg: &LoadConfig) -> Result<()> {
    let bad = |m: String| -> Result<()> { Err(UsageError::new(m).into()) };
    if cfg.connections == 0 {
        return bad("--connections must be at least 1".into());
    }
    check_duration(cfg.duration)?;
    if cfg.threads == 0 {
        return bad("--threads must be at least 1".into());
    }
    if cfg.pipeline == 0 || cfg.pipeline > 1024 {
        return bad("--pipeline must be between 1 and 1024".into());
    }
    if cfg.pipeline > 1 && cfg.per_request {
        return bad("--pipeline needs keep-alive connections (not --stevens or --close)".into());
    }
    if let Some(r) = cfg.rate {
        if !(r.per_second > 0.0 && r.per_second.is_finite()) {
            return bad("--rate must be a positive number of requests per second".into());
        }
    }
    Ok(())
}

/// A measured window must have a length: a rate over none is a division by zero.
fn check_duration(duration: Duration) -> Result<()> {
    if duration.is_zero() {
        return Err(UsageError::new(
            "-d/--duration must be longer than 0: it is the measured window (e.g. -d 10s)",
        )
        .into());
    }
    Ok(())
}

/// Establish every keep-alive connection (non-blocking connects, one epoll to wait on them).
fn connect_all(cfg: &LoadConfig, groups: &mut [Vec<Conn>], opened: &mut ThreadStats) -> Result<()> {
    let ep = epoll::create(CreateFlags::CLOEXEC)?;
    let mut waiting = 0usize;
    for (g, group) in groups.iter_mut().enumerate() {
        for (i, c) in group.iter_mut().enumerate() {
            opened.connections_requested += 1;
            match c.connect(cfg.target) {
                Ok(()) => {
                    let token = ((g as u64) << 32) | i as u64;
                    let sock = c.sock.as_ref().expect("connected");
                    epoll::add(&ep, sock, EventData::new_u64(token), EventFlags::OUT)?;
                    waiting += 1;
                }
                Err(e) if e.raw_os_error() == Some(libc::EMFILE) => {
                    return Err(e).context(
                        "out of file descriptors: raise the limit (ulimit -n) or use fewer \
                         --connections",
                    )
                }
                Err(e) => opened.error(classify_connect(&e), 0),
            }
        }
    }
    let deadline = clock::now() + cfg.connect_timeout;
    let mut events = Vec::with_capacity(1024);
    while waiting > 0 {
        let left = deadline.saturating_duration_since(clock::now());
        if left.is_zero() {
            break;
        }
        let timeout = rustix::event::Timespec {
            tv_sec: left.as_secs() as i64,
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        events.clear();
        match epoll::wait(
            &ep,
            rustix::buffer::spare_capacity(&mut events),
            Some(&timeout),
        ) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e).context("epoll_wait"),
        }
        for ev in &events {
            let token = ev.data.u64();
            let c = &mut groups[(token >> 32) as usize][(token & 0xffff_ffff) as usize];
            let Some(sock) = c.sock.as_ref() else {
                continue;
            };
            let _ = epoll::delete(&ep, sock);
            waiting -= 1;
            match sock.take_error() {
                Ok(None) => {
                    c.connecting = false;
                    opened.connections_established += 1;
                }
                Ok(Some(e)) | Err(e) => {
                    opened.error(classify_connect(&e), 0);
                    c.reset();
                }
            }
        }
    }
    // Whatever is still connecting timed out.
    for c in groups.iter_mut().flatten().filter(|c| c.connecting) {
        opened.error(crate::ErrorKind::ConnectTimeout, 0);
        c.reset();
    }
    Ok(())
}
