//! What `/proc` says about another process: when it started, its command line, whose it is.
//! A run refused because another holds the machine's run lock names that run from these, read
//! from the kernel rather than from a file the other run wrote (which it may not have written
//! yet, or may have left behind when it ended).

use std::path::Path;
use std::time::{Duration, SystemTime};

/// Field 22 of `/proc/PID/stat`: when the process started, in clock ticks after boot. Together
/// with the pid it names one process: a later process given the same pid starts later.
pub fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// When process `pid` started, on the wall clock (boot time plus its start ticks).
pub fn started_at(pid: u32) -> Option<SystemTime> {
    let ticks = start_ticks(pid)?;
    let boot = boot_time()?;
    // SAFETY: sysconf has no preconditions; it reads a constant of the running system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if per_second <= 0 {
        return None;
    }
    Some(boot + Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// `btime` of `/proc/stat`: when the machine booted.
fn boot_time() -> Option<SystemTime> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let secs: u64 = stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
}

/// The command line of `pid`, its arguments joined by spaces and the program shown by its file
/// name (`concbench run --quick`); `None` when it cannot be read (ended, or hidden by
/// `hidepid`).
pub fn command_line(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let mut words = raw
        .split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned());
    let program = words.next()?;
    let name = Path::new(&program)
        .file_name()
        .map_or(program.clone(), |n| n.to_string_lossy().into_owned());
    Some(
        std::iter::once(name)
            .chain(words)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The real user id of `pid` (the first number of `Uid:` in `/proc/PID/status`).
pub fn uid(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_described_by_its_own_proc_entry() {
        let me = std::process::id();
        let started = started_at(me).expect("a start time");
        let age = SystemTime::now()
            .duration_since(started)
            .expect("started in the past");
        // Started before now, and not before the machine booted (no bound on how long a test
        // process runs: only that the two readings agree in direction).
        assert!(started >= boot_time().unwrap(), "{age:?}");
        let cmd = command_line(me).expect("a command line");
        let exe = std::env::current_exe().unwrap();
        let name = exe.file_name().unwrap().to_string_lossy();
        assert!(cmd.starts_with(&*name), "{cmd} starts with {name}");
        assert_eq!(uid(me), Some(rustix::process::getuid().as_raw()));
    }

    #[test]
    fn an_ended_process_has_nothing_to_say() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        // Reaped: the pid names no process (unless reused within this instant).
        if start_ticks(pid).is_none() {
            assert_eq!(command_line(pid), None);
            assert_eq!(uid(pid), None);
        }
    }
}
