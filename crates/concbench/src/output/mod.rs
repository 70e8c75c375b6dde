//! The one owner of a measuring command's outputs: the result document (`--json`, or a new file
//! in `concbench-results/`), the pages (`--markdown`, `--html`) and the history. Every path and
//! the history are checked before measuring ([`Outputs::ready`]: a run is never lost to a typo);
//! after it, [`Outputs::write`] writes them in that order, a write that fails going to `$TMPDIR`
//! instead ([`mod@write`]), and says what it wrote.

pub mod preflight;
pub mod write;

use crate::stdout::errln;
use anyhow::Result;
use concbench_core::ResultDoc;
use concbench_report::{Exporter, Files, Html, Json, Markdown};
use concbench_store::Store;
use std::path::{Path, PathBuf};

pub use write::{write_output, DEFAULT_DIR};

/// The pages a measuring command was asked for beside its document.
#[derive(Clone, Copy, Default)]
pub struct Pages<'a> {
    pub markdown: Option<&'a Path>,
    pub html: Option<&'a Path>,
}

impl<'a> Pages<'a> {
    /// Each page asked for with the flag that asked for it (for the checks before measuring).
    pub fn flagged(&self) -> Vec<(&'static str, &'a Path)> {
        [("--markdown", self.markdown), ("--html", self.html)]
            .into_iter()
            .filter_map(|(flag, path)| Some((flag, path?)))
            .collect()
    }
}

/// What a measuring command writes: its document, its pages, and the history it stores in
/// (`None` under `--no-store`, and for commands that keep no history).
pub struct Outputs<'a> {
    /// Names the default document (`concbench-results/<command>-<time>.json`) and the history's
    /// record of the run.
    command: &'static str,
    json: Option<&'a Path>,
    pages: Pages<'a>,
    store: Option<Store>,
}

/// What [`Outputs::write`] did: the files for the summary to point at, and what failed.
pub struct Written {
    pub files: Files,
    /// The first write that failed (the document or a page), even after its fallback.
    written: Result<()>,
    /// Storing the run in the history.
    stored: Result<()>,
}

impl Written {
    /// Every failure of the writing, the document's or a page's first, then the history's.
    pub fn result(self) -> Result<()> {
        self.written?;
        self.stored
    }
}

impl<'a> Outputs<'a> {
    /// Check, before measuring, that the document and every page can be written and that the
    /// history (opened from `store`, when given) takes writes: refused with exit 2, nothing
    /// measured.
    pub fn ready(
        command: &'static str,
        json: Option<&'a Path>,
        pages: Pages<'a>,
        store: Option<&crate::args::StoreArgs>,
    ) -> Result<Self> {
        preflight::check_before_measuring(json, &pages.flagged())?;
        let store = match store {
            Some(args) => crate::db::for_writing(args)?,
            None => None,
        };
        Ok(Self {
            command,
            json,
            pages,
            store,
        })
    }

    /// A measuring command's outputs: `--json`, the pages, the history of `--db`/`--no-store`.
    pub fn of_measuring(
        command: &'static str,
        args: &'a crate::args::MeasureArgs,
        pages: Pages<'a>,
    ) -> Result<Self> {
        Self::ready(command, args.json.as_deref(), pages, Some(&args.store))
    }

    /// The history the run will be stored in, for judging it over the stored runs first.
    pub fn history(&mut self) -> Option<&mut Store> {
        self.store.as_mut()
    }

    /// Write the document, then the pages, then store the run: the history whatever became of
    /// the files (its message says where the document is, to store it later).
    pub fn write(&mut self, doc: &ResultDoc) -> Written {
        let document = self.write_document(doc);
        let page = match &document {
            Ok(_) => self.write_pages(doc),
            Err(_) => Ok(None),
        };
        let stored = self.store(doc, document.as_ref().ok().map(PathBuf::as_path));
        let files = Files {
            document: document.as_ref().ok().cloned(),
            page: page.as_ref().ok().cloned().flatten(),
        };
        Written {
            files,
            written: document.and(page).map(drop),
            stored,
        }
    }

    /// The document (`--json` or the default path); returns where it went.
    fn write_document(&self, doc: &ResultDoc) -> Result<PathBuf> {
        let label = write::document_label(self.json);
        let text = Json.render(doc)?;
        // An explicit --json path is the user's to overwrite; the default folder never is.
        let path = match self.json {
            Some(path) => write::write_or_fallback(label, path, &text)?,
            None => write::write_new_or_fallback(
                label,
                &default_json_path(self.command, &doc.started_at),
                &text,
            )?,
        };
        errln!("concbench: wrote {}", path.display());
        Ok(path)
    }

    /// The pages asked for, saying where each went; returns where the HTML page is.
    fn write_pages(&self, doc: &ResultDoc) -> Result<Option<PathBuf>> {
        if let Some(md) = self.pages.markdown {
            let written = write::write_or_fallback("--markdown", md, &Markdown.render(doc)?)?;
            errln!("concbench: wrote {}", written.display());
        }
        let Some(html) = self.pages.html else {
            return Ok(None);
        };
        let written = write::write_or_fallback("--html", html, &Html.render(doc)?)?;
        errln!(
            "concbench: wrote {} (open it in a browser)",
            written.display()
        );
        Ok(Some(written))
    }

    /// Store the run in the history (nothing without one). A failure fails the command, with
    /// exit code 1, after saying that the run was measured, where its document is, and how to
    /// store it later: the history was checked before measuring, so this is a failure of the
    /// moment (a full disk, a lost server), not a request to refuse. Regression: such a run said
    /// "warning: not stored" and exited 0.
    fn store(&mut self, doc: &ResultDoc, document: Option<&Path>) -> Result<()> {
        let Some(store) = self.store.as_mut() else {
            return Ok(());
        };
        match store.save(doc, self.command) {
            Ok(id) => {
                errln!(
                    "concbench: stored as run {id} in {} (`concbench history`)",
                    store.path().display()
                );
                Ok(())
            }
            Err(e) => Err(e.context(format!(
                "the run was measured but not stored in the history {}: {}",
                store.path().display(),
                store_later(document)
            ))),
        }
    }
}

/// How to store a run later whose storing failed: from its document, when there is one.
fn store_later(document: Option<&Path>) -> String {
    match document {
        Some(path) => format!(
            "the document {} has everything; `concbench push {}` stores it once the history \
             takes writes again",
            path.display(),
            path.display()
        ),
        None => "and its document could not be written either".to_string(),
    }
}

/// `concbench-results/<command>-<time>.json` in the current directory.
pub(crate) fn default_json_path(command: &str, started_at: &str) -> PathBuf {
    let stamp: String = started_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from(DEFAULT_DIR).join(format!("{command}-{stamp}.json"))
}
