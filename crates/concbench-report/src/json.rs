//! JSON: the result document itself (`concbench/result/v1`), pretty-printed.

use crate::Exporter;
use concbench_core::ResultDoc;

pub struct Json;

impl Exporter for Json {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(doc)? + "\n")
    }
}
