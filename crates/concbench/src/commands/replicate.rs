//! `concbench replicate [SEED,..]`: run the seed articles' experiments with the seeds' parameters
//! and print published vs measured side by side, with the ratio and the verdicts.
//!
//! The mapping seed -> experiments is the published data itself: a seed's variants are the
//! registry variants that match one of its figures (`data/published.toml`: result id and
//! params, placement included) or run the article's own program for one, plus, for the S0 comparison table, the results its rows need
//! (`data/s0_table.toml`). Seeds none of whose experiments this build has are reported as not
//! available, not as errors.

use crate::args::ReplicateArgs;
use crate::db;
use crate::session::{self, Variant};
use crate::stdout::{out, outln};
use anyhow::Result;
use concbench_analysis::published::{published, Published};
use concbench_analysis::verdicts::check_uses;
use concbench_core::UsageError;
use concbench_report::{replicate::seeds_text, Exporter, Files, Terminal};
use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

pub fn replicate(args: ReplicateArgs) -> Result<ExitCode> {
    let published = published();
    let seeds = requested_seeds(&published, &args.seeds)?;
    super::preflight::check_before_measuring(args.measure.json.as_deref(), &[])?;
    super::leftovers::sweep_before_measuring();
    let quick = session::is_quick(&args.measure);
    let mut chosen: BTreeSet<usize> = BTreeSet::new();
    let mut available: Vec<&str> = Vec::new();
    for seed in &seeds {
        let all = variants_of(&published, seed, &args);
        let mut kept =
            session::prepare(all.iter().map(|(i, _)| reload(*i)).collect(), &args.measure);
        if quick && !args.measure.smoke {
            add_deciding_systems(&published, seed, &all, &mut kept, &args);
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
    let mut store = db::for_writing(&args.measure.store)?;
    let variants: Vec<Variant> = chosen.into_iter().map(reload).collect();
    let mut settings = BTreeMap::new();
    settings.insert("seeds".into(), available.clone().into());
    let doc = session::measure(variants, &args.measure, settings)?;
    let document = session::keep(&doc, &args.measure, store.as_mut(), "replicate");
    let terminal = Terminal {
        width: concbench_report::terminal::stdout_width(),
        all: args.measure.all,
        files: Files {
            document: document.as_ref().ok().cloned(),
            page: None,
        },
    };
    outln!("\nPublished vs measured, seed by seed:");
    out!("{}", seeds_text(&doc, &published, &available));
    if available.contains(&"S2") {
        if let Some(t) = concbench_report::s2::s2_table_text(&doc, terminal.width) {
            out!("\n{t}");
        }
    }
    outln!();
    out!("{}", terminal.render(&doc)?);
    document?;
    Ok(session::exit_code(&doc))
}

/// The registry variant at `index` (variants are values, so each selection builds its own).
fn reload(index: usize) -> Variant {
    (
        index,
        concbench_experiments::at(index).expect("index from the registry"),
    )
}

/// The seeds the arguments name (all when none), in the published file's order.
fn requested_seeds<'a>(published: &'a Published, requested: &[String]) -> Result<Vec<&'a str>> {
    let known = published.seeds();
    if requested.is_empty() {
        return Ok(known);
    }
    let mut out: Vec<&str> = Vec::new();
    for name in requested {
        let matched = published.seeds_named(name);
        if matched.is_empty() {
            return Err(UsageError::new(format!(
                "replicate: unknown seed '{name}'; seeds are {} (a prefix such as S0 takes all \
                 of its parts)",
                known.join(", ")
            ))
            .into());
        }
        for s in matched {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out.sort_by_key(|s| known.iter().position(|k| k == s));
    Ok(out)
}

/// Registry variants that measure `seed`: those matching one of its figures, or the selectors
/// its S0 table rows need.
fn variants_of(published: &Published, seed: &str, args: &ReplicateArgs) -> Vec<Variant> {
    let figures: Vec<_> = published
        .figures
        .iter()
        .filter(|f| f.seed == seed)
        .collect();
    let selected: BTreeSet<usize> = needs_of(published, seed)
        .into_iter()
        .filter_map(|n| concbench_experiments::select(std::slice::from_ref(n)).ok())
        .flatten()
        .map(|(i, _)| i)
        .collect();
    let checks: Vec<_> = published
        .claims
        .iter()
        .filter(|c| c.seed == seed)
        .flat_map(|c| c.checks.iter())
        .collect();
    concbench_experiments::all()
        .into_iter()
        .enumerate()
        .filter(|(i, e)| {
            let params = session::params_of(e.as_ref(), &args.measure);
            let id = e.meta().id;
            selected.contains(i)
                || figures.iter().any(|f| {
                    f.matches_variant(id, &params) || f.article_program_variant(id, &params)
                })
                || checks.iter().any(|c| check_uses(c, id, &params))
        })
        .collect()
}

/// `replicate --quick` of a seed still measures what decides its claims: the first deciding
/// check of each facet names the article's own program or system (seed S2's Swoole against
/// Netty, say), which `--quick` leaves out of a plain run for its cost. A replication without
/// them would judge the articles on stand-ins, or only in part.
fn add_deciding_systems(
    published: &Published,
    seed: &str,
    all: &[Variant],
    kept: &mut Vec<Variant>,
    args: &ReplicateArgs,
) {
    let mut leads = Vec::new();
    for claim in published.claims.iter().filter(|c| c.seed == seed) {
        if claim.unjudged.is_some() {
            continue;
        }
        let mut facets = BTreeSet::new();
        for check in claim.checks.iter().filter(|c| c.decides) {
            if check
                .facet
                .as_ref()
                .is_none_or(|f| facets.insert(f.clone()))
            {
                leads.push(check);
            }
        }
    }
    for (i, e) in all {
        let params = session::params_of(e.as_ref(), &args.measure);
        let needed = leads.iter().any(|c| check_uses(c, e.meta().id, &params));
        if needed && !kept.iter().any(|(k, _)| k == i) {
            kept.push(reload(*i));
        }
    }
}

/// The result ids a seed's figures name, for "not available" messages.
fn result_ids(published: &Published, seed: &str) -> String {
    let mut ids: Vec<&str> = published
        .figures
        .iter()
        .filter(|f| f.seed == seed)
        .map(|f| f.result_id.as_str())
        .collect();
    ids.dedup();
    if ids.is_empty() {
        let needs: Vec<&str> = needs_of(published, seed)
            .into_iter()
            .map(String::as_str)
            .collect();
        return needs.join(", ");
    }
    ids.join(", ")
}

/// The `--only` selectors the S0 table rows of `seed` need (empty for other seeds).
fn needs_of<'a>(published: &'a Published, seed: &str) -> Vec<&'a String> {
    published
        .dimensions
        .iter()
        .filter(|d| published.claims_of(seed).any(|c| c.id == d.claim))
        .flat_map(|d| d.needs.iter())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{Cli, Command};
    use clap::Parser;

    fn args(cli: &[&str]) -> ReplicateArgs {
        match Cli::parse_from(cli).command {
            Command::Replicate(a) => a,
            _ => unreachable!(),
        }
    }

    fn published_with(result_id: &str) -> Published {
        let mut p = published();
        p.figures = serde_json::from_value(serde_json::json!([{
            "seed": "SX", "result_id": result_id, "what": "w", "value": 1.0, "unit": "ns",
            "machine": "m"
        }]))
        .unwrap();
        p.claims.clear();
        p.dimensions.clear();
        p
    }

    #[test]
    fn a_seed_whose_results_are_not_registered_has_no_variants() {
        let p = published_with("nothing.registered_here");
        assert!(variants_of(&p, "SX", &args(&["concbench", "replicate"])).is_empty());
        assert_eq!(result_ids(&p, "SX"), "nothing.registered_here");
    }

    #[test]
    fn a_seed_selects_the_variants_matching_its_figures() {
        let p = published_with("create.fork");
        let v = variants_of(&p, "SX", &args(&["concbench", "replicate"]));
        assert_eq!(v.len(), 2, "both parent histories of create.fork");
        assert!(v.iter().all(|(_, e)| e.meta().id == "create.fork"));
    }

    #[test]
    fn seeds_expand_prefixes_keep_file_order_and_refuse_unknowns() {
        let p = published();
        let s = requested_seeds(&p, &["S1".into(), "S0.print".into(), "S0".into()]).unwrap();
        assert_eq!(s[0], "S0.create", "file order, duplicates removed: {s:?}");
        assert_eq!(s.iter().filter(|x| **x == "S0.print").count(), 1);
        assert!(s.contains(&"S1"));
        let err = requested_seeds(&p, &["nope".into()]).unwrap_err();
        assert!(concbench_core::error::is_usage_error(&err));
    }
}
