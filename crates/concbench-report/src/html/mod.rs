//! HTML: one self-contained page (stub while the page is built).

use crate::Exporter;
use concbench_core::ResultDoc;

pub struct Html;

impl Exporter for Html {
    fn render(&self, _doc: &ResultDoc) -> anyhow::Result<String> {
        Ok(String::new())
    }
}
