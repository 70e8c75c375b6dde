//! tokio servers: one task per connection on a current-thread runtime (`tokio-current`) or a
//! multi-thread runtime with one worker per CPU (`tokio-multi`). The blocking call is
//! `tokio::time::sleep`: the task yields and the runtime serves others meanwhile. The two
//! designs differ only in the runtime they build, so they share this file.

use crate::protocol::{respond, InBuf, Request};
use crate::{crash, Handler, Ready};
use anyhow::{Context, Result};
use std::net::TcpListener;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// `workers`: None for the current-thread runtime, Some(n) for a multi-thread one.
pub fn serve(
    listener: TcpListener,
    handler: Handler,
    workers: Option<usize>,
    ready: Ready,
) -> Result<()> {
    let runtime = match workers {
        None => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Some(n) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n.max(1))
            .enable_all()
            .build(),
    }
    .context("building the tokio runtime")?;
    listener.set_nonblocking(true)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        ready.signal(&workers.map(|n| format!("{n} workers")).unwrap_or_default());
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, handler));
                }
                Err(e) => super::after_accept_error(&e)?,
            }
        }
    })
}

async fn connection(mut stream: TcpStream, handler: Handler) {
    let _ = stream.set_nodelay(true);
    let mut input = InBuf::new();
    let mut out = Vec::with_capacity(256);
    loop {
        let n = match stream.read(input.spare()).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        input.filled(n);
        out.clear();
        let mut close = false;
        loop {
            let req = match input.next_request() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(_) => return,
            };
            if req == Request::Crash {
                crash::on_crash_request(&handler);
                return;
            }
            crate::work::burn(handler.cpu);
            if let Some(d) = handler.blocking {
                tokio::time::sleep(d).await;
            }
            respond(req, &mut out);
            if req.closes() {
                close = true;
                break;
            }
        }
        if stream.write_all(&out).await.is_err() || close {
            return;
        }
    }
}
