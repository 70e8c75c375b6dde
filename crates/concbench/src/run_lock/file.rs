//! Opening a file in a directory every user writes (`/tmp`) without being turned against anyone:
//! no symbolic link is followed (`O_NOFOLLOW`: on a machine with `fs.protected_symlinks=0` a link
//! planted there would otherwise make root's run create or write the file it points to), nothing
//! blocks on a FIFO planted in its place (`O_NONBLOCK`), only a regular file is used, and a file
//! another user made is never truncated or rewritten. A file created here gets its mode set
//! explicitly, whatever the umask, so that every other user can open it too.
//!
//! Why by hand with rustix rather than `std::fs::OpenOptions`: `OpenOptions` cannot create a file
//! opened read-only, and the lock file is only ever read (`flock` needs no write access, which is
//! what lets a user lock root's 0644 file).

use anyhow::{anyhow, Result};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

/// How a shared file is opened: read-only (the lock) or for appending (the list of forced runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Append,
}

impl Access {
    fn flags(self) -> OFlags {
        let base = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        match self {
            Access::Read => base | OFlags::RDONLY,
            Access::Append => base | OFlags::WRONLY | OFlags::APPEND,
        }
    }
}

/// Open `path`, creating it with `mode` when it does not exist. `what` names the file in errors
/// ("the run lock"). The error says which file, whose it is, and what to do.
pub fn open_shared(path: &Path, access: Access, mode: u32, what: &str) -> Result<File> {
    // Two runs may both find no file and both try to create it: the loser opens the winner's.
    for _ in 0..8 {
        match rustix::fs::open(path, access.flags(), Mode::empty()) {
            Ok(fd) => return checked(File::from(fd), path, access, what),
            Err(Errno::NOENT) => {}
            Err(e) => return Err(refusal(path, what, &opening_failed(e))),
        }
        let create = access.flags() | OFlags::CREATE | OFlags::EXCL;
        match rustix::fs::open(path, create, Mode::from_raw_mode(mode)) {
            Ok(fd) => {
                // The umask took bits away from `mode`: give them back, so other users can open it.
                rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(|e| {
                    anyhow!(
                        "setting the mode of {what} {} to {mode:o}: {e}",
                        path.display()
                    )
                })?;
                return Ok(File::from(fd));
            }
            Err(Errno::EXIST) => continue,
            Err(e) => {
                return Err(anyhow!(
                    "creating {what} {} failed: {e}; set CONCBENCH_LOCK to a file in a directory \
                     you can write to",
                    path.display()
                ))
            }
        }
    }
    Err(anyhow!(
        "{what} {} keeps appearing and disappearing; try again, or set CONCBENCH_LOCK to a file \
         of your own",
        path.display()
    ))
}

/// Why an existing file could not be opened, in words.
fn opening_failed(e: Errno) -> String {
    match e {
        Errno::LOOP => "it is a symbolic link, and concbench follows no link in a directory \
                        other users write to"
            .to_string(),
        Errno::ACCESS | Errno::PERM => format!("this user may not open it ({e})"),
        Errno::NXIO => "it is a socket or a FIFO without a reader, not a regular file".into(),
        e => format!("opening it failed ({e})"),
    }
}

/// The opened file, if it is one this run may use: a regular file, and, to append to, one with
/// a single name (a hard link to another file planted here would have two).
fn checked(file: File, path: &Path, access: Access, what: &str) -> Result<File> {
    let meta = file
        .metadata()
        .map_err(|e| anyhow!("reading the status of {what} {}: {e}", path.display()))?;
    let kind = meta.file_type();
    let wrong = if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("it is a directory")
    } else if kind.is_fifo() {
        Some("it is a FIFO")
    } else if kind.is_socket() {
        Some("it is a socket")
    } else {
        Some("it is a device")
    };
    let wrong = wrong.map(str::to_string).or_else(|| {
        (access == Access::Append && meta.nlink() != 1).then(|| {
            format!(
                "it has {} names (a hard link), so appending could change another file",
                meta.nlink()
            )
        })
    });
    match wrong {
        Some(why) => Err(refusal(
            path,
            what,
            &format!("{why}, not a file of concbench's"),
        )),
        None => Ok(file),
    }
}

/// "{what} {path} (owned by USER, mode 0644) cannot be used: WHY; FIX".
pub fn refusal(path: &Path, what: &str, why: &str) -> anyhow::Error {
    let whose = match path.symlink_metadata() {
        Ok(m) => format!(
            " (owned by {}, mode {:04o})",
            concbench_sys::users::name(m.uid()),
            m.permissions().mode() & 0o7777
        ),
        Err(_) => String::new(),
    };
    anyhow!(
        "{what} {}{whose} cannot be used: {why}; ask its owner or root to remove it (`rm {}`), \
         or set CONCBENCH_LOCK to a file of your own (runs of other users are then not kept \
         from measuring beside yours)",
        path.display(),
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_gets_its_mode_whatever_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        // SAFETY: umask only changes this process's mask; restored below.
        let old = unsafe { libc::umask(0o077) };
        let opened = open_shared(&path, Access::Read, 0o644, "the run lock");
        // SAFETY: as above.
        unsafe { libc::umask(old) };
        opened.unwrap();
        let mode = path.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
    }

    #[test]
    fn regression_a_link_planted_in_tmp_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        let link = dir.path().join("lock");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        for access in [Access::Read, Access::Append] {
            let err = open_shared(&link, access, 0o644, "the run lock").unwrap_err();
            let text = format!("{err:#}");
            assert!(
                text.contains("symbolic link") && text.contains(&link.display().to_string()),
                "{text}"
            );
            assert!(
                text.contains("CONCBENCH_LOCK") && text.contains("owned by"),
                "{text}"
            );
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        // A dangling link is not followed to create its target either.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("made-by-root"), &dangling).unwrap();
        assert!(open_shared(&dangling, Access::Read, 0o644, "the run lock").is_err());
        assert!(!dir.path().join("made-by-root").exists());
    }

    #[test]
    fn a_fifo_or_a_directory_in_its_place_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o666),
            0,
        )
        .unwrap();
        let text = format!(
            "{:#}",
            open_shared(&fifo, Access::Read, 0o644, "x").unwrap_err()
        );
        assert!(text.contains("FIFO"), "{text}");
        let text = format!(
            "{:#}",
            open_shared(dir.path(), Access::Read, 0o644, "x").unwrap_err()
        );
        assert!(text.contains("directory"), "{text}");
    }

    #[test]
    fn a_hard_link_is_not_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other");
        std::fs::write(&other, "keep me").unwrap();
        let linked = dir.path().join("lock.beside");
        std::fs::hard_link(&other, &linked).unwrap();
        let text = format!(
            "{:#}",
            open_shared(&linked, Access::Append, 0o666, "x").unwrap_err()
        );
        assert!(text.contains("hard link"), "{text}");
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "keep me");
    }
}
