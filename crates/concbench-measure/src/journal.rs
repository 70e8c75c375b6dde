//! What concbench changed in sysfs (an idle state disabled for `switch.wake.thread`'s
//! `idle=max_<state>`), written down before the change, so that it is undone even where no
//! destructor runs.
//!
//! Why a file: the worker that disables a state is killed, not stopped, when the user presses
//! Ctrl-C a second time (the coordinator exits at once and the kernel sends the worker SIGKILL,
//! `PR_SET_PDEATHSIG`), or when it overruns its time limit. Its guard's `Drop` never runs, and
//! the CPUs stayed out of their deeper states until the next reboot. So a process writes each
//! file's previous value to its journal before writing the file; the coordinator's
//! second-signal handler writes back its current worker's (and its own) values before it exits
//! ([`restore_on_exit`], async-signal-safe), and the coordinator restores whatever a worker
//! left when the worker ends ([`worker_ended`]).
//!
//! The journal is `run/concbench/idle-restore.<pid>` below the [`Root`] (so under `/run`,
//! root-only like the change itself), one `path<TAB>value` line per file.

use crate::idle::Root;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

const PREFIX: &str = "run/concbench/idle-restore.";

/// The journal process `pid` writes.
pub fn path(root: &Root, pid: u32) -> PathBuf {
    root.path(&format!("{PREFIX}{pid}"))
}

fn own(root: &Root) -> PathBuf {
    path(root, std::process::id())
}

/// Note `previous` as the value to restore at `file`, before the file is changed.
pub fn record(root: &Root, file: &std::path::Path, previous: &str) -> std::io::Result<()> {
    let journal = own(root);
    if let Some(dir) = journal.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal)?;
    writeln!(f, "{}\t{}", file.display(), previous.trim())
}

/// The change at `file` was undone by its guard: the journal forgets it (and goes when empty).
pub fn forget(root: &Root, file: &std::path::Path) {
    let journal = own(root);
    let Ok(text) = std::fs::read_to_string(&journal) else {
        return;
    };
    let prefix = format!("{}\t", file.display());
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with(&prefix))
        .map(|l| format!("{l}\n"))
        .collect();
    if kept.is_empty() {
        remove(&journal);
    } else {
        let _ = std::fs::write(&journal, kept);
    }
}

/// Remove a journal, and its directory when no other journal is left in it.
fn remove(journal: &std::path::Path) {
    let _ = std::fs::remove_file(journal);
    if let Some(dir) = journal.parent() {
        // Fails, as it should, while another process's journal is there.
        let _ = std::fs::remove_dir(dir);
    }
}

/// Write back every value in process `pid`'s journal and remove it; the number of files
/// restored.
pub fn restore(root: &Root, pid: u32) -> usize {
    let journal = path(root, pid);
    let Ok(text) = std::fs::read_to_string(&journal) else {
        return 0;
    };
    // Newest first, so a file written twice ends at its first value.
    let restored = text
        .lines()
        .rev()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(file, value)| std::fs::write(file, value).is_ok())
        .count();
    remove(&journal);
    restored
}

/// The journals' common prefix below the root, as bytes made before any signal can arrive
/// (a leaked `Vec`: a handler may be reading the previous one when it is replaced).
static ARMED: AtomicPtr<Vec<u8>> = AtomicPtr::new(std::ptr::null_mut());
/// The worker the coordinator waits for (0: none), whose journal its handler replays.
static WORKER: AtomicU32 = AtomicU32::new(0);

/// Prepare [`restore_on_exit`] for journals below `root` (the last call wins).
pub fn arm(root: &Root) {
    let prefix = Box::new(root.path(PREFIX).as_os_str().as_bytes().to_vec());
    ARMED.store(Box::into_raw(prefix), Ordering::SeqCst);
}

/// The coordinator started worker `pid`: a second signal now replays its journal too.
pub fn worker_started(pid: u32) {
    WORKER.store(pid, Ordering::SeqCst);
}

/// Worker `pid` ended, however: whatever it left disabled is restored (the number of files).
pub fn worker_ended(root: &Root, pid: u32) -> usize {
    let _ = WORKER.compare_exchange(pid, 0, Ordering::SeqCst, Ordering::SeqCst);
    restore(root, pid)
}

