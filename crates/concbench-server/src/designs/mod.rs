//! The server designs, one file each, and what distinguishes them.

mod epoll;
mod epoll_per_cpu;
mod fork_per_connection;
mod io_uring;
mod iterative;
mod prefork;
mod prefork_fdpass;
mod prefork_flock;
mod prefork_mutex;
mod prethread_acceptor;
mod prethread_mutex;
mod thread_per_connection;
mod tokio_rt;

use crate::{Ready, ServerConfig};
use std::net::TcpListener;

/// A server design (names as in `params.design` and `concbench serve DESIGN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Design {
    /// Stevens #0: one connection at a time, in the process that accepts.
    Iterative,
    /// Stevens #1: fork one child per connection.
    ForkPerConnection,
    /// Stevens #2: a pool of children, each blocking in accept on the shared socket.
    Prefork,
    /// Stevens #3: prefork, with an fcntl record lock around accept.
    PreforkFlock,
    /// Stevens #4: prefork, with a process-shared (robust) pthread mutex around accept.
    PreforkMutex,
    /// Stevens #5: prefork; the parent accepts and passes each descriptor (SCM_RIGHTS).
    PreforkFdpass,
    /// Stevens #6: one thread per connection (64 KiB stacks).
    ThreadPerConnection,
    /// Stevens #7: a pool of threads, a mutex around accept.
    PrethreadMutex,
    /// Stevens #8: a pool of threads fed by a main thread that accepts.
    PrethreadAcceptor,
    /// One epoll reactor; blocking becomes a timer.
    Epoll,
    /// One epoll reactor that sleeps inside the loop for the blocking call (the naive way).
    EpollNaiveBlocking,
    /// One epoll reactor per CPU, each with its own SO_REUSEPORT listener.
    EpollPerCpu,
    /// One io_uring ring (accept, recv, send, timeouts); epoll when the kernel refuses.
    IoUring,
    /// tokio, current-thread runtime: one task per connection.
    TokioCurrent,
    /// tokio, multi-thread runtime (one worker per CPU): one task per connection.
    TokioMulti,
}

