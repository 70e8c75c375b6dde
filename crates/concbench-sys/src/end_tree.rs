//! Ending a whole process tree at once — from a signal handler too.
//!
//! Why not a process group: what a resident server starts leaves its group. PHP-FPM's master
//! calls `setsid` even with `daemonize = no`, and nginx, started by the PHP probe, stays in the
//! probe's group; neither is tied to its parent (`PR_SET_PDEATHSIG` is the program's own
//! choice). Killing the worker, or the coordinator exiting, SIGKILLed the worker and the probe
//! (their death signal) and left nginx and the PHP-FPM pool serving, reparented to init
//! (regression: a second Ctrl-C or SIGTERM during S2's php-fpm variant).
//!
//! So the tree is found by parentage in `/proc`, and frozen while it is found: each process is
//! sent SIGSTOP as it is found, so none can fork or exit (reparenting its children away) while
//! the rest are looked for; scans repeat until one finds nothing new; then every one is sent
//! SIGKILL. Written by hand, not with the `procfs` crate (as `concbench-measure::tree` is): a
//! second signal's handler calls it (`concbench-measure::signals`), and there only
//! async-signal-safe calls may run — `open`, `getdents64`, `read`, `close`, `kill` on stack
//! buffers, no allocation.

/// Processes one call can end, at most (a fork-per-connection server holds about 1000).
const MOST: usize = 8192;
/// Scans of `/proc`, at most: each finds at least one more generation of the tree.
const MOST_SCANS: usize = 64;

/// SIGKILL every descendant of `root`, and `root` too when `with_root` (never the caller's own
/// process: ending its own children is what a process about to `_exit` asks for). Returns how
/// many processes were sent SIGKILL. Async-signal-safe (see the module notes).
pub fn kill_tree(root: libc::pid_t, with_root: bool) -> usize {
    let mut tree = Tree {
        pids: [0; MOST],
        len: 1,
    };
    tree.pids[0] = root;
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    let root_dies = with_root && root != me;
    if root_dies {
        // SAFETY: kill(2) with a pid and a signal number; a gone pid fails harmlessly.
        unsafe { libc::kill(root, libc::SIGSTOP) };
    }
    for _ in 0..MOST_SCANS {
        if !tree.grow(me) {
            break;
        }
    }
    let first = usize::from(!root_dies);
    for &pid in &tree.pids[first..tree.len] {
        // SAFETY: as above; a stopped process dies of SIGKILL without being continued.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    tree.len - first
}

/// The processes found so far, root first.
struct Tree {
    pids: [libc::pid_t; MOST],
    len: usize,
}

impl Tree {
    fn holds(&self, pid: libc::pid_t) -> bool {
        self.pids[..self.len].contains(&pid)
    }

    /// One scan of `/proc`: every process whose parent is in the tree joins it, stopped.
    /// Whether any joined.
    fn grow(&mut self, me: libc::pid_t) -> bool {
        let mut grew = false;
        each_pid(&mut |pid| {
            if pid == me || self.len == MOST || self.holds(pid) {
                return;
            }
            if parent_of(pid).is_some_and(|ppid| self.holds(ppid)) {
                // SAFETY: kill(2) with a pid and a signal number.
                unsafe { libc::kill(pid, libc::SIGSTOP) };
                self.pids[self.len] = pid;
                self.len += 1;
                grew = true;
            }
        });
        grew
    }
}

/// Call `visit` with every process id listed in `/proc`.
fn each_pid(visit: &mut dyn FnMut(libc::pid_t)) {
    // SAFETY: open(2) of a static NUL-terminated path.
    let fd = unsafe {
        libc::open(
            c"/proc".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return;
    }
    let mut buf = [0u8; 8192];
    loop {
        // SAFETY: getdents64 fills at most `buf.len()` bytes of `buf` from the open directory.
        let n = unsafe {
            libc::syscall(
                libc::SYS_getdents64,
                fd,
                buf.as_mut_ptr(),
                buf.len() as libc::c_uint,
            )
        };
        if n <= 0 {
            break;
        }
        for name in entry_names(&buf[..n as usize]) {
            if let Some(pid) = parse_pid(name) {
                visit(pid);
            }
        }
    }
    // SAFETY: the descriptor opened above.
    unsafe { libc::close(fd) };
}

/// The names in a `getdents64` buffer: records of `d_ino` (8 bytes), `d_off` (8), `d_reclen`
/// (2), `d_type` (1) and the NUL-terminated name, each `d_reclen` long.
fn entry_names(mut buf: &[u8]) -> impl Iterator<Item = &[u8]> {
    const NAME_AT: usize = 19;
    std::iter::from_fn(move || {
        let reclen = usize::from(u16::from_ne_bytes(buf.get(16..18)?.try_into().ok()?));
        if reclen <= NAME_AT || reclen > buf.len() {
            return None;
        }
        let record = &buf[NAME_AT..reclen];
        buf = &buf[reclen..];
        let end = record.iter().position(|&b| b == 0).unwrap_or(record.len());
        Some(&record[..end])
    })
}

/// A process id from a `/proc` entry's name; `None` for `self`, `sys` and the like.
fn parse_pid(name: &[u8]) -> Option<libc::pid_t> {
    if name.is_empty() || name.len() > 9 || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        name.iter()
            .fold(0, |n, &d| n * 10 + libc::pid_t::from(d - b'0')),
    )
}

/// The parent of `pid`, from `/proc/<pid>/stat`; `None` once it is gone.
fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    let mut path = [0u8; 32];
    let mut len = 0;
    for part in [b"/proc/".as_slice(), decimal(pid, &mut [0u8; 10]), b"/stat"] {
        path[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    let mut stat = [0u8; 512];
    // SAFETY: `path` is NUL-terminated (zeroed past `len`); `stat` is writable for its length.
    let n = unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, stat.as_mut_ptr().cast(), stat.len());
        libc::close(fd);
        n
    };
    parse_parent(stat.get(..usize::try_from(n).ok()?)?)
}

