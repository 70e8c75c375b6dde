//! Renderers: the same result document as a terminal table, markdown, CSV or JSON.
//!
//! One exporter per file behind the [`Exporter`] trait (hyperfine's layout). Renderers only read
//! the document: no clock, no measurement, no statistics beyond what the document carries.

pub mod advice;
pub mod anatomy;
pub mod answer;
pub mod compare;
mod csv;
mod exporter;
pub mod fleet;
pub mod format;
mod html;
mod json;
mod markdown;
pub mod replicate;
pub mod runtimes;
pub mod s2;
mod sections;
pub mod terminal;

pub use crate::csv::Csv;
pub use exporter::Exporter;
pub use html::Html;
pub use json::Json;
pub use markdown::Markdown;
pub use terminal::{Files, Terminal};
