//! Which variants a run measures: `--only`, then `--where` on the params a result shows, then
//! what `--quick` and `--smoke` keep.
//!
//! Why here and not in `concbench-core`: the params `--where` sees are the recorded ones,
//! `placement` included, which the harness (`concbench-measure`) derives from the pinning and
//! the CPUs this process may use; and what a mode keeps is part of the run.

use crate::request::RunRequest;
use crate::variant::Variant;
use concbench_core::{Experiment, Params, UsageError};
use std::collections::{BTreeSet, HashSet};

/// A registry variant with its index in the registry (the index a worker looks it up by).
pub type Chosen = (usize, Box<dyn Experiment>);

/// The experiments this build registers.
pub trait Registry {
    /// Every variant, in the registry's order.
    fn all(&self) -> Vec<Box<dyn Experiment>>;
    /// The variants `--only` selectors name (all when there are none); an unknown name is a
    /// usage error.
    fn select(&self, only: &[String]) -> anyhow::Result<Vec<Chosen>>;
    /// The variant at `index`.
    fn at(&self, index: usize) -> Option<Box<dyn Experiment>>;
}

/// The variants `--only` and `--where` select. `--where KEY=VALUE` sees the params a result
/// shows, `placement` included.
pub fn select(
    registry: &dyn Registry,
    only: &[String],
    wanted: &[(String, String)],
    request: &RunRequest,
) -> anyhow::Result<Vec<Chosen>> {
    let only = registry.select(only)?;
    if wanted.is_empty() {
        return Ok(only);
    }
    let params: Vec<Params> = only
        .iter()
        .map(|(_, e)| request.params_of(e.as_ref()))
        .collect();
    let kept: Vec<Chosen> = only
        .into_iter()
        .zip(&params)
        .filter(|(_, p)| p.matches(wanted))
        .map(|(c, _)| c)
        .collect();
    if kept.is_empty() {
        return Err(UsageError::new(format!(
            "--where: no selected variant has {}; {} (`concbench list ID` shows each variant's \
             params)",
            wanted
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" and "),
            what_exists(&params, wanted)
        ))
        .into());
    }
    Ok(kept)
}

/// The values each wanted key takes among `params` ("design is one of epoll, iterative"), or
/// the keys there are when one wanted key is none of them.
pub fn what_exists(params: &[Params], wanted: &[(String, String)]) -> String {
    let keys: BTreeSet<&str> = params
        .iter()
        .flat_map(|p| p.0.keys().map(String::as_str))
        .collect();
    if let Some((missing, _)) = wanted.iter().find(|(k, _)| !keys.contains(k.as_str())) {
        return format!(
            "no selected variant has the param {missing}; their params are {}",
            keys.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    wanted
        .iter()
        .map(|(key, _)| {
            let mut values: Vec<String> = params
                .iter()
                .filter_map(|p| p.get(key))
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect();
            // Numbers in their order (4 before 10), words in theirs.
            values.sort_by(|a, b| match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => x.total_cmp(&y),
                _ => a.cmp(b),
            });
            values.dedup();
            format!("{key} is one of {}", values.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Keep what `--quick` runs, and collapse placements that `--pin none` (or a one-CPU mask)
/// makes identical. `--smoke` proves every experiment runs: the quick subset, plus the first
/// variant of every id the quick subset leaves out.
pub fn prepare(variants: Vec<Chosen>, request: &RunRequest) -> Vec<Chosen> {
    let quick = request.mode.is_quick();
    let smoke = request.mode.is_smoke();
    let quick_ids: HashSet<&str> = variants
        .iter()
        .filter(|(_, e)| e.in_quick())
        .map(|(_, e)| e.meta().id)
        .collect();
    let mut smoke_extra: HashSet<&str> = HashSet::new();
    let keep: Vec<bool> = variants
        .iter()
        .map(|(_, e)| {
            let id = e.meta().id;
            !quick || e.in_quick() || (smoke && !quick_ids.contains(id) && smoke_extra.insert(id))
        })
        .collect();
    let mut seen = HashSet::new();
    variants
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(v, _)| v)
        .filter(|(_, e)| {
            seen.insert(format!(
                "{} {}",
                e.meta().id,
                request.params_of(e.as_ref()).compact()
            ))
        })
        .collect()
}

/// The session's view of the chosen variants: index, description, recorded params, pairing.
pub fn variants(chosen: &[Chosen], request: &RunRequest) -> Vec<Variant> {
    chosen
        .iter()
        .map(|(index, e)| Variant {
            index: *index,
            meta: e.meta().clone(),
            params: request.params_of(e.as_ref()),
            paired: e.paired(),
            rounds_per_setup: e.rounds_per_setup(request.mode).max(1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, serde_json::Value)]) -> Params {
        Params(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    /// Regression: `--where design=nosuch` listed the keys but not the values that exist.
    #[test]
    fn regression_a_where_matching_nothing_lists_the_values_that_exist() {
        let all = [
            params(&[("design", "epoll".into()), ("files", 10.into())]),
            params(&[("design", "iterative".into()), ("files", 4.into())]),
            params(&[("design", "epoll".into()), ("files", 100.into())]),
        ];
        let want = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        assert_eq!(
            what_exists(&all, &want("design", "nosuch")),
            "design is one of epoll, iterative"
        );
        assert_eq!(
            what_exists(&all, &want("files", "7")),
            "files is one of 4, 10, 100"
        );
        assert_eq!(
            what_exists(&all, &want("colour", "red")),
            "no selected variant has the param colour; their params are design, files"
        );
    }
}