/// Write back every value in the journals of this process and of its current worker, with
/// async-signal-safe calls only (open, read, write, close, unlink; no allocation), for a signal
/// handler about to `_exit`.
pub fn restore_on_exit() {
    // SAFETY: a non-null pointer came from `Box::into_raw` in `arm` and is never freed.
    let Some(prefix) = (unsafe { ARMED.load(Ordering::SeqCst).as_ref() }) else {
        return;
    };
    // SAFETY: getpid has no preconditions.
    let own = unsafe { libc::getpid() } as u32;
    for pid in [own, WORKER.load(Ordering::SeqCst)] {
        let mut name = [0u8; 1024];
        if pid == 0 || !journal_name(prefix, pid, &mut name) {
            continue;
        }
        // SAFETY: `name` is NUL-terminated (see `journal_name`).
        unsafe { replay(name.as_ptr().cast()) };
        // Its directory too, when no other journal is left in it (rmdir fails otherwise).
        let end = name.iter().position(|&b| b == 0).unwrap_or(0);
        if let Some(slash) = name[..end].iter().rposition(|&b| b == b'/') {
            name[slash] = 0;
            // SAFETY: `name` is now the NUL-terminated directory of the journal.
            unsafe { libc::rmdir(name.as_ptr().cast()) };
        }
    }
}

/// `prefix` followed by `pid` in decimal and a NUL, in `out`; false when it does not fit.
fn journal_name(prefix: &[u8], mut pid: u32, out: &mut [u8; 1024]) -> bool {
    let mut digits = [0u8; 10];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (pid % 10) as u8;
        n += 1;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    if prefix.len() + n + 1 > out.len() {
        return false;
    }
    out[..prefix.len()].copy_from_slice(prefix);
    for (k, d) in digits[..n].iter().rev().enumerate() {
        out[prefix.len() + k] = *d;
    }
    out[prefix.len() + n] = 0;
    true
}

/// Replay one journal: each `path\tvalue\n` line, written to `path` (lines up to 1 KiB, a
/// journal up to 16 KiB: a handful of idle-state files).
///
/// # Safety
/// `journal` must be a valid NUL-terminated path.
unsafe fn replay(journal: *const libc::c_char) {
    let mut text = [0u8; 16 * 1024];
    // SAFETY: the caller's path; `text` is writable for its length.
    let n = unsafe {
        let fd = libc::open(journal, libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return;
        }
        let n = libc::read(fd, text.as_mut_ptr().cast(), text.len());
        libc::close(fd);
        n
    };
    if n <= 0 {
        return;
    }
    for line in text[..n as usize].split(|&b| b == b'\n') {
        let Some(tab) = line.iter().position(|&b| b == b'\t') else {
            continue;
        };
        let (file, value) = (&line[..tab], &line[tab + 1..]);
        let mut name = [0u8; 1024];
        if file.len() >= name.len() {
            continue;
        }
        name[..file.len()].copy_from_slice(file);
        // SAFETY: `name` is NUL-terminated (zeroed past `file`); `value` is readable.
        unsafe {
            let fd = libc::open(name.as_ptr().cast(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd >= 0 {
                libc::write(fd, value.as_ptr().cast(), value.len());
                libc::close(fd);
            }
        }
    }
    // SAFETY: the caller's path.
    unsafe { libc::unlink(journal) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_workers_change_is_restored_by_its_coordinator() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        let file = dir.path().join("disable");
        std::fs::write(&file, "1\n").unwrap();
        record(&root, &file, "0\n").unwrap();
        // The worker was killed: nothing forgot the change.
        assert_eq!(restore(&root, std::process::id()), 1);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "0");
        assert!(!path(&root, std::process::id()).exists());
        assert!(
            !dir.path().join("run/concbench").exists(),
            "nothing left in /run"
        );
        assert_eq!(restore(&root, std::process::id()), 0);
    }

    #[test]
    fn a_journals_name_is_made_without_allocating() {
        let mut out = [0u8; 1024];
        assert!(journal_name(b"/run/x.", 40213, &mut out));
        assert_eq!(&out[..14], b"/run/x.40213\0\0");
        assert!(journal_name(b"p", 0, &mut out));
        assert_eq!(&out[..3], b"p0\0");
        assert!(!journal_name(&[b'a'; 1020], 12345, &mut out));
    }

    #[test]
    fn a_change_its_guard_undid_is_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        record(&root, &a, "0").unwrap();
        record(&root, &b, "0").unwrap();
        forget(&root, &a);
        let text = std::fs::read_to_string(path(&root, std::process::id())).unwrap();
        assert_eq!(text, format!("{}\t0\n", b.display()));
        forget(&root, &b);
        assert!(!path(&root, std::process::id()).exists());
    }
}
