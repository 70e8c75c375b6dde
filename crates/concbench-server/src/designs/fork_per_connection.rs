//! Stevens #1: the parent accepts and forks one child per connection; the child serves it and
//! exits. The parent reaps finished children after each accept with `waitpid(-1, WNOHANG)`
//! (not with SIGCHLD ignored, which would discard their CPU time from the parent's
//! RUSAGE_CHILDREN, the number Stevens measured).

use super::after_accept_error;
use crate::conn::{self, Buffers};
use crate::termination::reset_child_signals;
use crate::{listener, Handler, Ready};
use std::net::TcpListener;

pub fn serve(listener: TcpListener, handler: Handler, ready: Ready) -> anyhow::Result<()> {
    ready.signal("");
    loop {
        match listener::accept(&listener) {
            Ok(mut stream) => {
                let child = concbench_sys::fork_child(|| {
                    reset_child_signals();
                    let _ = conn::serve(&mut stream, &handler, &mut Buffers::default());
                    0
                })?;
                // The parent keeps no handle: it reaps every child below.
                let _ = child.into_pid();
                drop(stream);
            }
            Err(e) => after_accept_error(&e)?,
        }
        reap_finished();
    }
}

/// Reap every child that has exited, without waiting for the others.
fn reap_finished() {
    loop {
        // SAFETY: waitpid with a null status pointer and WNOHANG only reaps ended children.
        let pid = unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) };
        if pid <= 0 {
            return;
        }
    }
}
