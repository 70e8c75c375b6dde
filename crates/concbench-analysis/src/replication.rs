//! Which results replicate a seed article (`concbench replicate`): the mapping seed ->
//! variants is the published data itself. A seed's variants are those that match one of its
//! figures (result id and params, placement included) or run the article's own program for one,
//! those one of its claims' checks reads, and, for the S0 comparison table, those its rows need
//! (`data/s0_table.toml`). This file only reads the published claims; the registry's variants
//! come from the caller as [`Candidate`]s.

use crate::published::Published;
use crate::verdicts::{check_uses, CheckSpec};
use concbench_core::{Params, UsageError};
use std::collections::BTreeSet;

/// A registry variant as replication sees it: its registry index, id and recorded params.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub index: usize,
    pub id: &'a str,
    pub params: &'a Params,
}

/// The seeds `requested` names (all when none), in the published file's order; a prefix such
/// as `S0` takes all of its parts. An unknown name is a usage error.
pub fn requested_seeds<'a>(
    published: &'a Published,
    requested: &[String],
) -> anyhow::Result<Vec<&'a str>> {
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

/// The candidates that measure `seed`: those matching one of its figures (or running the
/// article's program for one), those a check of its claims reads, and those `needed` (the
/// registry indices its S0 table rows' selectors, [`table_needs`], resolve to).
pub fn seed_variants(
    published: &Published,
    seed: &str,
    candidates: &[Candidate<'_>],
    needed: &BTreeSet<usize>,
) -> Vec<usize> {
    let figures: Vec<_> = published
        .figures
        .iter()
        .filter(|f| f.seed == seed)
        .collect();
    let checks: Vec<&CheckSpec> = published
        .claims_of(seed)
        .flat_map(|c| c.checks.iter())
        .collect();
    candidates
        .iter()
        .filter(|c| {
            needed.contains(&c.index)
                || figures.iter().any(|f| {
                    f.matches_variant(c.id, c.params) || f.article_program_variant(c.id, c.params)
                })
                || checks.iter().any(|k| check_uses(k, c.id, c.params))
        })
        .map(|c| c.index)
        .collect()
}

/// The candidates the first deciding check of each facet of `seed`'s judged claims reads.
///
/// Why: `replicate --quick` of a seed still measures what decides its claims — such a check
/// names the article's own program or system (seed S2's Swoole against Netty, say), which
/// `--quick` leaves out of a plain run for its cost. A replication without them would judge
/// the articles on stand-ins, or only in part.
pub fn deciding_variants(
    published: &Published,
    seed: &str,
    candidates: &[Candidate<'_>],
) -> Vec<usize> {
    let mut leads = Vec::new();
    for claim in published.claims_of(seed) {
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
    candidates
        .iter()
        .filter(|c| leads.iter().any(|k| check_uses(k, c.id, c.params)))
        .map(|c| c.index)
        .collect()
}

/// The result ids a seed's figures name (else its table's selectors), for "not available"
/// messages.
pub fn result_ids(published: &Published, seed: &str) -> String {
    let mut ids: Vec<&str> = published
        .figures
        .iter()
        .filter(|f| f.seed == seed)
        .map(|f| f.result_id.as_str())
        .collect();
    ids.dedup();
    if ids.is_empty() {
        let needs: Vec<&str> = table_needs(published, seed)
            .into_iter()
            .map(String::as_str)
            .collect();
        return needs.join(", ");
    }
    ids.join(", ")
}

/// The `--only` selectors the S0 table rows of `seed` need (empty for other seeds).
pub fn table_needs<'a>(published: &'a Published, seed: &str) -> Vec<&'a String> {
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
    use crate::published::published;

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
        let params = Params::new().with("parent", "single-threaded");
        let other = [Candidate {
            index: 0,
            id: "create.fork",
            params: &params,
        }];
        assert!(seed_variants(&p, "SX", &other, &BTreeSet::new()).is_empty());
        assert_eq!(result_ids(&p, "SX"), "nothing.registered_here");
    }

    #[test]
    fn a_seed_selects_the_candidates_matching_its_figures_or_needed() {
        let p = published_with("create.fork");
        let (a, b) = (Params::new().with("parent", "x"), Params::new());
        let candidates = [
            Candidate {
                index: 3,
                id: "create.fork",
                params: &a,
            },
            Candidate {
                index: 4,
                id: "create.thread",
                params: &b,
            },
            Candidate {
                index: 5,
                id: "switch.pipe.thread",
                params: &b,
            },
        ];
        assert_eq!(seed_variants(&p, "SX", &candidates, &BTreeSet::new()), [3]);
        let needed = BTreeSet::from([5]);
        assert_eq!(seed_variants(&p, "SX", &candidates, &needed), [3, 5]);
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
