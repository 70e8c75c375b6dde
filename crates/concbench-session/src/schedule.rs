//! The order of a pass: variants a verdict compares stay next to each other, in a shuffled
//! order; the groups themselves are shuffled too.
//!
//! Why: a comparison is taken pass by pass (A's round 3 against B's round 3), so A and B should
//! be measured back to back — minutes apart, the machine's speed drifts by more than some of the
//! differences asked about. Why shuffled: a fixed order would always give one side the warmer
//! (or colder) slot; shuffling per pass spreads that over both.

/// Groups of variant indices: variants linked by any check (directly or through a chain) end up
/// in one group; the others are alone. `links` lists, per check, the variants it uses.
pub fn groups(n: usize, links: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for link in links {
        for w in link.windows(2) {
            let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut slot = vec![usize::MAX; n];
    for i in 0..n {
        let r = root(&mut parent, i);
        if slot[r] == usize::MAX {
            slot[r] = out.len();
            out.push(Vec::new());
        }
        out[slot[r]].push(i);
    }
    out
}

/// The order in which pass `pass` measures `wanted` (variant indices): group by group, groups
/// and members shuffled by a seed derived from `seed` and `pass`.
///
/// Invariants: a permutation of `wanted`; members of a group are contiguous; deterministic.
pub fn order(groups: &[Vec<usize>], wanted: &[usize], seed: u64, pass: usize) -> Vec<usize> {
    let mut rng =
        fastrand::Rng::with_seed(seed ^ (pass as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut gs: Vec<Vec<usize>> = groups
        .iter()
        .map(|g| {
            g.iter()
                .copied()
                .filter(|i| wanted.contains(i))
                .collect::<Vec<_>>()
        })
        .filter(|g| !g.is_empty())
        .collect();
    rng.shuffle(&mut gs);
    for g in &mut gs {
        rng.shuffle(g);
    }
    gs.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linked_variants_share_a_group_through_chains() {
        let g = groups(6, &[vec![0, 2], vec![2, 4], vec![5]]);
        assert_eq!(g, vec![vec![0, 2, 4], vec![1], vec![3], vec![5]]);
    }

    #[test]
    fn an_order_is_a_shuffled_permutation_keeping_groups_together() {
        let g = groups(8, &[vec![1, 5, 6]]);
        let wanted: Vec<usize> = (0..8).collect();
        let mut seen_orders = std::collections::HashSet::new();
        for pass in 0..20 {
            let o = order(&g, &wanted, 42, pass);
            let mut sorted = o.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, wanted);
            let at: Vec<usize> = [1, 5, 6]
                .iter()
                .map(|v| o.iter().position(|x| x == v).unwrap())
                .collect();
            assert_eq!(
                at.iter().max().unwrap() - at.iter().min().unwrap(),
                2,
                "{o:?}"
            );
            seen_orders.insert(o);
        }
        assert!(
            seen_orders.len() > 10,
            "the order changes from pass to pass"
        );
        assert_eq!(order(&g, &wanted, 42, 3), order(&g, &wanted, 42, 3));
        assert_eq!(order(&g, &[5, 2], 42, 0).len(), 2);
    }
}
