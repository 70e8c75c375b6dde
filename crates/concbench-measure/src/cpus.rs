//! Choosing CPUs for a placement, and the pairs a cross-CPU variant runs on.
//!
//! Two CPUs can be SMT siblings, share a last-level cache, sit on different CCDs or sockets: a
//! wake-up across them costs very different amounts. [`representative_pairs`] picks, for every
//! class of pair the machine has (see [`crate::topology`]), the closest and the farthest pair by
//! NUMA distance (one pair when they are equally far); the registry runs each cross-CPU variant
//! once per pair.

use crate::topology::Topology;
use concbench_core::{CpuPair, Params, Placement};

/// `params` key: the class of the CPU pair a cross-CPU variant ran on.
pub const PAIR_CLASS: &str = "pair_class";
/// `params` key: the NUMA distance between that pair's nodes.
pub const NUMA_DISTANCE: &str = "numa_distance";

/// The CPUs to use for `placement` from the allowed set, or why it is impossible.
///
/// Prefers the highest-numbered CPUs: CPU 0 usually takes more interrupts and housekeeping.
pub fn choose(placement: Placement, allowed: &[usize]) -> Result<Vec<usize>, String> {
    let need = placement.cpus_needed();
    if allowed.len() < need {
        return Err(format!(
            "{placement} needs {need} CPUs but this process may use only {} ({allowed:?})",
            allowed.len()
        ));
    }
    Ok(allowed.iter().rev().take(need).copied().collect())
}

/// [`choose`], except that a cross-CPU variant naming its pair gets exactly that pair (when this
/// process may use both CPUs).
pub fn choose_for(
    placement: Placement,
    pair: Option<CpuPair>,
    allowed: &[usize],
) -> Result<Vec<usize>, String> {
    match (placement, pair) {
        (Placement::CrossCpu, Some(p)) => {
            if p.cpus.iter().all(|c| allowed.contains(c)) {
                Ok(p.cpus.to_vec())
            } else {
                Err(format!(
                    "the {} pair CPUs {:?} are not both allowed for this process ({allowed:?})",
                    p.class, p.cpus
                ))
            }
        }
        _ => choose(placement, allowed),
    }
}

/// `params` plus the pair's `pair_class` and `numa_distance` (when known), for a cross-CPU
/// variant on a named pair; unchanged otherwise (`--pin none` makes it unpinned: no pair).
pub fn pair_params(params: Params, placement: Placement, pair: Option<CpuPair>) -> Params {
    match (placement, pair) {
        (Placement::CrossCpu, Some(p)) => {
            let params = params.with(PAIR_CLASS, p.class.as_str());
            match p.numa_distance {
                Some(d) => params.with(NUMA_DISTANCE, d),
                None => params,
            }
        }
        _ => params,
    }
}

