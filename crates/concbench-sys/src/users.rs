//! Users: a uid's name for messages ("held by nobody"), and a command to run as root written
//! the way this machine runs one (`sudo` only where it exists, nothing when already root).

use std::ffi::CStr;
use std::path::Path;

/// The login name of `uid` (from the system's user database), or `uid N` when it has none.
pub fn name(uid: u32) -> String {
    let mut buf = vec![0u8; 4096];
    // SAFETY: an all-zero passwd is a valid value of a plain C struct (null pointers, zeros).
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call: `entry` and `found` are live locals, `buf`
    // is writable for `buf.len()` bytes and outlives the strings getpwuid_r points into it.
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            &mut entry,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut found,
        )
    };
    if rc != 0 || found.is_null() || entry.pw_name.is_null() {
        return format!("uid {uid}");
    }
    // SAFETY: getpwuid_r succeeded, so pw_name points to a NUL-terminated string inside `buf`.
    unsafe { CStr::from_ptr(entry.pw_name) }
        .to_string_lossy()
        .into_owned()
}

/// `cmd` as this machine runs it as root: itself when this process is root, `sudo cmd` where
/// sudo is installed, else `su -c 'cmd'` (a machine without sudo still has su).
pub fn as_root(cmd: &str) -> String {
    as_root_with(cmd, is_root(), on_path("sudo"))
}

/// Every `sudo CMD` in a suggestion (`echo 1 | sudo tee FILE, or ...`) rewritten as this machine
/// runs CMD as root ([`as_root`]). CMD ends at a backtick, ", ", " (" or the end of the text.
pub fn fit_root_commands(text: &str) -> String {
    fit_with(text, &|cmd| as_root(cmd))
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

fn fit_with(text: &str, as_root: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("sudo ") {
        out.push_str(&rest[..at]);
        let cmd_and_after = &rest[at + "sudo ".len()..];
        let end = ["`", ", ", " ("]
            .iter()
            .filter_map(|stop| cmd_and_after.find(stop))
            .min()
            .unwrap_or(cmd_and_after.len());
        out.push_str(&as_root(&cmd_and_after[..end]));
        rest = &cmd_and_after[end..];
    }
    out.push_str(rest);
    out
}

fn as_root_with(cmd: &str, root: bool, sudo: bool) -> String {
    match (root, sudo) {
        (true, _) => cmd.to_string(),
        (false, true) => format!("sudo {cmd}"),
        (false, false) => format!("su -c '{cmd}'"),
    }
}

/// Whether an executable `name` is in one of `$PATH`'s directories.
fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            Path::new(&dir)
                .join(name)
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_has_a_name_and_an_unknown_uid_is_shown_as_a_number() {
        assert_eq!(name(0), "root");
        assert_eq!(name(4_000_000_000), "uid 4000000000");
    }

    #[test]
    fn sudo_in_a_suggestion_is_rewritten_for_the_machine() {
        let text = "echo 1 | sudo tee /sys/x (until reboot), or `sudo sysctl a=1` now";
        let root = |cmd: &str| as_root_with(cmd, true, false);
        assert_eq!(
            fit_with(text, &root),
            "echo 1 | tee /sys/x (until reboot), or `sysctl a=1` now"
        );
        let su = |cmd: &str| as_root_with(cmd, false, false);
        assert_eq!(
            fit_with(text, &su),
            "echo 1 | su -c 'tee /sys/x' (until reboot), or `su -c 'sysctl a=1'` now"
        );
        let sudo = |cmd: &str| as_root_with(cmd, false, true);
        assert_eq!(fit_with(text, &sudo), text);
    }

    #[test]
    fn a_root_command_fits_the_machine() {
        let cmd = "concbench run --hold-awake";
        assert_eq!(as_root_with(cmd, true, true), cmd);
        assert_eq!(as_root_with(cmd, false, true), format!("sudo {cmd}"));
        assert_eq!(as_root_with(cmd, false, false), format!("su -c '{cmd}'"));
    }
}
