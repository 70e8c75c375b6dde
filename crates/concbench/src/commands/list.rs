//! `concbench list`: every experiment id with a one-line description. Ids none of whose variants
//! run in `--quick` (the articles' own systems, which start a runtime) say "full run only".

use std::process::ExitCode;

/// What `list` prints after the title of an id none of whose variants runs in `--quick`.
pub const FULL_RUN_ONLY: &str = "full run only";

struct Listed<'a> {
    id: &'a str,
    title: &'a str,
    variants: usize,
    in_quick: bool,
}

pub fn list() -> anyhow::Result<ExitCode> {
    let all = concbench_experiments::all();
    let mut ids: Vec<Listed> = Vec::new();
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
            }),
        }
    }
    let width = ids.iter().map(|l| l.id.len()).max().unwrap_or(0);
    for l in ids {
        let mut notes = Vec::new();
        if l.variants > 1 {
            notes.push(format!("{} variants", l.variants));
        }
        if !l.in_quick {
            notes.push(FULL_RUN_ONLY.to_string());
        }
        let suffix = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join(", "))
        };
        println!("{:width$}  {}{suffix}", l.id, l.title);
    }
    Ok(ExitCode::SUCCESS)
}
