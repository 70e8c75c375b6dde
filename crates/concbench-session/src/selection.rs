//! Which variants a run measures: `--only`, then `--where` on the params a result shows, then
//! what `--quick` and `--smoke` keep.
//!
//! Why here and not in `concbench-core`: the params `--where` sees are the recorded ones,
//! `placement` included, which the harness (`concbench-measure`) derives from the pinning and
//! the CPUs this process may use; and what a mode keeps is part of the run.

use crate::request::RunRequest;
use crate::variant::Variant;
use concbench_core::{Experiment, UsageError};
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
    let keys: BTreeSet<String> = only
        .iter()
        .flat_map(|(_, e)| request.params_of(e.as_ref()).0.into_keys())
        .collect();
    let kept: Vec<Chosen> = only
        .into_iter()
        .filter(|(_, e)| request.params_of(e.as_ref()).matches(wanted))
        .collect();
    if kept.is_empty() {
        return Err(UsageError::new(format!(
            "--where: no selected variant has these params; the selected variants' params are \
             {} (a run's table shows each variant's values)",
            keys.into_iter().collect::<Vec<_>>().join(", ")
        ))
        .into());
    }
    Ok(kept)
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
