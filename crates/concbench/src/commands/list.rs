//! `concbench list`: every experiment id with a one-line description; which families run only
//! when named, and which ids none of whose variants run in `--quick` ("full run only").
//! `list ID...` and `list --variants`: each variant with the params `--where` matches and the
//! run modes that include it, so a selection can be composed without the docs.

use crate::args::{ListArgs, MeasureArgs};
use crate::rig;
use crate::stdout::outln;
use clap::Parser;
use concbench_core::UsageError;
use concbench_session::{selection, Chosen};
use std::collections::HashSet;
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

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    if args.variants || !args.names.is_empty() {
        return list_variants(&args.names);
    }
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
                opt_in: !concbench_experiments::runs_by_default(m.family, m.id),
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
         --only {}`): {}; opt-in ids (run only when named by id): {} (`concbench crossover` runs \
         the sweep with what it is checked against). `concbench list ID` shows each variant's \
         params and run modes.",
        opt_in[0],
        opt_in.join(", "),
        concbench_experiments::OPT_IN_IDS.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// The measuring flags of one run mode, parsed as the command line would be.
fn mode(flags: &[&str]) -> MeasureArgs {
    #[derive(Parser)]
    struct Mode {
        #[command(flatten)]
        measure: MeasureArgs,
    }
    Mode::parse_from(std::iter::once("concbench").chain(flags.iter().copied())).measure
}

/// The indices of the variants a run in this mode keeps (the run's own rule:
/// [`selection::prepare`]).
fn kept(flags: &[&str]) -> HashSet<usize> {
    let every: Vec<Chosen> = concbench_experiments::all()
        .into_iter()
        .enumerate()
        .collect();
    selection::prepare(every, &rig::request(&mode(flags)))
        .into_iter()
        .map(|(i, _)| i)
        .collect()
}

/// Each variant of `names` (every one when empty): its params and the run modes it is in.
fn list_variants(names: &[String]) -> anyhow::Result<ExitCode> {
    // Unknown names are refused with `run --only`'s message.
    concbench_experiments::select(names)?;
    let full = rig::request(&mode(&[]));
    let modes = [
        ("quick", kept(&["--quick"])),
        ("full", kept(&[])),
        ("smoke", kept(&["--smoke"])),
    ];
    let mut current = "";
    let mut example = String::new();
    let mut shown = 0;
    for (i, e) in concbench_experiments::all().into_iter().enumerate() {
        let m = e.meta();
        let named = names.is_empty()
            || names
                .iter()
                .any(|n| concbench_experiments::name_selects(m.family, m.id, n));
        if !named {
            continue;
        }
        if m.id != current {
            let opt_in = if !concbench_experiments::runs_by_default(m.family, m.id) {
                " [opt-in: runs only when named by --only]"
            } else {
                ""
            };
            outln!("{}  {} ({}){opt_in}", m.id, m.title, m.unit);
            current = m.id;
        }
        let runs: Vec<&str> = modes
            .iter()
            .filter(|(_, set)| set.contains(&i))
            .map(|(name, _)| *name)
            .collect();
        let runs = if runs.is_empty() {
            // `run` keeps one of two variants its placement makes identical here (one CPU).
            "none here (same params as another variant on this machine)".to_string()
        } else {
            runs.join(", ")
        };
        let params = full.params_of(e.as_ref()).compact();
        outln!("  {params:<48}  {runs}");
        example = params.split(' ').next().unwrap_or_default().to_string();
        shown += 1;
    }
    if shown == 0 {
        return Err(UsageError::new("list: no variant matches").into());
    }
    outln!(
        "\nSelect with `--only ID --where KEY=VALUE` (run and compare), e.g. `concbench run \
         --only {current} --where {example}`."
    );
    Ok(ExitCode::SUCCESS)
}
