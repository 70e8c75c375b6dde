//! Stevens #6: the main thread accepts and creates one thread per connection, detached. Stacks
//! are 64 KiB, set explicitly: the handler needs little, and Rust's default (2 MiB) would only
//! reserve more address space per connection.

use super::after_accept_error;
use crate::conn::{self, Buffers};
use crate::{listener, Handler, Ready};
use std::net::TcpListener;

/// Stack of each connection thread.
pub const STACK_BYTES: usize = 64 * 1024;

pub fn serve(listener: TcpListener, handler: Handler, ready: Ready) -> anyhow::Result<()> {
    ready.signal("");
    loop {
        match listener::accept(&listener) {
            Ok(mut stream) => {
                let spawned =
                    std::thread::Builder::new()
                        .stack_size(STACK_BYTES)
                        .spawn(move || {
                            let _ = conn::serve(&mut stream, &handler, &mut Buffers::default());
                        });
                // Out of threads: this connection is dropped (closed); the server goes on.
                drop(spawned);
            }
            Err(e) => after_accept_error(&e)?,
        }
    }
}
