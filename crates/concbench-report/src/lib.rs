//! Renderers: the same result document as a terminal table, markdown, CSV or JSON, and in the
//! formats other tools read (Bencher's metric JSON, benchstat's text).
//!
//! One exporter per file behind the [`Exporter`] trait (hyperfine's layout). Renderers only read
//! the document: no clock, no measurement, no statistics beyond what the document carries.

pub mod advice;
pub mod anatomy;
pub mod answer;
mod bencher;
mod benchstat;
pub mod capacity;
pub mod cjk_font;
pub mod compare;
pub mod compare_json;
pub mod crossover;
mod csv;
mod exporter;
pub mod fleet;
pub mod format;
mod html;
mod json;
mod layout;
mod markdown;
pub mod replicate;
pub mod runtimes;
pub mod s2;
mod sections;
pub mod terminal;

pub use crate::csv::Csv;
pub use bencher::{benchmark_name, Bencher};
pub use benchstat::Benchstat;
pub use exporter::Exporter;
pub use html::Html;
pub use json::Json;
pub use markdown::Markdown;
pub use sections::{figures_line, full_run_time};
pub use terminal::{Files, Terminal};
