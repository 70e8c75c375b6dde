//! One epoll reactor per CPU, each on its own thread with its own SO_REUSEPORT listener: the
//! kernel spreads connections over the listeners by a hash of the 4-tuple, so reactors share
//! nothing (nginx's `reuseport`). The first reactor uses the listener the server was given.

use super::epoll::{Blocking, Reactor};
use crate::{listener, Handler, Ready};
use anyhow::{Context, Result};
use std::net::TcpListener;

pub fn serve(first: TcpListener, handler: Handler, reactors: usize, ready: Ready) -> Result<()> {
    let cpus = concbench_sys::allowed_cpus().unwrap_or_default();
    let mut listeners = Vec::new();
    for _ in 1..reactors.max(1) {
        listeners.push(listener::bind_another(&first).context("SO_REUSEPORT listener")?);
    }
    listeners.insert(0, first);
    let mut threads = Vec::new();
    for (i, l) in listeners.into_iter().enumerate() {
        let mut reactor = Reactor::new(l, handler, Blocking::Timer)?;
        let cpu = (!cpus.is_empty()).then(|| cpus[i % cpus.len()]);
        threads.push(std::thread::spawn(move || {
            if let Some(cpu) = cpu {
                concbench_sys::pin_current_thread(cpu)?;
            }
            reactor.run()
        }));
    }
    ready.signal(&format!("{} reactors", threads.len()));
    for t in threads {
        t.join()
            .map_err(|_| anyhow::anyhow!("a reactor panicked"))??;
    }
    Ok(())
}
