//! `concbench list`: every experiment id with a one-line description; which families run only
//! when named, and which ids none of whose variants run in `--quick` ("full run only").

use crate::stdout::outln;
use std::process::ExitCode;

/// What `list` prints after the title of an id none of whose variants runs in `--quick`.
pub const FULL_RUN_ONLY: &str = "full run only";

struct Listed<'a> {
    id: &'a str,
    title: &'a str,
    variants: usize,
    in_quick: bool,
    opt_in: bool,
}

pub fn list() -> anyhow::Result<ExitCode> {
    let all = concbench_experiments::all();
    let mut ids: Vec<Listed<'_>> = Vec::new();
    for e in &all {
        let m = e.meta();
        match ids.iter_mut().find(|l| l.id == m.id) {
            Some(l) => {
                l.variants += 1;
                l.in_quick |= e.in_quick();
            }
            None => ids.push(Listed {
                id: m.id,
                title: m.title,
                variants: 1,
                in_quick: e.in_quick(),
                opt_in: concbench_experiments::is_opt_in(m.family),
            }),
        }
    }
    let width = ids.iter().map(|l| l.id.len()).max().unwrap_or(0);
    for l in ids {
        let mut notes = Vec::new();
        if l.variants > 1 {
            notes.push(format!("{} variants", l.variants));
        }
        if !l.in_quick && !l.opt_in {
            notes.push(FULL_RUN_ONLY.to_string());
        }
        let mut suffix = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join(", "))
        };
        if l.opt_in {
            suffix.push_str(" [opt-in]");
        }
        outln!("{:width$}  {}{suffix}", l.id, l.title);
    }
    let opt_in: Vec<&str> = concbench_experiments::OPT_IN
        .iter()
        .map(|(f, _)| *f)
        .collect();
    outln!(
        "\nopt-in families (not in a plain `concbench run`; run them by name, e.g. `concbench run \
         --only {}`): {}",
        opt_in[0],
        opt_in.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}
