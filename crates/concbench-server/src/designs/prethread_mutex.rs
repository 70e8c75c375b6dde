//! Stevens #7: a pool of threads created up front; each takes a mutex, accepts, releases it and
//! serves the connection it got.

use crate::conn::{self, Buffers};
use crate::{listener, Handler, Ready};
use anyhow::Result;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

pub fn serve(listener: TcpListener, handler: Handler, workers: usize, ready: Ready) -> Result<()> {
    let shared = Arc::new((listener, Mutex::new(())));
    let mut threads = Vec::new();
    for _ in 0..workers.max(1) {
        let shared = shared.clone();
        threads.push(std::thread::spawn(move || {
            worker(&shared.0, &shared.1, &handler)
        }));
    }
    ready.signal("");
    for t in threads {
        t.join()
            .map_err(|_| anyhow::anyhow!("a pool thread panicked"))??;
    }
    Ok(())
}

fn worker(listener: &TcpListener, lock: &Mutex<()>, handler: &Handler) -> Result<()> {
    let mut bufs = Buffers::default();
    loop {
        let accepted = {
            let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
            listener::accept(listener)
        };
        match accepted {
            Ok(mut stream) => {
                let _ = conn::serve(&mut stream, handler, &mut bufs);
            }
            Err(e) => super::after_accept_error(&e)?,
        }
    }
}
