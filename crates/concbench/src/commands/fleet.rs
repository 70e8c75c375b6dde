//! `concbench fleet` and `report --fleet`: one report across machines, from result files or
//! the history's runs (filtered with `--where`).

use crate::args::{FleetArgs, FleetFilter, ReportArgs};
use crate::db;
use crate::stdout::{errln, out, outln};
use anyhow::Result;
use concbench_core::{ResultDoc, UsageError};
use concbench_report::fleet::{self, Fleet, Submitted};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn fleet(args: FleetArgs) -> Result<ExitCode> {
    let submitted = if args.files.is_empty() {
        from_store(args.db.as_deref(), &args.filters)?
    } else {
        from_files(&args.files, &args.filters)?
    };
    render(submitted, &args.filters, args.html, args.markdown)
}

/// `report --fleet [FILE...]` (as `fleet [FILE...]`): the files when given, else the history.
pub fn report_fleet(args: ReportArgs) -> Result<ExitCode> {
    let submitted = if args.files.is_empty() {
        from_store(args.db.as_deref(), &args.filters)?
    } else {
        from_files(&args.files, &args.filters)?
    };
    render(submitted, &args.filters, args.html, args.markdown)
}

fn render(
    submitted: Option<Vec<Submitted>>,
    filters: &[FleetFilter],
    html: Option<PathBuf>,
    markdown: Option<PathBuf>,
) -> Result<ExitCode> {
    let Some(submitted) = submitted else {
        return Ok(ExitCode::SUCCESS);
    };
    if submitted.is_empty() {
        if filters.is_empty() {
            outln!("No runs to report on: `concbench run` (or `concbench push`) stores them.");
            return Ok(ExitCode::SUCCESS);
        }
        return Err(UsageError::new(
            "--where: no run matches; `concbench history` lists the stored runs (hosts, kernels)",
        )
        .into());
    }
    let fleet = Fleet::new(submitted);
    out!("{}", fleet::text(&fleet, None));
    if let Some(path) = &markdown {
        crate::output::write_output("--markdown", path, &fleet::markdown(&fleet))?;
        errln!("concbench: wrote {}", path.display());
    }
    if let Some(path) = &html {
        crate::output::write_output("--html", path, &fleet::html(&fleet)?)?;
        errln!("concbench: wrote {} (open it in a browser)", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The stored runs that match; `None` (after saying so) when the history does not exist yet.
fn from_store(db: Option<&str>, filters: &[FleetFilter]) -> Result<Option<Vec<Submitted>>> {
    let (location, store) = db::open_existing(db)?;
    let Some(mut store) = store else {
        outln!("No runs stored in {location} yet: `concbench run` stores every run there.");
        return Ok(None);
    };
    let mut out = Vec::new();
    for row in store.runs()? {
        let facts = Facts {
            hostname: &row.hostname,
            machine_id: row.machine_id.as_deref(),
            kernel: &row.kernel,
            labels: &row.labels,
        };
        if !filters.iter().all(|f| facts.matches(f)) {
            continue;
        }
        if let Some(doc) = store.load(row.id)? {
            out.push(Submitted {
                source: format!("run {}", row.id),
                doc,
            });
        }
    }
    Ok(Some(out))
}

fn from_files(files: &[PathBuf], filters: &[FleetFilter]) -> Result<Option<Vec<Submitted>>> {
    let mut out = Vec::new();
    for file in files {
        let doc = crate::document::load(file, "fleet")?;
        if filters
            .iter()
            .all(|f| Facts::of(&doc, &doc.labels()).matches(f))
        {
            out.push(Submitted {
                source: file.display().to_string(),
                doc,
            });
        }
    }
    Ok(Some(out))
}

/// What `--where` filters on, from a stored run's row or a document.
struct Facts<'a> {
    hostname: &'a str,
    machine_id: Option<&'a str>,
    kernel: &'a str,
    labels: &'a BTreeMap<String, String>,
}

impl<'a> Facts<'a> {
    fn of(doc: &'a ResultDoc, labels: &'a BTreeMap<String, String>) -> Self {
        Facts {
            hostname: &doc.host.hostname,
            machine_id: doc.host.machine_id.as_deref(),
            kernel: &doc.host.kernel,
            labels,
        }
    }

    fn matches(&self, filter: &FleetFilter) -> bool {
        match filter {
            FleetFilter::Host(h) => {
                self.hostname == h || self.machine_id.is_some_and(|m| m.starts_with(h.as_str()))
            }
            FleetFilter::Kernel(k) => self.kernel.starts_with(k.as_str()),
            FleetFilter::Label(k, v) => self.labels.get(k) == Some(v),
        }
    }
}
