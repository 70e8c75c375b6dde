//! The one trait every output format implements.

use concbench_core::ResultDoc;

pub trait Exporter {
    /// The whole document in this format.
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String>;
}
