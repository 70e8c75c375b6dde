//! Stevens #0, the iterative server: accept one connection, serve it until the client closes,
//! accept the next. The baseline whose CPU time Stevens subtracted from every other design.

use super::after_accept_error;
use crate::conn::{self, Buffers};
use crate::{listener, Handler, Ready};
use std::net::TcpListener;

pub fn serve(listener: TcpListener, handler: Handler, ready: Ready) -> anyhow::Result<()> {
    let mut bufs = Buffers::default();
    ready.signal("");
    loop {
        match listener::accept(&listener) {
            // A connection's IO error ends that connection only.
            Ok(mut stream) => {
                let _ = conn::serve(&mut stream, &handler, &mut bufs);
            }
            Err(e) => after_accept_error(&e)?,
        }
    }
}
