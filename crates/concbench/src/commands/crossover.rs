//! `concbench crossover`: the crossover sweep (`server.crossover`) and the unit costs `advise`
//! predicts it from, measured in one session — the harness's rounds, interleaving, progress and
//! Ctrl-C as for `run` — then each point set beside its prediction and each pair's crossing
//! found (`concbench_analysis::sweep`), written to the document's `crossover` object, stored in
//! the history (where `advise` finds it), and summarised on one screen.

use super::preflight;
use crate::args::CrossoverArgs;
use crate::db;
use crate::output;
use crate::session::{self, Builtin};
use crate::stdout::out;
use anyhow::Result;
use concbench_analysis::{advice, sweep};
use concbench_core::{Experiment, Params};
use concbench_report::{Exporter, Files, Terminal};
use concbench_session::{selection, Chosen, Registry, RunRequest};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// Rounds a point gets by default: the fewest that give a 95% interval of a median.
const FULL_ROUNDS: usize = concbench_analysis::MIN_VALUES_95;
/// With --quick: enough for "every round apart" to tell a design behind (one chance in twenty).
const QUICK_ROUNDS: usize = 3;
/// No budget by default: the sweep is what the command is for, and a round never starts past a
/// budget, so the default run's 540 s would leave points unmeasured.
const NO_BUDGET: Duration = Duration::from_secs(24 * 3600);

pub fn crossover(args: CrossoverArgs) -> Result<ExitCode> {
    let pages: Vec<(&str, &Path)> = [("--markdown", &args.markdown), ("--html", &args.html)]
        .into_iter()
        .filter_map(|(flag, path)| Some((flag, path.as_deref()?)))
        .collect();
    preflight::check_before_measuring(args.measure.json.as_deref(), &pages)?;
    super::leftovers::sweep_before_measuring();
    let mut store = db::for_writing(&args.measure.store)?;
    let mut request = session::request(&args.measure);
    plan(&mut request, &args);
    request
        .settings
        .insert("command".into(), "crossover".into());
    let chosen = variants(&request);
    let mut doc = session::measure(chosen, &args.measure, request)?;
    doc.crossover = sweep::analyse(&doc);
    let written = write_files(&doc, &args);
    let document = written.as_ref().ok().and_then(|f| f.document.clone());
    let stored = session::store(&doc, store.as_mut(), "crossover", document.as_deref());
    let terminal = Terminal {
        width: concbench_report::terminal::stdout_width(),
        all: args.measure.all,
        files: written.as_ref().map(Clone::clone).unwrap_or_default(),
    };
    out!("{}", terminal.render(&doc)?);
    written?;
    stored?;
    Ok(session::exit_code(&doc))
}

/// Every point the same rounds (unless --rounds), and no budget (unless --budget).
fn plan(request: &mut RunRequest, args: &CrossoverArgs) {
    let mode = request.mode;
    if args.measure.rounds.is_none() && !mode.is_smoke() {
        let rounds = if mode.is_quick() {
            QUICK_ROUNDS
        } else {
            FULL_ROUNDS
        };
        request.plan = request.plan.clone().with_rounds(rounds);
        request.plan.max_rounds = rounds;
    }
    if args.measure.budget.is_none() {
        request.plan.budget = NO_BUDGET;
    }
}

/// The sweep's points, the I/O cost of a request (scenario A's epoll loop) and the unit costs
/// `advise` bills a request with (creation and hand-overs; memory is not billed per request).
fn variants(request: &RunRequest) -> Vec<Chosen> {
    let wanted = |e: &dyn Experiment, params: &Params| {
        let id = e.meta().id;
        id == sweep::SWEEP_ID
            || (id == "server.keepalive" && params.get_str("design") == Some("epoll"))
            || (e.meta().family != "memory" && advice::reads_variant(id, params))
    };
    let chosen: Vec<Chosen> = concbench_experiments::all()
        .into_iter()
        .enumerate()
        .filter(|(_, e)| wanted(e.as_ref(), &request.params_of(e.as_ref())))
        .map(|(i, _)| (i, Builtin.at(i).expect("index from the registry")))
        .collect();
    selection::prepare(chosen, request)
}

/// The document (`--json` or `concbench-results/crossover-<time>.json`) and the pages.
fn write_files(doc: &concbench_core::ResultDoc, args: &CrossoverArgs) -> Result<Files> {
    let document = session::keep(doc, &args.measure, "crossover")?;
    let page = output::write_pages(doc, args.markdown.as_deref(), args.html.as_deref())?;
    Ok(Files {
        document: Some(document),
        page,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{Cli, Command};
    use clap::Parser;

    fn request(cli: &[&str]) -> (RunRequest, CrossoverArgs) {
        match Cli::parse_from(cli).command {
            Command::Crossover(a) => {
                let mut r = session::request(&a.measure);
                plan(&mut r, &a);
                (r, a)
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_sweep_comes_with_the_costs_advise_bills_and_a_requests_io() {
        let (r, _) = request(&["concbench", "crossover", "--quick"]);
        let chosen = variants(&r);
        let ids: Vec<&str> = chosen.iter().map(|(_, e)| e.meta().id).collect();
        assert_eq!(ids.iter().filter(|i| **i == sweep::SWEEP_ID).count(), 12);
        assert_eq!(ids.iter().filter(|i| **i == "server.keepalive").count(), 1);
        assert!(ids.contains(&"switch.pipe.thread"), "{ids:?}");
        assert!(ids.contains(&"create.coroutine"), "{ids:?}");
        assert!(ids.iter().all(|i| !i.starts_with("memory.")), "{ids:?}");
        assert_eq!(r.plan.claim_rounds, QUICK_ROUNDS);
        assert_eq!(r.plan.budget, NO_BUDGET);
    }

    #[test]
    fn a_full_sweep_takes_six_rounds_a_point_and_the_flags_win() {
        let (r, _) = request(&["concbench", "crossover"]);
        assert_eq!((r.plan.claim_rounds, r.plan.other_rounds), (6, 6));
        assert_eq!(
            variants(&r)
                .iter()
                .filter(|(_, e)| e.meta().id == sweep::SWEEP_ID)
                .count(),
            48
        );
        let (r, _) = request(&["concbench", "crossover", "--rounds", "2", "--budget", "60s"]);
        assert_eq!(r.plan.claim_rounds, 2);
        assert_eq!(r.plan.budget, Duration::from_secs(60));
    }
}
