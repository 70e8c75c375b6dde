//! The names code outside the experiments relies on exist in the registry: a renamed experiment
//! id or param fails here instead of silently dropping a row of the answer table, a chart or a
//! verdict (the claims' own selectors are checked in verdict_coverage.rs).

use concbench_core::vocab::{id, key};
use std::collections::BTreeSet;

#[test]
fn every_vocabulary_id_is_a_registered_experiment() {
    let registered: BTreeSet<&str> = concbench_experiments::all()
        .iter()
        .map(|e| e.meta().id)
        .collect();
    let missing: Vec<&&str> = id::ALL
        .iter()
        .filter(|i| !registered.contains(**i))
        .collect();
    assert!(missing.is_empty(), "ids no experiment has: {missing:?}");
}

#[test]
fn every_vocabulary_key_is_a_param_of_some_variant() {
    let keys: BTreeSet<String> = concbench_experiments::all()
        .iter()
        .flat_map(|e| {
            let p = e.params().with(key::PLACEMENT, e.placement().as_str());
            p.0.keys().cloned().collect::<Vec<_>>()
        })
        .collect();
    let missing: Vec<&&str> = key::ALL.iter().filter(|k| !keys.contains(**k)).collect();
    assert!(missing.is_empty(), "keys no variant has: {missing:?}");
}
