//! Never lose a run to its output paths: `run`, `crossover`, `replicate` and `load` check every
//! file they will write (`--json` or the default folder, `--markdown`, `--html`) before
//! measuring; a write that still fails at the end goes to `$TMPDIR` instead
//! ([`super::write::write_or_fallback`]). A folder the user named that does not exist is
//! refused, not created; the default folder (`concbench-results/`) is concbench's own and is
//! created.

use super::write::DEFAULT_DIR;
use anyhow::Result;
use concbench_core::UsageError;
use std::fs::OpenOptions;
use std::path::Path;

/// Check, before measuring, that the result document and every `(flag, path)` in `others` can
/// be written.
pub fn check_before_measuring(json: Option<&Path>, others: &[(&str, &Path)]) -> Result<()> {
    match json {
        Some(path) => check_writable("--json", path)?,
        None => check_default_dir()?,
    }
    for (flag, path) in others {
        check_writable(flag, path)?;
    }
    Ok(())
}

/// A usage error naming `flag` unless `path` can be written (without changing it if it exists).
pub fn check_writable(flag: &str, path: &Path) -> Result<()> {
    let refuse = |what: String| -> anyhow::Error {
        UsageError::new(format!(
            "{flag}: {what}; pass a path you can write to (checked before measuring, so nothing \
             was measured)"
        ))
        .into()
    };
    if path.is_dir() {
        return Err(refuse(format!(
            "{} is a folder, not a file",
            path.display()
        )));
    }
    if let Some(text) = super::write::missing_folder_text(flag, path) {
        return Err(UsageError::new(format!(
            "{text} (checked before measuring, so nothing was measured)"
        ))
        .into());
    }
    let parent = parent_of(path);
    let probe = if path.exists() {
        // Append without writing: checks permission and leaves the file as it is.
        OpenOptions::new().append(true).open(path).map(drop)
    } else {
        probe_folder(parent)
    };
    probe.map_err(|e| refuse(format!("cannot write {}: {e}", path.display())))
}

/// The default folder must be (or become) a folder this process can write in; the error says
/// what is wrong with it and how to choose another place.
fn check_default_dir() -> Result<()> {
    let dir = Path::new(DEFAULT_DIR);
    let cause = if dir.exists() && !dir.is_dir() {
        Some("it exists and is a file, not a folder".to_string())
    } else {
        std::fs::create_dir_all(dir)
            .and_then(|()| probe_folder(dir))
            .err()
            .map(|e| e.to_string())
    };
    let Some(cause) = cause else {
        return Ok(());
    };
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "the current directory".into());
    Err(UsageError::new(format!(
        "cannot write the result document into {DEFAULT_DIR}/ in {cwd} (its default place): \
         {cause}; run from a folder you can write to, or choose the file with --json FILE \
         (checked before measuring, so nothing was measured)"
    ))
    .into())
}

/// Create and remove a file in `dir`: the only sure test of writing there (permission bits do
/// not tell about read-only mounts, and root ignores them).
fn probe_folder(dir: &Path) -> std::io::Result<()> {
    tempfile::Builder::new()
        .prefix(".concbench-write-check-")
        .tempfile_in(dir)
        .map(drop)
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::write::tests::under_a_file;

    #[test]
    fn writable_paths_pass_and_are_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("old.json");
        std::fs::write(&existing, "keep me").unwrap();
        let new = dir.path().join("new.html");
        check_before_measuring(Some(&existing), &[("--html", &new)]).unwrap();
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
        assert!(!new.exists(), "only checked, not written");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "the probe file is gone: {names:?}");
        let missing = dir.path().join("sub/new.html");
        let err = check_before_measuring(Some(&existing), &[("--html", &missing)]).unwrap_err();
        assert!(format!("{err:#}").contains("mkdir -p"), "{err:#}");
        assert!(!dir.path().join("sub").exists(), "not created");
    }

    #[test]
    fn an_unwritable_path_is_a_usage_error_naming_its_flag() {
        let dir = tempfile::tempdir().unwrap();
        let bad = under_a_file(dir.path());
        let ok = dir.path().join("out.json");
        let err = check_before_measuring(Some(&ok), &[("--markdown", &bad)]).unwrap_err();
        assert!(concbench_core::error::is_usage_error(&err));
        assert!(format!("{err}").starts_with("--markdown: "), "{err}");
        let err = check_before_measuring(Some(dir.path()), &[]).unwrap_err();
        assert!(format!("{err}").contains("is a folder"), "{err}");
    }
}
