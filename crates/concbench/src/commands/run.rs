//! `concbench run`: select variants with `--only` and `--where`, measure them (see
//! [`crate::session`]), print the table, write the result document and store it in the history.

use crate::args::RunArgs;
use crate::db;
use crate::session::{self, Variant};
use anyhow::Result;
use concbench_core::{Params, UsageError, LABELS_SETTING};
use concbench_report::{Exporter, Html, Markdown, Terminal};
use std::collections::BTreeMap;
use std::process::ExitCode;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let variants = session::prepare(select(&args)?, &args.measure);
    if variants.is_empty() && !args.where_params.is_empty() {
        return Err(UsageError::new(
            "--where: no selected variant has these params; `concbench list` shows the ids, and a \
             run's table shows each variant's params (sweep points outside --quick need a full run)",
        )
        .into());
    }
    let mut store = db::for_writing(&args.measure.store)?;
    let doc = session::measure(variants, &args.measure, settings(&args))?;
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

/// The variants `--only` and `--where` select.
fn select(args: &RunArgs) -> Result<Vec<Variant>> {
    Ok(concbench_experiments::select(&args.only)?
        .into_iter()
        .filter(|(_, e)| params_match(&e.params(), &args.where_params))
        .collect())
}

/// Whether every `KEY=VALUE` is among `params` (values compared as printed: `files=10`).
fn params_match(params: &Params, wanted: &[(String, String)]) -> bool {
    wanted.iter().all(|(k, v)| {
        params.get(k).is_some_and(|p| match p {
            serde_json::Value::String(s) => s == v,
            // Printed first: `Value == String` would compare as a JSON string, never a number.
            other => {
                let printed = other.to_string();
                printed == *v
            }
        })
    })
}

/// What `run` records beside the harness settings.
fn settings(args: &RunArgs) -> BTreeMap<String, serde_json::Value> {
    let mut s = BTreeMap::new();
    s.insert("only".into(), args.only.clone().into());
    if !args.where_params.is_empty() {
        let wanted: Vec<String> = args
            .where_params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        s.insert("where".into(), wanted.into());
    }
    if !args.labels.is_empty() {
        let labels: serde_json::Map<String, serde_json::Value> = args
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), v.clone().into()))
            .collect();
        s.insert(LABELS_SETTING.into(), labels.into());
    }
    s
}