/// The parent in a `stat` line, `pid (comm) S ppid ...`: after the *last* `)` (a command name
/// may hold one), the state and the parent.
fn parse_parent(stat: &[u8]) -> Option<libc::pid_t> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    let mut fields = stat[close + 1..]
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty());
    let _state = fields.next()?;
    parse_pid(fields.next()?)
}

/// `n` in decimal, in `out`.
fn decimal(mut n: libc::pid_t, out: &mut [u8; 10]) -> &[u8] {
    let mut at = out.len();
    loop {
        at -= 1;
        out[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    &out[at..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_parent_even_with_a_parenthesis_in_the_name() {
        assert_eq!(parse_parent(b"42 (sh) S 7 42 42 0 -1"), Some(7));
        assert_eq!(parse_parent(b"42 (a) b) R 1234 1 1"), Some(1234));
        assert_eq!(parse_parent(b"42 (sh"), None);
        assert_eq!(parse_parent(b"42 (sh) S"), None);
    }

    #[test]
    fn only_numeric_entries_are_processes() {
        assert_eq!(parse_pid(b"4021"), Some(4021));
        assert_eq!(parse_pid(b"self"), None);
        assert_eq!(parse_pid(b""), None);
        assert_eq!(parse_pid(b"12345678901"), None);
    }

    #[test]
    fn a_pid_is_written_without_allocating() {
        assert_eq!(decimal(0, &mut [0; 10]), b"0");
        assert_eq!(decimal(4194304, &mut [0; 10]), b"4194304");
    }

    #[test]
    fn the_scan_lists_this_process() {
        let me = std::process::id() as libc::pid_t;
        let mut seen = false;
        each_pid(&mut |pid| seen |= pid == me);
        assert!(seen);
        assert_eq!(
            parent_of(me),
            Some(std::os::unix::process::parent_id() as libc::pid_t),
            "the parent read from /proc"
        );
    }
}
