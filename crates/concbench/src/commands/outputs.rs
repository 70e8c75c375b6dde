//! Never lose a run to its output paths: `run` and `replicate` check every file they will write
//! (`--json` or the default folder, `--markdown`, `--html`) before measuring, and a write that
//! still fails at the end goes to `$TMPDIR` instead, with a note saying where.

use anyhow::Result;
use concbench_core::UsageError;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where result documents go without `--json`: this folder in the current directory.
pub const DEFAULT_DIR: &str = "concbench-results";

/// What names the result document's destination in messages: the flag, or the default folder.
pub fn document_label(json: Option<&Path>) -> &'static str {
    match json {
        Some(_) => "--json",
        None => "the default result folder",
    }
}

/// Check, before measuring, that the result document and every `(flag, path)` in `others` can
/// be written. Creates missing parent folders (the write at the end would create them anyway).
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
fn check_writable(flag: &str, path: &Path) -> Result<()> {
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
    let parent = parent_of(path);
    std::fs::create_dir_all(parent).map_err(|e| {
        refuse(format!(
            "cannot create the folder {}: {e}",
            parent.display()
        ))
    })?;
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

/// Write `text` to `path` (as [`super::write_output`]); when that fails, write it to a new file
/// of the same name in `$TMPDIR` and say so. Returns the path written.
pub fn write_or_fallback(label: &str, path: &Path, text: &str) -> Result<PathBuf> {
    write_or_fallback_in(label, path, text, &std::env::temp_dir())
}

fn write_or_fallback_in(label: &str, path: &Path, text: &str, fallback: &Path) -> Result<PathBuf> {
    let Err(first) = super::write_output(label, path, text) else {
        return Ok(path.to_path_buf());
    };
    let stem = path
        .file_stem()
        .map_or("concbench".into(), |s| s.to_string_lossy());
    let suffix = path
        .extension()
        .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
    let kept = tempfile::Builder::new()
        .prefix(&format!("{stem}-"))
        .suffix(&suffix)
        .tempfile_in(fallback)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.keep().map_err(|e| e.error)
        });
    match kept {
        Ok((_, written)) => {
            eprintln!(
                "concbench: warning: {first:#}; wrote it to {} instead",
                written.display()
            );
            Ok(written)
        }
        Err(e) => Err(first.context(format!(
            "writing it to {} instead failed too: {e}",
            fallback.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path no one can write: its "folder" is a regular file.
    fn under_a_file(dir: &Path) -> PathBuf {
        let file = dir.join("a-file");
        std::fs::write(&file, "").unwrap();
        file.join("out.json")
    }

    #[test]
    fn writable_paths_pass_and_are_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("old.json");
        std::fs::write(&existing, "keep me").unwrap();
        let new = dir.path().join("sub/new.html");
        check_before_measuring(Some(&existing), &[("--html", &new)]).unwrap();
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
        assert!(!new.exists(), "only checked, not written");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub")).unwrap().collect();
        assert!(names.is_empty(), "the probe file is gone: {names:?}");
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

    #[test]
    fn a_failed_write_lands_in_the_fallback_folder() {
        let dir = tempfile::tempdir().unwrap();
        let fallback = tempfile::tempdir().unwrap();
        let bad = under_a_file(dir.path());
        let written = write_or_fallback_in("--json", &bad, "{}", fallback.path()).unwrap();
        assert_eq!(written.parent().unwrap(), fallback.path());
        let name = written.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("out-") && name.ends_with(".json"),
            "{name}"
        );
        assert_eq!(std::fs::read_to_string(&written).unwrap(), "{}");
    }

    #[test]
    fn when_the_fallback_fails_too_both_causes_are_told() {
        let dir = tempfile::tempdir().unwrap();
        let bad = under_a_file(dir.path());
        let no_fallback = dir.path().join("a-file");
        let err = write_or_fallback_in("--json", &bad, "{}", &no_fallback).unwrap_err();
        let text = format!("{err:#}");
        assert!(
            text.contains("--json: cannot") && text.contains("failed too"),
            "{text}"
        );
    }
}
