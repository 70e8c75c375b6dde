//! `concbench replicate [SEED,..]`: run the seed articles' experiments with the seeds' parameters
//! and print published vs measured side by side, with the ratio and the verdicts.
//!
//! The mapping seed -> experiments is the published data itself
//! ([`concbench_analysis::replication`]); this file hands it the registry's variants with their
//! recorded params. Seeds none of whose experiments this build has are reported as not
//! available, not as errors.

use crate::args::ReplicateArgs;
use crate::output::{Outputs, Pages};
use crate::rig::{self, Builtin};
use crate::screen;
use crate::stdout::{out, outln};
use anyhow::Result;
use concbench_analysis::published::{published, Published};
use concbench_analysis::replication::{
    deciding_variants, requested_seeds, result_ids, seed_variants, table_needs, Candidate,
};
use concbench_core::Params;
use concbench_report::replicate::seeds_text;
use concbench_session::{selection, Chosen, Registry, RunRequest};
use std::collections::BTreeSet;

use std::process::ExitCode;

/// The most a quick replication's budget grows to for its deciding checks (`RunPlan::grow_to`).
const REPLICATE_QUICK_MAX_BUDGET: std::time::Duration = std::time::Duration::from_secs(180);

pub fn replicate(args: ReplicateArgs) -> Result<ExitCode> {
    let published = published();
    let seeds = requested_seeds(&published, &args.seeds)?;
    let mut outputs = Outputs::of_measuring("replicate", &args.measure, Pages::default())?;
    let mut request = rig::request(&args.measure);
    let quick = request.mode.is_quick();
    if quick && !args.measure.smoke && args.measure.budget.is_none() {
        // The seed's deciding checks are what a replication is for, and they include the
        // articles' own servers, dearer than a quick run's 55 s allows them six rounds of; a
        // quick replication still ends within three minutes.
        request.plan.grow_to = Some(REPLICATE_QUICK_MAX_BUDGET);
    }
    let candidates = Candidates::of(&request);
    let mut chosen: BTreeSet<usize> = BTreeSet::new();
    let mut available: Vec<&str> = Vec::new();
    for seed in &seeds {
        let all = candidates.of_seed(&published, seed);
        let mut kept = selection::prepare(all.iter().map(|i| reload(*i)).collect(), &request);
        if quick && !args.measure.smoke {
            let deciding = candidates.deciding(&published, seed, &all);
            for i in deciding {
                if !kept.iter().any(|(k, _)| *k == i) {
                    kept.push(reload(i));
                }
            }
        }
        match (all.is_empty(), kept.is_empty()) {
            (true, _) => outln!(
                "{seed}: not available in this build (none of its experiments is registered: {})",
                result_ids(&published, seed)
            ),
            (false, true) => outln!(
                "{seed}: none of its {} configurations is in the --quick subset; run without --quick",
                all.len()
            ),
            (false, false) => {
                if quick {
                    outln!(
                        "{seed}: --quick: {} of {} configurations, scaled down (short samples, \
                         fewer rounds, smaller batches; see each result's warnings); run without \
                         --quick for the seed's sizes",
                        kept.len(),
                        all.len()
                    );
                }
                chosen.extend(kept.iter().map(|(i, _)| *i));
                available.push(seed);
            }
        }
    }
    if available.is_empty() {
        outln!("Nothing to measure: no requested seed is available in this build.");
        return Ok(ExitCode::SUCCESS);
    }
    let variants: Vec<Chosen> = chosen.into_iter().map(reload).collect();
    request
        .settings
        .insert("seeds".into(), available.clone().into());
    let doc = rig::measure(variants, &args.measure, request, false)?;
    let written = outputs.write(&doc);
    let width = concbench_report::terminal::stdout_width();
    outln!("\nPublished vs measured, seed by seed:");
    out!("{}", seeds_text(&doc, &published, &available));
    if available.contains(&"S2") {
        // Not with --all: the detail above already holds it.
        match concbench_report::s2::s2_table_text(&doc, width) {
            Some(t) if !args.measure.all => out!("\n{t}"),
            Some(_) => {}
            None => outln!("\nS2's servers: none measured in this run (see skipped)."),
        }
    }
    outln!();
    screen::show(&doc, args.measure.all, written)
}

/// The registry variant at `index` (variants are values, so each selection builds its own).
fn reload(index: usize) -> Chosen {
    (index, Builtin.at(index).expect("index from the registry"))
}

/// The registry's variants with the params they record under this run's request.
struct Candidates {
    params: Vec<(usize, &'static str, Params)>,
}

impl Candidates {
    fn of(request: &RunRequest) -> Self {
        let params = concbench_experiments::all()
            .into_iter()
            .enumerate()
            .map(|(i, e)| (i, e.meta().id, request.params_of(e.as_ref())))
            .collect();
        Candidates { params }
    }

    /// As the published claims see them, those of `only` (all when `None`).
    fn view(&self, only: Option<&[usize]>) -> Vec<Candidate<'_>> {
        self.params
            .iter()
            .filter(|(i, _, _)| only.is_none_or(|o| o.contains(i)))
            .map(|(index, id, params)| Candidate {
                index: *index,
                id,
                params,
            })
            .collect()
    }

    /// The registry indices that measure `seed` (the published data's mapping), with those
    /// its S0 table rows' selectors name.
    fn of_seed(&self, published: &Published, seed: &str) -> Vec<usize> {
        let needed: BTreeSet<usize> = table_needs(published, seed)
            .into_iter()
            .filter_map(|n| Builtin.select(std::slice::from_ref(n)).ok())
            .flatten()
            .map(|(i, _)| i)
            .collect();
        seed_variants(published, seed, &self.view(None), &needed)
    }

    /// Of `all`, the variants that decide `seed`'s claims.
    fn deciding(&self, published: &Published, seed: &str, all: &[usize]) -> Vec<usize> {
        deciding_variants(published, seed, &self.view(Some(all)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{Cli, Command};
    use clap::Parser;

    fn request(cli: &[&str]) -> RunRequest {
        match Cli::parse_from(cli).command {
            Command::Replicate(a) => rig::request(&a.measure),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_seed_selects_the_registered_variants_matching_its_figures() {
        let mut p = published();
        p.figures = serde_json::from_value(serde_json::json!([{
            "seed": "SX", "result_id": "create.fork", "what": "w", "value": 1.0, "unit": "ns",
            "machine": "m"
        }]))
        .unwrap();
        p.claims.clear();
        p.dimensions.clear();
        let v = Candidates::of(&request(&["concbench", "replicate"])).of_seed(&p, "SX");
        assert_eq!(v.len(), 2, "both parent histories of create.fork");
        assert!(v.iter().all(|i| reload(*i).1.meta().id == "create.fork"));
    }
}
