//! Reading a result document from a file, for every command that takes one (`report`,
//! `compare`, `fleet`, `push`, `advise --from`): one check of the file and its schema, one wording
//! of what is wrong with it.

use concbench_core::{ResultDoc, UsageError, SCHEMA_ID};
use std::path::Path;

/// Read and check a result document; every problem is a usage error naming the command (or
/// flag) `who` and the file.
pub fn load(path: &Path, who: &str) -> anyhow::Result<ResultDoc> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| {
        UsageError::new(format!(
            "{who}: cannot read {shown}: {e}; pass a file written by `concbench run --json`"
        ))
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        UsageError::new(format!(
            "{who}: {shown} is not JSON ({e}); pass a file written by `concbench run --json`"
        ))
    })?;
    if value.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA_ID) {
        return Err(UsageError::new(format!(
            "{who}: {shown} is not a concbench result (its \"schema\" is not \"{SCHEMA_ID}\")"
        ))
        .into());
    }
    let doc = serde_json::from_value(value)
        .map_err(|e| UsageError::new(format!("{who}: {shown} does not match {SCHEMA_ID}: {e}")))?;
    Ok(doc)
}
