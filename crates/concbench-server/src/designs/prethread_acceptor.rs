//! Stevens #8: the main thread accepts and hands each connection to a pool of threads through
//! a queue guarded by a mutex and a condition variable (Stevens's `clifd` array).

use crate::conn::{self, Buffers};
use crate::{listener, Handler, Ready};
use anyhow::Result;
use std::collections::VecDeque;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};

#[derive(Default)]
struct Queue {
    streams: Mutex<VecDeque<TcpStream>>,
    ready: Condvar,
}

pub fn serve(listener: TcpListener, handler: Handler, workers: usize, ready: Ready) -> Result<()> {
    let queue = Arc::new(Queue::default());
    for _ in 0..workers.max(1) {
        let queue = queue.clone();
        std::thread::spawn(move || worker(&queue, &handler));
    }
    ready.signal("");
    loop {
        match listener::accept(&listener) {
            Ok(stream) => {
                let mut q = queue.streams.lock().unwrap_or_else(|p| p.into_inner());
                q.push_back(stream);
                queue.ready.notify_one();
            }
            Err(e) => super::after_accept_error(&e)?,
        }
    }
}

fn worker(queue: &Queue, handler: &Handler) {
    let mut bufs = Buffers::default();
    loop {
        let mut stream = {
            let mut q = queue.streams.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                match q.pop_front() {
                    Some(s) => break s,
                    None => q = queue.ready.wait(q).unwrap_or_else(|p| p.into_inner()),
                }
            }
        };
        let _ = conn::serve(&mut stream, handler, &mut bufs);
    }
}