impl Design {
    pub const ALL: [Design; 15] = [
        Design::Iterative,
        Design::ForkPerConnection,
        Design::Prefork,
        Design::PreforkFlock,
        Design::PreforkMutex,
        Design::PreforkFdpass,
        Design::ThreadPerConnection,
        Design::PrethreadMutex,
        Design::PrethreadAcceptor,
        Design::Epoll,
        Design::EpollNaiveBlocking,
        Design::EpollPerCpu,
        Design::IoUring,
        Design::TokioCurrent,
        Design::TokioMulti,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Design::Iterative => "iterative",
            Design::ForkPerConnection => "fork-per-connection",
            Design::Prefork => "prefork",
            Design::PreforkFlock => "prefork-flock",
            Design::PreforkMutex => "prefork-mutex",
            Design::PreforkFdpass => "prefork-fdpass",
            Design::ThreadPerConnection => "thread-per-connection",
            Design::PrethreadMutex => "prethread-mutex",
            Design::PrethreadAcceptor => "prethread-acceptor",
            Design::Epoll => "epoll",
            Design::EpollNaiveBlocking => "epoll-naive-blocking",
            Design::EpollPerCpu => "epoll-per-cpu",
            Design::IoUring => "io_uring",
            Design::TokioCurrent => "tokio-current",
            Design::TokioMulti => "tokio-multi",
        }
    }

    pub fn from_name(name: &str) -> Option<Design> {
        Design::ALL.into_iter().find(|d| d.name() == name)
    }

    /// One line for `concbench serve --help` and the docs.
    pub fn describe(self) -> &'static str {
        match self {
            Design::Iterative => "one connection at a time (Stevens #0, the baseline)",
            Design::ForkPerConnection => "fork a child per connection (Stevens #1)",
            Design::Prefork => "pool of children blocking in accept (Stevens #2)",
            Design::PreforkFlock => "pool of children, fcntl lock around accept (Stevens #3)",
            Design::PreforkMutex => {
                "pool of children, process-shared robust mutex around accept (Stevens #4)"
            }
            Design::PreforkFdpass => "pool of children, parent passes descriptors (Stevens #5)",
            Design::ThreadPerConnection => "a thread per connection, 64 KiB stacks (Stevens #6)",
            Design::PrethreadMutex => "pool of threads, mutex around accept (Stevens #7)",
            Design::PrethreadAcceptor => "pool of threads fed by an accepting thread (Stevens #8)",
            Design::Epoll => "one epoll reactor; blocking calls become timers",
            Design::EpollNaiveBlocking => "one epoll reactor that sleeps in the loop to block",
            Design::EpollPerCpu => "one epoll reactor per CPU, SO_REUSEPORT listeners",
            Design::IoUring => "one io_uring ring (falls back to epoll, reported, if refused)",
            Design::TokioCurrent => "tokio current-thread runtime, a task per connection",
            Design::TokioMulti => "tokio multi-thread runtime (a worker per CPU)",
        }
    }

    /// Whether the design spreads its work over several processes (a crash kills one worker,
    /// not the server).
    pub fn is_multiprocess(self) -> bool {
        matches!(
            self,
            Design::ForkPerConnection
                | Design::Prefork
                | Design::PreforkFlock
                | Design::PreforkMutex
                | Design::PreforkFdpass
        )
    }

    /// Whether the design uses a fixed pool of `workers` units, each serving one connection at
    /// a time (so under keep-alive at most `workers` connections are ever served).
    pub fn is_pool(self) -> bool {
        matches!(
            self,
            Design::Prefork
                | Design::PreforkFlock
                | Design::PreforkMutex
                | Design::PreforkFdpass
                | Design::PrethreadMutex
                | Design::PrethreadAcceptor
        )
    }

    /// How many requests can wait in the blocking call at once with `workers` pool units: the
    /// N of Little's law (`None`: one per connection, bounded only by the clients).
    pub fn blocking_concurrency(self, workers: usize) -> Option<usize> {
        match self {
            Design::Iterative | Design::EpollNaiveBlocking => Some(1),
            d if d.is_pool() => Some(workers),
            _ => None,
        }
    }

    pub(crate) fn needs_reuseport(self) -> bool {
        self == Design::EpollPerCpu
    }
}

impl std::fmt::Display for Design {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Run `config.design` on `listener` in the calling process until it is killed.
pub fn serve(listener: TcpListener, config: &ServerConfig, ready: Ready) -> anyhow::Result<()> {
    let h = config.handler;
    match config.design {
        Design::Iterative => iterative::serve(listener, h, ready),
        Design::ForkPerConnection => fork_per_connection::serve(listener, h, ready),
        Design::Prefork => prefork::serve(listener, h, config.workers, ready),
        Design::PreforkFlock => prefork_flock::serve(listener, h, config.workers, ready),
        Design::PreforkMutex => prefork_mutex::serve(listener, h, config.workers, ready),
        Design::PreforkFdpass => prefork_fdpass::serve(listener, h, config.workers, ready),
        Design::ThreadPerConnection => thread_per_connection::serve(listener, h, ready),
        Design::PrethreadMutex => prethread_mutex::serve(listener, h, config.workers, ready),
        Design::PrethreadAcceptor => prethread_acceptor::serve(listener, h, config.workers, ready),
        Design::Epoll => epoll::serve(listener, h, epoll::Blocking::Timer, ready),
        Design::EpollNaiveBlocking => epoll::serve(listener, h, epoll::Blocking::Sleep, ready),
        Design::EpollPerCpu => epoll_per_cpu::serve(listener, h, config.per_cpu_count(), ready),
        Design::IoUring => io_uring::serve(listener, h, ready),
        Design::TokioCurrent => tokio_rt::serve(listener, h, None, ready),
        Design::TokioMulti => tokio_rt::serve(listener, h, Some(config.per_cpu_count()), ready),
    }
}

/// Wait out an accept error that is not the end of the server (EMFILE: descriptors run out
/// until some connection closes; pausing avoids spinning on it).
pub(crate) fn after_accept_error(e: &std::io::Error) -> anyhow::Result<()> {
    if crate::listener::transient(e) {
        if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(())
    } else {
        Err(anyhow::anyhow!("accept: {e}"))
    }
}
