//! `concbench run`: select variants with `--only`, measure them (see [`crate::session`]), print
//! the table, write the result document and store it in the history.

use crate::args::RunArgs;
use crate::{db, session};
use anyhow::Result;
use concbench_report::{Exporter, Html, Markdown, Terminal};
use std::collections::BTreeMap;
use std::process::ExitCode;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let variants = session::prepare(concbench_experiments::select(&args.only)?, &args.measure);
    let mut store = db::for_writing(&args.measure.store)?;
    let mut settings = BTreeMap::new();
    settings.insert("only".into(), args.only.clone().into());
    let doc = session::measure(variants, &args.measure, settings)?;
    print!("{}", Terminal { width: None }.render(&doc)?);
    session::keep(&doc, &args.measure, store.as_mut(), "run")?;
    if let Some(md) = &args.markdown {
        super::write_output("--markdown", md, &Markdown.render(&doc)?)?;
    }
    if let Some(html) = &args.html {
        super::write_output("--html", html, &Html.render(&doc)?)?;
        eprintln!("concbench: wrote {} (open it in a browser)", html.display());
    }
    Ok(session::exit_code(&doc))
}
