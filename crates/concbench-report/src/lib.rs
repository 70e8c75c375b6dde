//! Renderers: the same result document as a terminal table, markdown, CSV or JSON.
//!
//! One exporter per file behind the [`Exporter`] trait (hyperfine's layout). Renderers only read
//! the document: no clock, no measurement, no statistics beyond what the document carries.

mod csv;
mod exporter;
pub mod format;
mod json;
mod markdown;
pub mod runtimes;
mod sections;
mod terminal;

pub use crate::csv::Csv;
pub use exporter::Exporter;
pub use json::Json;
pub use markdown::Markdown;
pub use terminal::Terminal;
