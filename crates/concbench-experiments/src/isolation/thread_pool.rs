//! The pool of threads: W threads in one process take task numbers from a shared queue and
//! report each completed task. That process is a sandbox forked for the purpose, so the crash
//! kills it — and every thread of the pool with it — but never the measuring process.

use super::outcome::Outcome;
use super::task::{self, STOP};
use crate::support::sandbox;
use anyhow::{bail, Result};
use concbench_core::RunContext;
use std::collections::VecDeque;
use std::sync::Mutex;

/// The sandbox's body: run the pool until every worker took its STOP (or one crashed).
fn pool(rep: sandbox::Reporter, workers: u64, tasks: u64) -> Result<()> {
    let ids = (0..tasks as u32).chain(std::iter::repeat_n(STOP, workers as usize));
    let queue = Mutex::new(ids.collect::<VecDeque<u32>>());
    let poison = task::poison(tasks);
    std::thread::scope(|s| {
        for _ in 0..workers {
            let rep = rep.clone();
            let queue = &queue;
            s.spawn(move || -> Result<()> {
                loop {
                    let next = queue
                        .lock()
                        .map_err(|_| anyhow::anyhow!("poisoned"))?
                        .pop_front();
                    match next {
                        None | Some(STOP) => return Ok(()),
                        Some(id) if id == poison => {
                            rep.line(&task::crashing(id))?;
                            task::segfault();
                        }
                        Some(id) => {
                            std::hint::black_box(task::work(id));
                            rep.line(&task::done(id))?;
                        }
                    }
                }
            });
        }
    });
    Ok(())
}

/// Run `tasks` tasks on `workers` threads of one sandbox process, one of which crashes.
pub fn run(ctx: &RunContext, workers: u64, tasks: u64) -> Result<Outcome> {
    let mut sb = sandbox::spawn(|rep| pool(rep, workers, tasks))?;
    let mut out = Outcome {
        tasks,
        ..Outcome::default()
    };
    while let Some(line) = sb.next_line(ctx)? {
        if line.starts_with("done ") {
            out.completed += 1;
        } else if !line.starts_with("crash ") {
            bail!("unexpected line from the thread pool: {line}");
        }
    }
    let status = sb.wait()?;
    if !task::died_of_segfault(status) {
        bail!("the thread pool's process did not die of SIGSEGV (wait status {status:#x})");
    }
    // One thread's fault killed the process: the pool is gone with every task it had left.
    out.survived = false;
    Ok(out)
}
