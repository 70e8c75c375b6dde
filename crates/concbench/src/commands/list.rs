//! `concbench list`: every experiment id with a one-line description.

use crate::stdout::outln;
use std::process::ExitCode;

pub fn list() -> anyhow::Result<ExitCode> {
    let all = concbench_experiments::all();
    let mut ids: Vec<(&str, &str, usize)> = Vec::new();
    for e in &all {
        let m = e.meta();
        match ids.iter_mut().find(|(id, _, _)| *id == m.id) {
            Some(entry) => entry.2 += 1,
            None => ids.push((m.id, m.title, 1)),
        }
    }
    let width = ids.iter().map(|(id, _, _)| id.len()).max().unwrap_or(0);
    for (id, title, variants) in ids {
        let suffix = if variants > 1 {
            format!(" ({variants} variants)")
        } else {
            String::new()
        };
        outln!("{id:width$}  {title}{suffix}");
    }
    Ok(ExitCode::SUCCESS)
}
