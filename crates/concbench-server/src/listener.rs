//! Listening sockets: the one the server starts with, and per-reactor ones (SO_REUSEPORT).

use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};

/// Listen queue length. Large, so that 1000 clients connecting at once are all established by
/// the kernel even when a design accepts slowly (or never, like a busy pool under keep-alive):
/// "connections never served" then counts what the design did, not what the backlog dropped.
pub const BACKLOG: i32 = 4096;

/// Bind and listen on `addr` (port 0 picks a free port). `reuseport` lets per-reactor listeners
/// join later with [`bind_another`].
pub fn bind(addr: SocketAddr, reuseport: bool) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    if reuseport {
        socket.set_reuse_port(true)?;
    }
    socket.bind(&SockAddr::from(addr))?;
    socket.listen(BACKLOG)?;
    Ok(socket.into())
}

/// Another listener on the same address as `first` (which must have SO_REUSEPORT): the kernel
/// spreads new connections over all of them by a hash of the 4-tuple.
pub fn bind_another(first: &TcpListener) -> io::Result<TcpListener> {
    bind(first.local_addr()?, true)
}

/// Accept one connection (retrying EINTR), with TCP_NODELAY set: responses are written whole,
/// and Nagle's algorithm would only delay pipelined ones.
pub fn accept(listener: &TcpListener) -> io::Result<TcpStream> {
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Whether an accept error is worth retrying (a client that gave up, a transient shortage)
/// rather than the end of the server.
pub fn transient(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(
            libc::ECONNABORTED
                | libc::EPROTO
                | libc::EMFILE
                | libc::ENFILE
                | libc::ENOBUFS
                | libc::ENOMEM
                | libc::EPERM
        )
    ) || e.kind() == io::ErrorKind::WouldBlock
}
