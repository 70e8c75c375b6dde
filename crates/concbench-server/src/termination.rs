//! How a server process ends: SIGTERM in the master ends its whole process group (Stevens's
//! `sig_int`), and the children it forks end plainly.
//!
//! Kept apart from [`crate::process`] (which starts the master) so that the designs, which fork
//! the children, depend on this file only and not back on the code that runs them.

/// SIGTERM: end every process of the server's group, reap them all, exit (Stevens's sig_int).
extern "C" fn terminate_group(_: libc::c_int) {
    // SAFETY: signal, kill, waitpid and _exit are async-signal-safe. SIGTERM is ignored first
    // so the group-wide kill does not re-enter this handler.
    unsafe {
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        libc::kill(0, libc::SIGTERM);
        while libc::waitpid(-1, std::ptr::null_mut(), 0) > 0 {}
        libc::_exit(0);
    }
}

/// Make SIGTERM end the calling process's group (call in the server master only).
pub(crate) fn install_group_terminator() {
    // SAFETY: installing a handler that only makes async-signal-safe calls.
    unsafe {
        libc::signal(
            libc::SIGTERM,
            terminate_group as extern "C" fn(libc::c_int) as libc::sighandler_t,
        )
    };
}

/// In a child of the server (prefork, fork-per-connection): SIGTERM kills it plainly, since
/// the master's handler is the one that cleans up.
pub(crate) fn reset_child_signals() {
    // SAFETY: restoring the default action of SIGTERM in this process only.
    unsafe { libc::signal(libc::SIGTERM, libc::SIG_DFL) };
}
