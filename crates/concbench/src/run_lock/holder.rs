//! Who holds the run lock, read from the lock itself: the kernel lists every `flock` with the
//! pid of the process that took it (`/proc/locks`), and `/proc/PID` says when that process
//! started, what it runs and whose it is.
//!
//! Why not a record the holder writes into the lock file: between taking the lock and writing
//! the record another run could read an empty file ("pid 0, started an unknown time") or the
//! record of a run that ended a minute earlier, and a file another user created may not be ours
//! to write. The kernel's list has no such gap: a pid read there held the lock at that moment.

use super::RunOwner;
use std::fs::File;
use std::os::unix::fs::MetadataExt;

/// The pid holding an exclusive `flock` on `file`, per `/proc/locks`: `Some(0)` when the kernel
/// shows the lock but not its pid (a holder in another PID namespace, such as a container
/// sharing the file); `None` when nobody holds it (any more) or `/proc/locks` cannot be read.
pub fn pid_holding(file: &File) -> Option<u32> {
    let meta = file.metadata().ok()?;
    let dev = meta.dev();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    find(
        &locks,
        (rustix::fs::major(dev), rustix::fs::minor(dev)),
        meta.ino(),
    )
}

/// The holder of the `flock` on the file `(major, minor)`, `ino` in a `/proc/locks` text. Some
/// file systems (overlayfs, btrfs subvolumes) show another device there than `stat` does: then
/// the one held `flock` on an inode of that number stands for it.
fn find(locks: &str, dev: (u32, u32), ino: u64) -> Option<u32> {
    let held: Vec<Held> = locks.lines().filter_map(parse).collect();
    if let Some(exact) = held.iter().find(|h| h.dev == Some(dev) && h.ino == ino) {
        return Some(exact.pid);
    }
    let mut same_ino = held.iter().filter(|h| h.ino == ino);
    match (same_ino.next(), same_ino.next()) {
        (Some(only), None) => Some(only.pid),
        _ => None,
    }
}

/// One held exclusive `flock` of `/proc/locks`.
struct Held {
    /// (major, minor) of its file's device.
    dev: Option<(u32, u32)>,
    ino: u64,
    pid: u32,
}

/// A held exclusive `flock` of `/proc/locks` ("1: FLOCK  ADVISORY  WRITE 27565 fe:00:9977868
/// 0 EOF"). Waiters ("1: -> FLOCK ...") and other locks are `None`.
fn parse(line: &str) -> Option<Held> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [_, "FLOCK", _, "WRITE", pid, file, ..] = fields.as_slice() else {
        return None;
    };
    let mut parts = file.split(':');
    let major = u32::from_str_radix(parts.next()?, 16).ok();
    let minor = u32::from_str_radix(parts.next()?, 16).ok();
    let ino = parts.next()?.parse().ok()?;
    // A pid the reader's namespace cannot see shows as 0 (or, on old kernels, -1).
    let pid = pid.parse::<i64>().ok()?.max(0) as u32;
    Some(Held {
        dev: major.zip(minor),
        ino,
        pid,
    })
}

/// The run `pid` is, described from `/proc` (`None` when it has ended meanwhile).
pub fn describe(pid: u32) -> Option<RunOwner> {
    if pid == 0 {
        return Some(RunOwner {
            pid: 0,
            started_at: "at a time not visible from here".into(),
            command: "a process in another PID namespace (a container sharing this lock file)"
                .into(),
            user: String::new(),
        });
    }
    let started = concbench_sys::process::started_at(pid)?;
    let command = concbench_sys::process::command_line(pid)?;
    let user = concbench_sys::process::uid(pid).map_or(String::new(), concbench_sys::users::name);
    Some(RunOwner {
        pid,
        started_at: humantime::format_rfc3339_seconds(started).to_string(),
        command,
        user,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCKS: &str = "\
1: POSIX  ADVISORY  WRITE 900 fe:00:42 0 EOF
2: FLOCK  ADVISORY  READ  901 fe:00:42 0 EOF
3: FLOCK  ADVISORY  WRITE 27565 fe:00:9977868 0 EOF
3: -> FLOCK  ADVISORY  WRITE 27600 fe:00:9977868 0 EOF
4: FLOCK  ADVISORY  WRITE 0 00:2a:77 0 EOF
5: FLOCK  ADVISORY  WRITE 31 00:2b:77 0 EOF
";

    #[test]
    fn the_holder_is_the_exclusive_flock_on_that_file_not_a_waiter() {
        assert_eq!(find(LOCKS, (0xfe, 0), 9977868), Some(27565));
        assert_eq!(find(LOCKS, (0xfe, 0), 42), None, "not a flock, or shared");
        // A device stat shows differently: the one flock on that inode number.
        assert_eq!(find(LOCKS, (0x09, 0), 9977868), Some(27565));
        // Two candidates on other devices: no guess.
        assert_eq!(find(LOCKS, (0x09, 0), 77), None);
        // Shown without its pid (another PID namespace).
        assert_eq!(find(LOCKS, (0, 0x2a), 77), Some(0));
    }

    #[test]
    fn a_live_process_is_described_and_an_ended_one_is_not() {
        let me = describe(std::process::id()).expect("this process");
        assert_eq!(me.pid, std::process::id());
        assert!(me.started_at.ends_with('Z'), "{}", me.started_at);
        assert!(!me.user.is_empty() && !me.command.is_empty(), "{me:?}");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        if concbench_sys::process::start_ticks(pid).is_none() {
            assert_eq!(describe(pid), None);
        }
    }
}
