//! `concbench crossover`: the crossover sweep (`server.crossover`) and the unit costs `advise`
//! predicts it from, measured in one session — the harness's rounds, interleaving, progress and
//! Ctrl-C as for `run` — then each point set beside its prediction and each pair's crossing
//! found (`concbench_analysis::sweep`), written to the document's `crossover` object, stored in
//! the history (where `advise` finds it), and summarised on one screen.

use crate::args::CrossoverArgs;
use crate::output::{Outputs, Pages};
use crate::rig::{self, Builtin};
use crate::screen;
use anyhow::Result;
use concbench_analysis::{advice, sweep};
use concbench_core::{Experiment, Params};
use concbench_session::{selection, Chosen, Registry, RunRequest};
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
    let pages = Pages {
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
    };
    let mut outputs = Outputs::of_measuring("crossover", &args.measure, pages)?;
    let mut request = rig::request(&args.measure);
    plan(&mut request, &args);
    request
        .settings
        .insert("command".into(), "crossover".into());
    let chosen = variants(&request);
    let mut doc = rig::measure(chosen, &args.measure, request, false)?;
    doc.crossover = sweep::analyse(&doc);
    let written = outputs.write(&doc);
    screen::show(&doc, args.measure.all, written)
}

/// Every point the same rounds (unless --rounds; more where a round was disturbed and is
/// replaced), and no budget (unless --budget).
fn plan(request: &mut RunRequest, args: &CrossoverArgs) {
    let mode = request.mode;
    if args.measure.rounds.is_none() && !mode.is_smoke() {
        let rounds = if mode.is_quick() {
            QUICK_ROUNDS
        } else {
            FULL_ROUNDS
        };
        // The cap stays the mode's: a round taken while another program used the CPU is left
        // out and replaced, which a cap of `rounds` would forbid (a run beside another's test
        // suite kept 121 of its 432 rounds so, with intervals ten times as wide).
        request.plan = request.plan.clone().with_rounds(rounds);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{Cli, Command};
    use clap::Parser;

    fn request(cli: &[&str]) -> (RunRequest, CrossoverArgs) {
        match Cli::parse_from(cli).command {
            Command::Crossover(a) => {
                let mut r = rig::request(&a.measure);
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
