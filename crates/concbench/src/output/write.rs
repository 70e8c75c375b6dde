//! Writing an output file, with an error that names the flag it came from; and, for a run's
//! outputs, a fallback: a write that fails at the end of a run goes to `$TMPDIR` instead, so the
//! measurement is not lost (the paths were checked before measuring: [`super::preflight`]).

use crate::stdout::errln;
use anyhow::Result;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where result documents go without `--json`: this folder in the current directory.
pub const DEFAULT_DIR: &str = "concbench-results";

/// Write `text` to `path`, naming the flag in the error. A folder that does not exist is
/// refused, not created (as `hyperfine --export-json` does): a typo must not scatter folders,
/// least of all as root.
pub fn write_output(flag: &str, path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    if let Some(refused) = missing_folder(flag, path) {
        return Err(refused);
    }
    std::fs::write(path, text).map_err(|e| {
        concbench_core::UsageError::new(format!(
            "{flag}: cannot write {}: {e}; choose a writable path",
            path.display()
        ))
    })?;
    Ok(())
}

/// The usage error for an output whose folder does not exist (`None` when it does).
pub fn missing_folder(flag: &str, path: &Path) -> Option<anyhow::Error> {
    missing_folder_text(flag, path).map(|t| concbench_core::UsageError::new(t).into())
}

/// What [`missing_folder`] says: the flag, the folder, and what to do.
pub fn missing_folder_text(flag: &str, path: &Path) -> Option<String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    if parent.is_dir() {
        return None;
    }
    let folder = parent.display();
    Some(if parent.exists() {
        format!("{flag}: {folder} is a file, not a folder; give a file in a folder")
    } else {
        format!(
            "{flag}: the folder {folder} does not exist; create it first (`mkdir -p {folder}`) \
             or give a file in a folder that exists"
        )
    })
}

/// What names the result document's destination in messages: the flag, or the default folder.
pub fn document_label(json: Option<&Path>) -> &'static str {
    match json {
        Some(_) => "--json",
        None => "the default result folder",
    }
}

/// Write `text` to `path` (as [`write_output`]); when that fails, write it to a new file
/// of the same name in `$TMPDIR` and say so. Returns the path written.
pub fn write_or_fallback(label: &str, path: &Path, text: &str) -> Result<PathBuf> {
    write_or_fallback_in(label, path, text, &std::env::temp_dir())
}

/// Write `text` to a new file at `path`, or beside it as `<stem>-2.<ext>`, `-3`, ... when that
/// name is taken: a run never overwrites another's document (two runs started in the same
/// second get the same time stamp). Falls back to `$TMPDIR` as [`write_or_fallback`] does.
pub fn write_new_or_fallback(label: &str, path: &Path, text: &str) -> Result<PathBuf> {
    match create_unique(label, path, text) {
        Ok(written) => Ok(written),
        Err(first) => fall_back(first, path, text, &std::env::temp_dir()),
    }
}

/// Create `path` (or the first free `-N` name beside it) exclusively and write `text` into it.
fn create_unique(label: &str, path: &Path, text: &str) -> Result<PathBuf> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            concbench_core::UsageError::new(format!(
                "{label}: cannot create {}: {e}",
                parent.display()
            ))
        })?;
    }
    for n in 1..=1000 {
        let candidate = if n == 1 {
            path.to_path_buf()
        } else {
            numbered(path, n)
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(mut f) => {
                f.write_all(text.as_bytes()).map_err(|e| {
                    concbench_core::UsageError::new(format!(
                        "{label}: cannot write {}: {e}",
                        candidate.display()
                    ))
                })?;
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(concbench_core::UsageError::new(format!(
                    "{label}: cannot create {}: {e}",
                    candidate.display()
                ))
                .into())
            }
        }
    }
    Err(concbench_core::UsageError::new(format!(
        "{label}: 1000 documents named like {} already exist; clean the folder",
        path.display()
    ))
    .into())
}

/// `dir/stem-N.ext` for `dir/stem.ext`.
fn numbered(path: &Path, n: usize) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or("concbench".into(), |s| s.to_string_lossy());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    path.with_file_name(name)
}

fn write_or_fallback_in(label: &str, path: &Path, text: &str, fallback: &Path) -> Result<PathBuf> {
    match write_output(label, path, text) {
        Ok(()) => Ok(path.to_path_buf()),
        Err(first) => fall_back(first, path, text, fallback),
    }
}

/// After `first` failed: write `text` to a new file named like `path` in `fallback`, and say so.
fn fall_back(first: anyhow::Error, path: &Path, text: &str, fallback: &Path) -> Result<PathBuf> {
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
            errln!(
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
pub(crate) mod tests {
    use super::*;

    /// A path no one can write: its "folder" is a regular file.
    pub(crate) fn under_a_file(dir: &Path) -> PathBuf {
        let file = dir.join("a-file");
        std::fs::write(&file, "").unwrap();
        file.join("out.json")
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

    /// Regression: two runs started in the same second both printed "wrote …T230457Z.json" and
    /// the second overwrote the first's document.
    #[test]
    fn regression_two_documents_with_one_name_are_both_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run-20261126T230457Z.json");
        let a = write_new_or_fallback("x", &path, "first").unwrap();
        let b = write_new_or_fallback("x", &path, "second").unwrap();
        assert_eq!(a, path);
        assert_eq!(b, dir.path().join("run-20261126T230457Z-2.json"));
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "first");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "second");
    }

    /// Regression: `--json` into a folder that did not exist created it (as root, anywhere).
    #[test]
    fn regression_a_missing_folder_is_refused_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/out.json");
        let err = write_output("--json", &path, "{}").unwrap_err();
        assert!(concbench_core::error::is_usage_error(&err));
        let text = format!("{err:#}");
        assert!(
            text.starts_with("--json: the folder") && text.contains("mkdir -p"),
            "{text}"
        );
        assert!(!dir.path().join("no").exists(), "nothing created");
    }

    #[test]
    fn when_the_fallback_fails_too_both_causes_are_told() {
        let dir = tempfile::tempdir().unwrap();
        let bad = under_a_file(dir.path());
        let no_fallback = dir.path().join("a-file");
        let err = write_or_fallback_in("--json", &bad, "{}", &no_fallback).unwrap_err();
        let text = format!("{err:#}");
        assert!(
            text.contains("--json: ") && text.contains("failed too"),
            "{text}"
        );
    }
}
