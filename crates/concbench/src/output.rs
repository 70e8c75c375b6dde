//! Writing an output file, with an error that names the flag it came from.

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
