//! `concbench list`: every experiment id with a one-line description, and which families run
//! only when named.

use crate::stdout::outln;
use std::process::ExitCode;

pub fn list() -> anyhow::Result<ExitCode> {
    let all = concbench_experiments::all();
    let mut ids: Vec<(&str, &str, usize, bool)> = Vec::new();
    for e in &all {
        let m = e.meta();
        match ids.iter_mut().find(|(id, ..)| *id == m.id) {
            Some(entry) => entry.2 += 1,
            None => ids.push((m.id, m.title, 1, concbench_experiments::is_opt_in(m.family))),
        }
    }
    let width = ids.iter().map(|(id, ..)| id.len()).max().unwrap_or(0);
    for (id, title, variants, opt_in) in ids {
        let mut suffix = if variants > 1 {
            format!(" ({variants} variants)")
        } else {
            String::new()
        };
        if opt_in {
            suffix.push_str(" [opt-in]");
        }
        outln!("{id:width$}  {title}{suffix}");
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