/// The pairs cross-CPU variants run on: for each class present among `allowed`, closest class
/// first, the pair with the smallest NUMA distance and the one with the largest (only one when
/// the distances are equal or unknown). Among equally distant pairs the highest-numbered CPUs
/// win, as in [`choose`]; the higher CPU of a pair is the harness's (`cpus[0]`).
pub fn representative_pairs(topology: &Topology, allowed: &[usize]) -> Vec<CpuPair> {
    let mut pairs: Vec<CpuPair> = Vec::new();
    for (i, &low) in allowed.iter().enumerate() {
        for &high in &allowed[i + 1..] {
            if let Some(p) = topology.pair(high, low) {
                pairs.push(p);
            }
        }
    }
    // Closest class first; within a class nearest nodes first, then the highest CPUs.
    pairs.sort_by_key(|p| {
        (
            p.class,
            p.numa_distance.unwrap_or(0),
            std::cmp::Reverse(p.cpus),
        )
    });
    let mut out: Vec<CpuPair> = Vec::new();
    for p in &pairs {
        if out.iter().any(|o| o.class == p.class) {
            continue;
        }
        let closest = *p;
        let same_class = pairs.iter().filter(|q| q.class == p.class);
        let farthest_distance = same_class.clone().filter_map(|q| q.numa_distance).max();
        out.push(closest);
        if farthest_distance > closest.numa_distance {
            let farthest = same_class
                .filter(|q| q.numa_distance == farthest_distance)
                .copied()
                .next()
                .expect("a pair at the farthest distance");
            out.push(farthest);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Cache, Cpu};
    use concbench_core::PairClass;

    #[test]
    fn picks_the_last_cpus() {
        assert_eq!(choose(Placement::SameCpu, &[0, 1, 2]).unwrap(), vec![2]);
        assert_eq!(choose(Placement::CrossCpu, &[0, 1, 2]).unwrap(), vec![2, 1]);
        assert_eq!(
            choose(Placement::Unpinned, &[0]).unwrap(),
            Vec::<usize>::new()
        );
        assert!(choose(Placement::CrossCpu, &[0]).is_err());
    }

    fn pair(cpus: [usize; 2]) -> CpuPair {
        CpuPair {
            cpus,
            class: PairClass::CrossLlc,
            numa_distance: None,
        }
    }

    #[test]
    fn a_named_pair_is_used_only_when_both_cpus_are_allowed() {
        let named = Some(pair([0, 3]));
        assert_eq!(
            choose_for(Placement::CrossCpu, named, &[0, 1, 2, 3]).unwrap(),
            [0, 3]
        );
        let err = choose_for(Placement::CrossCpu, named, &[0, 1]).unwrap_err();
        assert!(err.contains("cross-llc") && err.contains("[0, 3]"), "{err}");
        // Other placements ignore it.
        assert_eq!(choose_for(Placement::SameCpu, named, &[0, 1]).unwrap(), [1]);
        assert_eq!(
            choose_for(Placement::CrossCpu, None, &[0, 1]).unwrap(),
            [1, 0]
        );
    }

    #[test]
    fn only_a_cross_cpu_variant_on_a_named_pair_records_its_class() {
        let named = Some(CpuPair {
            numa_distance: Some(21),
            ..pair([0, 3])
        });
        let p = pair_params(Params::new(), Placement::CrossCpu, named);
        assert_eq!(p.get_str(PAIR_CLASS), Some("cross-llc"));
        assert_eq!(p.get_f64(NUMA_DISTANCE), Some(21.0));
        assert!(pair_params(Params::new(), Placement::Unpinned, named).is_empty());
        assert!(pair_params(Params::new(), Placement::CrossCpu, None).is_empty());
    }

    /// Four CPUs, no SMT, one LLC, two NUMA nodes of one package (a sub-NUMA-clustered socket).
    fn two_node_llc() -> Topology {
        let cpu = |node| Cpu {
            package: Some(0),
            core_threads: vec![],
            caches: vec![Cache {
                level: 3,
                shared: vec![0, 1, 2, 3],
            }],
            node: Some(node),
        };
        Topology {
            cpus: [(0, cpu(0)), (1, cpu(0)), (2, cpu(1)), (3, cpu(1))]
                .into_iter()
                .collect(),
            distances: [
                (0, [(0, 10), (1, 12)].into_iter().collect()),
                (1, [(0, 12), (1, 10)].into_iter().collect()),
            ]
            .into_iter()
            .collect(),
        }
    }

    #[test]
    fn closest_and_farthest_pairs_of_a_class_by_numa_distance() {
        let pairs = representative_pairs(&two_node_llc(), &[0, 1, 2, 3]);
        assert_eq!(pairs.len(), 2, "{pairs:?}");
        assert_eq!(pairs[0].cpus, [3, 2]);
        assert_eq!(pairs[0].numa_distance, Some(10));
        assert_eq!(pairs[1].cpus, [3, 1]);
        assert_eq!(pairs[1].numa_distance, Some(12));
        // Restricted to one node, only the near pair is left.
        let near = representative_pairs(&two_node_llc(), &[0, 1]);
        assert_eq!(near.len(), 1);
        assert_eq!(near[0].cpus, [1, 0]);
        assert!(representative_pairs(&two_node_llc(), &[2]).is_empty());
    }
}
