//! Family `switch`: what one context switch costs — between processes, threads, coroutines and
//! async tasks — with the mechanism verified (switches per operation) and placement explicit.
//! Seeds S3 (pipe ping-pong, ring of threads, SCHED_FIFO, lat_ctx's indirect cost) and S1 (the
//! auto-reset-event hand-over). Every result is nanoseconds per one-way switch.

mod alone;
mod async_task;
mod channel_coroutine;
mod condvar_thread;
mod coroutine;
mod eventfd_thread;
mod futex_thread;
pub(crate) mod pingpong;
pub(crate) mod pipe_process;
mod pipe_thread;
mod ring_thread;
pub(crate) mod sched;
pub(crate) mod setting;
mod wake;
mod working_set;
mod yield_async_task;
mod yield_thread;

use crate::support::runtime::Async;
use concbench_core::{Experiment, Stages};

/// A coroutine sample's error when an earlier sample failed while its coroutine held the stack
/// (the harness ends a round at its first failure, so only a bug gets here).
const STACK_LOST: &str = "the coroutine stack went with an earlier failed sample";

pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    v.extend(pipe_process::variants());
    v.extend(pipe_thread::variants());
    v.extend(futex_thread::variants());
    v.extend(eventfd_thread::variants());
    v.extend(condvar_thread::variants());
    v.extend(ring_thread::variants());
    v.extend(alone::variants());
    v.extend(wake::variants());
    v.push(Box::new(Stages::new(yield_thread::Yield)));
    v.push(Box::new(Stages::new(coroutine::Coroutine)));
    v.push(Box::new(Async::new(async_task::AsyncTask)));
    v.push(Box::new(Stages::new(channel_coroutine::ChannelCoroutine)));
    v.push(Box::new(Async::new(yield_async_task::YieldAsyncTask)));
    v
}
