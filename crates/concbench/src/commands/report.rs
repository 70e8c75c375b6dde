//! `concbench report FILE.json`: re-render a stored result without measuring — the answer on the
//! terminal (every table with `--all`), or only the files `--html`, `--markdown`, `--csv` name,
//! or (`--format`) the document on stdout in a format Bencher or benchstat reads. `--runs N`
//! re-judges the newest stored run over the last N compatible runs of its machine.

use crate::args::{ExportFormat, ReportArgs};
use crate::stdout::{errln, out};
use anyhow::Result;
use concbench_analysis::verdicts;
use concbench_core::{ResultDoc, UsageError, SCHEMA_ID};
use concbench_report::{Bencher, Benchstat, Csv, Exporter, Files, Html, Markdown, Terminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn report(args: ReportArgs) -> Result<ExitCode> {
    if args.fleet {
        return super::fleet::report_fleet(args);
    }
    if let Some(n) = args.runs {
        let mut store = crate::db::open(args.db.as_deref())?;
        let doc = super::pooling::latest_over(&mut store, n)?;
        return render(&doc, &args, None);
    }
    let [file] = args.files.as_slice() else {
        return Err(UsageError::new(
            "report: one FILE at a time (several files make a fleet report: report --fleet \
             FILE...)",
        )
        .into());
    };
    let mut doc = load(file, "report")?;
    if args.rejudge {
        // The samples are the record; verdicts are a reading of them, which a later build may
        // make better. Nothing measured changes.
        doc.verdicts = verdicts::judge(&doc);
    }
    render(&doc, &args, Some(file))
}

/// The document in the format asked for, the files asked for, or the answer on the terminal.
fn render(doc: &ResultDoc, args: &ReportArgs, file: Option<&PathBuf>) -> Result<ExitCode> {
    if let Some(format) = args.format {
        // A conversion for another tool, on stdout (`> bmf.json`): nothing else is printed.
        let exporter: &dyn Exporter = match format {
            ExportFormat::Bencher => &Bencher,
            ExportFormat::Benchstat => &Benchstat,
        };
        out!("{}", exporter.render(doc)?);
        return Ok(ExitCode::SUCCESS);
    }
    let outputs: [(&str, &Option<PathBuf>, &dyn Exporter); 3] = [
        ("--markdown", &args.markdown, &Markdown),
        ("--csv", &args.csv, &Csv),
        ("--html", &args.html, &Html),
    ];
    let mut wrote_any = false;
    for (flag, path, exporter) in outputs {
        let Some(path) = path else { continue };
        crate::output::write_output(flag, path, &exporter.render(doc)?)?;
        errln!("concbench: wrote {}", path.display());
        wrote_any = true;
    }
    // The terminal gets the answer only when no file was asked for: `report --csv OUT` is a
    // conversion, not a reading.
    if !wrote_any {
        let terminal = Terminal {
            width: concbench_report::terminal::stdout_width(),
            all: args.all,
            files: Files {
                document: file.cloned(),
                page: None,
            },
        };
        out!("{}", terminal.render(doc)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// Read and check a result document; every problem is a usage error naming the command (or
/// flag) `who` and the file.
pub fn load(path: &Path, who: &str) -> Result<ResultDoc> {
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
