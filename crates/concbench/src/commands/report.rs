//! `concbench report FILE.json`: re-render a stored result without measuring — the answer on the
//! terminal (every table with `--all`), or only the files `--html`, `--markdown`, `--csv` name,
//! or (`--format`) the document on stdout in a format Bencher or benchstat reads. `--runs N`
//! re-judges the newest stored run over the last N compatible runs of its machine.

use crate::args::{ExportFormat, ReportArgs};
use crate::document::load;
use crate::stdout::{errln, out};
use anyhow::Result;
use concbench_analysis::verdicts;
use concbench_core::{ResultDoc, UsageError};
use concbench_report::{Bencher, Benchstat, Csv, Exporter, Files, Html, Markdown, Terminal};
use std::path::PathBuf;
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
        // The crossover check is a reading too: this build's model and crossing rule.
        if doc.crossover.is_some() {
            doc.crossover = concbench_analysis::sweep::analyse(&doc);
        }
    }
    // A document from an earlier build may hold a figure below zero that this build's gate
    // rejects: it is shown as the gate says, never as a measurement.
    for found in concbench_analysis::validate::document(&mut doc) {
        errln!("concbench: report: the validation gate rejected {found}");
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
