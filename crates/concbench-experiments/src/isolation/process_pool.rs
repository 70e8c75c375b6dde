//! The pool of processes: W forked workers take task numbers from one pipe (4 bytes each, read
//! atomically) and report on another; the supervisor — the measuring process itself — watches
//! one "life" pipe per worker (the kernel closes a dead worker's end, whatever killed it), reaps
//! a dead worker, and forks a replacement that announces itself ready.

use super::outcome::Outcome;
use super::task::{self, STOP};
use crate::support::fd::{pipe, read_full, readable, wait_readable, write_all};
use crate::support::lines::Lines;
use anyhow::{bail, ensure, Context, Result};
use concbench_core::RunContext;
use concbench_measure::clock;
use concbench_sys::Child;
use rustix::event::PollFlags;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::Instant;

struct Worker {
    child: Child,
    /// Hangs up when the worker is gone.
    life: OwnedFd,
}

/// The worker's loop: take a task, do it, report; exit on STOP; crash on the poisoned task.
fn serve(tasks: BorrowedFd<'_>, results: BorrowedFd<'_>, poison: u32, announce: bool) -> i32 {
    let report = |line: String| write_all(results, format!("{line}\n").as_bytes()).is_ok();
    if announce && !report(task::READY.to_string()) {
        return 1;
    }
    loop {
        let mut id = [0u8; 4];
        if !matches!(read_full(tasks, &mut id), Ok(4)) {
            return 1;
        }
        match u32::from_le_bytes(id) {
            STOP => return 0,
            id if id == poison => {
                report(task::crashing(id));
                task::segfault();
            }
            id => {
                std::hint::black_box(task::work(id));
                if !report(task::done(id)) {
                    return 1;
                }
            }
        }
    }
}

struct Pool<'a> {
    tasks: BorrowedFd<'a>,
    results: BorrowedFd<'a>,
    poison: u32,
}

impl Pool<'_> {
    fn spawn(&self, announce: bool) -> Result<Worker> {
        let (life, life_w) = pipe()?;
        // The child inherits `life_w`; the kernel closes it when the child dies.
        let child =
            concbench_sys::fork_child(|| serve(self.tasks, self.results, self.poison, announce))?;
        // Only the worker holds the write end now.
        drop(life_w);
        Ok(Worker { child, life })
    }
}

/// Run `tasks` tasks on `workers` worker processes, one of which crashes.
pub fn run(ctx: &RunContext, workers: u64, tasks: u64) -> Result<Outcome> {
    ensure!(
        (tasks + workers) * 4 <= 64 * 1024,
        "the task queue must fit in one pipe buffer: use fewer tasks"
    );
    let (queue_r, queue_w) = pipe()?;
    let (results_r, results_w) = pipe()?;
    rustix::fs::fcntl_setfl(&results_r, rustix::fs::OFlags::NONBLOCK)?;
    let ids = (0..tasks as u32).chain(std::iter::repeat_n(STOP, workers as usize));
    let queue: Vec<u8> = ids.flat_map(u32::to_le_bytes).collect();
    write_all(queue_w.as_fd(), &queue).context("filling the task queue")?;
    let pool = Pool {
        tasks: queue_r.as_fd(),
        results: results_w.as_fd(),
        poison: task::poison(tasks),
    };
    let mut live = (0..workers)
        .map(|_| pool.spawn(false))
        .collect::<Result<Vec<_>>>()?;
    let mut results = Lines::new(results_r);
    let mut out = Outcome {
        tasks,
        ..Outcome::default()
    };
    let (mut crashed_at, mut reaped_at): (Option<Instant>, Option<Instant>) = (None, None);
    while !live.is_empty() {
        let hung_up = wait_for_event(ctx, &results, &live)?;
        read_results(&mut results, &mut out, &mut crashed_at, reaped_at)?;
        for i in hung_up.into_iter().rev() {
            let mut w = live.swap_remove(i);
            let status = w.child.wait()?;
            if task::died_of_segfault(status) {
                let now = clock::now();
                out.detect_us = crashed_at.map(|c| (now - c).as_secs_f64() * 1e6);
                reaped_at = Some(now);
                live.push(pool.spawn(true)?);
            } else if !Child::exited_ok(status) {
                bail!("a pool worker ended unexpectedly (wait status {status:#x})");
            }
        }
    }
    read_results(&mut results, &mut out, &mut crashed_at, reaped_at)?;
    out.survived = out.completed + 1 == tasks;
    Ok(out)
}

/// Wait for results or a hang-up; returns the indexes of workers that are gone, ascending.
fn wait_for_event(ctx: &RunContext, results: &Lines, live: &[Worker]) -> Result<Vec<usize>> {
    let mut fds = vec![readable(results.fd())];
    fds.extend(live.iter().map(|w| readable(w.life.as_fd())));
    wait_readable(ctx, &mut fds)?;
    Ok(fds[1..]
        .iter()
        .enumerate()
        .filter(|(_, f)| f.revents().intersects(PollFlags::HUP | PollFlags::IN))
        .map(|(i, _)| i)
        .collect())
}

/// Consume every result line available now.
fn read_results(
    results: &mut Lines,
    out: &mut Outcome,
    crashed_at: &mut Option<Instant>,
    reaped_at: Option<Instant>,
) -> Result<()> {
    loop {
        while let Some(line) = results.pop() {
            if line.starts_with("done ") {
                out.completed += 1;
            } else if line.starts_with("crash ") {
                *crashed_at = Some(clock::now());
            } else if line == task::READY {
                out.respawn_us = reaped_at.map(|r| (clock::now() - r).as_secs_f64() * 1e6);
            } else {
                bail!("unexpected line from a pool worker: {line}");
            }
        }
        match results.fill() {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) => return Err(e).context("reading results"),
        }
    }
}
