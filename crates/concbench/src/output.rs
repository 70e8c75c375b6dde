//! Writing an output file, with an error that names the flag it came from; and, for a run's
//! outputs, a fallback: a write that fails at the end of a run goes to `$TMPDIR` instead, so the
//! measurement is not lost (the paths were checked before measuring: `commands/preflight.rs`).

use crate::stdout::errln;
use anyhow::Result;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where result documents go without `--json`: this folder in the current directory.
pub const DEFAULT_DIR: &str = "concbench-results";

/// Write `text` to `path`, naming the flag in the error.
pub fn write_output(flag: &str, path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            concbench_core::UsageError::new(format!(
                "{flag}: cannot create {}: {e}",
                parent.display()
            ))
        })?;
    }
    std::fs::write(path, text).map_err(|e| {
        concbench_core::UsageError::new(format!(
            "{flag}: cannot write {}: {e}; choose a writable path",
            path.display()
        ))
    })?;
    Ok(())
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

fn write_or_fallback_in(label: &str, path: &Path, text: &str, fallback: &Path) -> Result<PathBuf> {
    let Err(first) = write_output(label, path, text) else {
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
