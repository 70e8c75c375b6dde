//! Stevens #5: the parent accepts every connection and passes its descriptor (SCM_RIGHTS over
//! a Unix socket pair) to an idle child; the child serves it and writes one byte back to say it
//! is idle again. While no child is idle the parent stops polling the listening socket, as
//! Stevens's does. A child that dies shows as end-of-file on its socket: the parent reaps it
//! and forks a replacement.

use crate::conn::{self, Buffers};
use crate::termination::reset_child_signals;
use crate::{listener, Handler, Ready};
use anyhow::{Context, Result};
use rustix::event::{poll, PollFd, PollFlags};
use rustix::net::{
    recvmsg, sendmsg, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};
use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;

/// The parent's view of one child.
struct Slot {
    sock: UnixStream,
    pid: libc::pid_t,
    busy: bool,
}

pub fn serve(listener: TcpListener, handler: Handler, workers: usize, ready: Ready) -> Result<()> {
    let mut slots = Vec::new();
    for _ in 0..workers.max(1) {
        slots.push(spawn(&handler)?);
    }
    ready.signal("");
    loop {
        let any_idle = slots.iter().any(|s| !s.busy);
        let (listener_ready, children_ready) = wait(&listener, &slots, any_idle)?;
        for i in children_ready {
            on_child_message(&mut slots[i], &handler)?;
        }
        if listener_ready {
            match listener::accept(&listener) {
                Ok(stream) => hand_over(&mut slots, &stream)?,
                Err(e) => super::after_accept_error(&e)?,
            }
        }
    }
}

/// Poll the listener (only when a child is idle) and every child's socket.
fn wait(listener: &TcpListener, slots: &[Slot], any_idle: bool) -> Result<(bool, Vec<usize>)> {
    let mut fds: Vec<PollFd<'_>> = slots
        .iter()
        .map(|s| PollFd::new(&s.sock, PollFlags::IN))
        .collect();
    if any_idle {
        fds.push(PollFd::new(listener, PollFlags::IN));
    }
    match poll(&mut fds, None) {
        Ok(_) => {}
        Err(rustix::io::Errno::INTR) => return Ok((false, Vec::new())),
        Err(e) => return Err(e).context("poll"),
    }
    let listener_ready = any_idle && !fds[slots.len()].revents().is_empty();
    let children = (0..slots.len())
        .filter(|&i| !fds[i].revents().is_empty())
        .collect();
    Ok((listener_ready, children))
}

/// A child wrote "idle" bytes, or died (end of file): update or replace its slot.
fn on_child_message(slot: &mut Slot, handler: &Handler) -> Result<()> {
    let mut buf = [0u8; 64];
    match slot.sock.read(&mut buf) {
        Ok(n) if n > 0 => slot.busy = false,
        _ => {
            // SAFETY: waitpid on our own child's pid; it has closed its socket, so it ended
            // (or is ending); reaping it here keeps no zombie.
            unsafe { libc::waitpid(slot.pid, std::ptr::null_mut(), 0) };
            *slot = spawn(handler)?;
        }
    }
    Ok(())
}

/// Pass `stream` to the first idle child (the caller polled the listener only if one exists).
fn hand_over(slots: &mut [Slot], stream: &TcpStream) -> Result<()> {
    let Some(slot) = slots.iter_mut().find(|s| !s.busy) else {
        return Ok(());
    };
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut cmsg = SendAncillaryBuffer::new(&mut space);
    let fds = [stream.as_fd()];
    cmsg.push(SendAncillaryMessage::ScmRights(&fds));
    match sendmsg(
        &slot.sock,
        &[IoSlice::new(b"c")],
        &mut cmsg,
        SendFlags::NOSIGNAL,
    ) {
        Ok(_) => slot.busy = true,
        // The child died meanwhile: the connection is dropped; its slot is replaced when its
        // end of file is polled.
        Err(_) => slot.busy = true,
    }
    Ok(())
}

fn spawn(handler: &Handler) -> Result<Slot> {
    let (parent_end, child_end) = UnixStream::pair().context("socketpair")?;
    let handler = *handler;
    // The child takes its end (the parent's copy closes when fork_child returns) and ignores
    // its inherited copy of the parent's end.
    let child = concbench_sys::fork_child(move || {
        reset_child_signals();
        child_loop(child_end, &handler);
        0
    })?;
    Ok(Slot {
        sock: parent_end,
        pid: child.into_pid(),
        busy: false,
    })
}

/// Receive a descriptor, serve it, report idle; until the parent goes away.
fn child_loop(mut sock: UnixStream, handler: &Handler) {
    let mut bufs = Buffers::default();
    loop {
        let Some(mut stream) = receive(&sock) else {
            return;
        };
        let _ = stream.set_nodelay(true);
        let _ = conn::serve(&mut stream, handler, &mut bufs);
        drop(stream);
        if sock.write_all(b"i").is_err() {
            return;
        }
    }
}

fn receive(sock: &UnixStream) -> Option<TcpStream> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut cmsg = RecvAncillaryBuffer::new(&mut space);
    let mut byte = [0u8; 1];
    let got = recvmsg(
        sock,
        &mut [IoSliceMut::new(&mut byte)],
        &mut cmsg,
        RecvFlags::CMSG_CLOEXEC,
    )
    .ok()?;
    if got.bytes == 0 {
        return None;
    }
    cmsg.drain().find_map(|m| match m {
        RecvAncillaryMessage::ScmRights(mut fds) => fds.next().map(TcpStream::from),
        _ => None,
    })
}
