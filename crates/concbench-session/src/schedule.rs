//! What a pass of adaptive rounds measures (whole checks, cheapest first, within a share of the
//! budget left), and the order of a pass: variants a verdict compares stay next to each other,
//! in a shuffled order; the groups themselves are shuffled too.
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

/// `shuffled` (a pass's order) rearranged by expected round time, cheapest first; equal costs
/// keep their shuffled order. For the round of each variant no verdict uses, given while the
/// budget lasts: what the budget leaves out is then the few dear figures, not a random third.
///
/// Invariants: a permutation of `shuffled`; `cost` is non-decreasing along it; deterministic.
pub fn cheapest_first(mut shuffled: Vec<usize>, cost: impl Fn(usize) -> f64) -> Vec<usize> {
    shuffled.sort_by(|&a, &b| cost(a).total_cmp(&cost(b)));
    shuffled
}

/// A pass of adaptive rounds spends at most this share of the budget left (or, when even the
/// cheapest open check costs more, that one check).
///
/// Why: a check at six rounds barely narrows its interval with a seventh (at six to eight
/// rounds the 95% interval is about [min, max]), while twenty more rounds of a cheap check
/// decide it. Filling one pass with every check that fits spent a full run's last 30 s on one
/// round of its dearest checks (io, servers) and left its cheapest (a switch, 0.25 s a pass)
/// at six or seven rounds; a quarter of what is left per pass keeps the cheap checks going for
/// many passes and adds the dear ones while the budget is still large.
pub const PASS_SHARE: f64 = 0.25;

/// The variants of one pass of adaptive rounds: whole check sets (each the variants one check
/// compares), cheapest first, as long as the pass costs at most [`PASS_SHARE`] of `left`
/// seconds — or the cheapest set alone, when it fits in `left` but not in that share.
/// `cost(i)` is variant `i`'s expected round time in seconds.
///
/// Invariants: every chosen variant belongs to a set; the pass's cost is at most `left`; a set
/// is taken whole or not at all; empty only when no set fits in `left`.
pub fn adaptive_pass(
    mut sets: Vec<Vec<usize>>,
    cost: impl Fn(usize) -> f64,
    left: f64,
) -> Vec<usize> {
    let total = |set: &[usize]| -> f64 { set.iter().map(|&i| cost(i)).sum() };
    sets.sort_by(|a, b| total(a).total_cmp(&total(b)));
    let Some(cheapest) = sets.first() else {
        return Vec::new();
    };
    let limit = (left * PASS_SHARE).max(total(cheapest)).min(left);
    let mut chosen: Vec<usize> = Vec::new();
    for set in sets {
        let extra: Vec<usize> = set.into_iter().filter(|i| !chosen.contains(i)).collect();
        if total(&chosen) + total(&extra) <= limit {
            chosen.extend(extra);
        }
    }
    chosen
}

/// Share of the budget left that completing one check set left at a single round may take.
/// Why nearly all of it: the set's rounds buy its first interval (one round decides nothing),
/// which is worth more than the next adaptive round of a check that already has one; the tenth
/// kept is for the error of the expected cost (one variant's rounds vary by about that much:
/// the 50-file read took 1.2-1.9 s), since a set that the budget stops at five rounds has
/// bought nothing. Why not half, as before: replayed on stop 29's full run (F-1, 2026-11-27),
/// half left the article's Java reader at one round for S4.degrade (46 s for five more rounds
/// with 66 s left) while its adaptive rounds took S4.one_thread's checks to 26.
pub const SHORT_SHARE: f64 = 0.9;

/// The check set, among those the base passes left at one round (`sets`), to bring to its base
/// rounds now: the cheapest whose `more` rounds per variant (`cost(i)` seconds each) fit in
/// [`SHORT_SHARE`] of `left` seconds, or none.
///
/// Invariants: the chosen set's cost is at most `SHORT_SHARE * left`; no cheaper set fits that
/// was passed over; `None` for no sets, no rounds to add or no budget.
pub fn short_set_to_complete(
    sets: Vec<Vec<usize>>,
    cost: impl Fn(usize) -> f64,
    more: usize,
    left: f64,
) -> Option<Vec<usize>> {
    let total = |set: &[usize]| set.iter().map(|&i| cost(i)).sum::<f64>() * more as f64;
    let limit = left.max(0.0) * SHORT_SHARE;
    sets.into_iter()
        .filter(|set| more > 0 && !set.is_empty() && total(set) <= limit)
        .min_by(|a, b| total(a).total_cmp(&total(b)))
}

/// How much a check set matters to the base passes, most first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    /// It decides the run's headline comparison (a claim marked `headline` in
    /// `data/published.toml`): its base rounds come before any other set's.
    Headline,
    /// It decides a verdict (with the article's own program, or concbench's method where the
    /// article gave none).
    Decides,
    /// A figure of the first screen (the headline, the advice cards) or of the anatomy, which
    /// reads it pass by pass.
    Shown,
    /// Judged beside a verdict only: a stand-in for the article's program, a `decides = false`
    /// check.
    Beside,
}

impl Priority {
    /// It decides a verdict (the headline's or another's).
    pub fn decides(self) -> bool {
        matches!(self, Priority::Headline | Priority::Decides)
    }
}

/// The variants that get their remaining base rounds: whole check sets, deciding ones first
/// (with any set whose rounds are all cheap, under `cheap` seconds), cheapest first, priority
/// breaking ties, then the dear sets shown on the first screen, while the rounds still to take
/// (`more` per variant, `cost(i)` seconds each) fit in `share` of `left` seconds
/// (`RunPlan::base_share`). A set left out keeps its first round (a figure without an
/// interval) and the run says so: an interval needs all six rounds, so five of a dear set's
/// rounds would buy nothing a verdict could use while costing what decides the cheap ones. A
/// dear set only beside the verdicts gets no rounds of its own: an absolute time shown beside
/// must not take what would decide a claim.
///
/// Invariants: every chosen variant belongs to a chosen set; a set is taken whole or not at
/// all; the chosen rounds cost at most `share * left`; a set is never left out for one of
/// lower priority that costs as much or more; a deciding set is never left out for a dear one
/// that does not decide.
pub fn base_sets(
    mut sets: Vec<(Priority, Vec<usize>)>,
    cost: impl Fn(usize) -> f64,
    more: usize,
    left: f64,
    share: f64,
    cheap: f64,
) -> Vec<usize> {
    let total = |set: &[usize]| -> f64 { set.iter().map(|&i| cost(i)).sum::<f64>() * more as f64 };
    // 1: deciding or cheap; 2: a dear figure of the first screen; 3: a dear figure beside.
    // Why the cheap sets with the deciding ones: replayed on a recorded full run, the deciding
    // sets alone filled the share and left the headline's coroutine figures (0.1 s a round)
    // without an interval. Why the dear ones after: replayed on the full run f-1 (2026-11-27),
    // cost alone let the shown and beside sets take the share and left S4's cold reads, which
    // decide two claims, at one round.
    // Below 1 the headline's sets, before every other (see [`Priority::Headline`]).
    let tier = |p: Priority, set: &[usize]| -> u8 {
        match p {
            Priority::Headline => 0,
            _ if p == Priority::Decides || set.iter().all(|&i| cost(i) < cheap) => 1,
            Priority::Shown => 2,
            _ => 3,
        }
    };
    sets.sort_by(|(pa, a), (pb, b)| {
        tier(*pa, a)
            .cmp(&tier(*pb, b))
            .then(total(a).total_cmp(&total(b)))
            .then(pa.cmp(pb))
    });
    let limit = left.max(0.0) * share;
    let mut chosen: Vec<usize> = Vec::new();
    for (priority, set) in sets {
        let extra: Vec<usize> = set.into_iter().filter(|i| !chosen.contains(i)).collect();
        if tier(priority, &extra) == 3 {
            continue;
        }
        if total(&chosen) + total(&extra) <= limit {
            chosen.extend(extra);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs(i: usize) -> f64 {
        [0.1, 0.15, 5.0, 5.0, 1.0][i]
    }

    #[test]
    fn cheapest_first_sorts_by_cost_and_keeps_the_shuffle_among_equals() {
        // Costs 0.1, 0.15, 5, 5, 1: the two 5-s variants keep their order (3 before 2).
        assert_eq!(
            cheapest_first(vec![3, 2, 4, 1, 0], costs),
            vec![0, 1, 4, 3, 2]
        );
        assert_eq!(cheapest_first(vec![2, 3], costs), vec![2, 3]);
        assert!(cheapest_first(Vec::new(), costs).is_empty());
    }

    #[test]
    fn a_pass_with_little_budget_left_takes_the_cheap_checks_only() {
        let sets = vec![vec![2, 3], vec![0, 1], vec![4]];
        // 10 s left: a quarter is 2.5 s; the switch-like pair (0.25 s) and the 1-s check fit,
        // the 10-s pair does not.
        assert_eq!(adaptive_pass(sets.clone(), costs, 10.0), vec![0, 1, 4]);
        // 60 s left: everything (11.25 s) fits in a quarter (15 s).
        assert_eq!(adaptive_pass(sets, costs, 60.0), vec![0, 1, 4, 2, 3]);
    }

    #[test]
    fn a_dear_check_alone_is_still_measured_while_it_fits_the_budget() {
        assert_eq!(adaptive_pass(vec![vec![2, 3]], costs, 12.0), vec![2, 3]);
        assert!(adaptive_pass(vec![vec![2, 3]], costs, 9.0).is_empty());
        assert!(adaptive_pass(Vec::new(), costs, 100.0).is_empty());
    }

    #[test]
    fn sets_sharing_a_variant_count_it_once() {
        // {0, 4} costs 1.1 s, {4} 1 s: together 1.1 s, within a quarter of 5 s (1.25 s).
        assert_eq!(
            adaptive_pass(vec![vec![0, 4], vec![4]], costs, 5.0),
            vec![4, 0]
        );
    }

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
    #[test]
    fn regression_three_of_ten_quick_runs_left_s4s_cold_reads_at_one_round() {
        use concbench_core::RunMode;
        use Priority::*;
        // Costs 0.1, 0.15, 5, 5, 1 s a round; five rounds to go. The deciding pair {2, 3}
        // (50 s, S4's cold reads) and {0, 1} (1.25 s) with 60 s left: three quarters (45 s)
        // leave the pair at one round, as in three of ten quick runs on 2026-11-27; a quick
        // run's share (54 s) measures it.
        let sets = vec![(Decides, vec![2, 3]), (Decides, vec![0, 1])];
        let quick = crate::RunPlan::new(RunMode::Quick).base_share;
        assert_eq!(
            base_sets(sets.clone(), costs, 5, 60.0, 0.75, 1.0),
            vec![0, 1]
        );
        assert_eq!(
            base_sets(sets, costs, 5, 60.0, quick, 1.0),
            vec![0, 1, 2, 3]
        );
    }

    #[test]
    fn base_rounds_go_to_whole_sets_cheapest_first_within_their_share() {
        use Priority::*;
        // Costs 0.1, 0.15, 5, 5, 1 s a round; five rounds to go. Deciding sets {0, 1} (1.25 s)
        // and {2, 3} (50 s), the shown {4} (5 s). 40 s left: a share of 30 s takes {0, 1} and
        // {4}, not the 50-s pair, whose six rounds would overrun.
        let sets = vec![
            (Decides, vec![2, 3]),
            (Shown, vec![4]),
            (Decides, vec![0, 1]),
        ];
        assert_eq!(
            base_sets(sets.clone(), costs, 5, 40.0, 0.75, 1.0),
            vec![0, 1, 4]
        );
        // 100 s left: 75 s holds everything (56.25 s), the deciding sets first.
        assert_eq!(
            base_sets(sets.clone(), costs, 5, 100.0, 0.75, 1.0),
            vec![0, 1, 2, 3, 4]
        );
        // Nothing left, or no round to go: nothing to add, and nothing costs more than left.
        assert!(base_sets(sets.clone(), costs, 5, 0.0, 0.75, 1.0).is_empty());
        let mut all = base_sets(sets, costs, 0, 0.0, 0.75, 1.0);
        all.sort_unstable();
        assert_eq!(all, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn regression_a_full_run_left_s4s_cold_reads_at_one_round_for_dearer_figures_it_showed() {
        use Priority::*;
        // Costs 0.1, 0.15, 5, 5, 1 s a round; five rounds to go. The deciding {2} (25 s, S4's
        // cold reads) and the shown {4} (5 s, a dear figure of the first screen) with a 28-s
        // share: cheapest first took {4} and left {2} at one round, as the full run f-1 did
        // (2026-11-27); now the deciding set goes first and the shown one keeps one round.
        let sets = vec![(Shown, vec![4]), (Decides, vec![2])];
        assert_eq!(base_sets(sets.clone(), costs, 5, 28.0, 1.0, 0.3), vec![2]);
        // Where both fit, both; a cheap shown set (under `cheap`) still goes with the deciding
        // ones, cheapest first (the headline's figures).
        assert_eq!(base_sets(sets, costs, 5, 30.0, 1.0, 0.3), vec![2, 4]);
        let sets = vec![(Decides, vec![2]), (Shown, vec![0]), (Shown, vec![4])];
        assert_eq!(base_sets(sets, costs, 5, 28.0, 1.0, 0.3), vec![0, 2]);
    }

    #[test]
    fn regression_the_headline_comparison_gets_its_base_rounds_before_cheaper_deciding_sets() {
        use Priority::*;
        // Costs 0.1, 0.15, 5, 5, 1 s a round; five rounds to go; 52 s to share. Cheapest first
        // took {0, 1} and {4} and left the dear {2, 3} at one round, as every full run left
        // S2's keep-alive servers (2026-11-28); marked the headline, {2, 3} goes first.
        let sets = vec![
            (Decides, vec![0, 1]),
            (Decides, vec![4]),
            (Decides, vec![2, 3]),
        ];
        assert_eq!(base_sets(sets, costs, 5, 52.0, 1.0, 0.3), vec![0, 1, 4]);
        let sets = vec![
            (Decides, vec![0, 1]),
            (Decides, vec![4]),
            (Headline, vec![2, 3]),
        ];
        assert_eq!(base_sets(sets, costs, 5, 52.0, 1.0, 0.3), vec![2, 3, 0, 1]);
        // A headline that does not fit leaves the room to the others.
        let sets = vec![(Headline, vec![2, 3]), (Decides, vec![0, 1])];
        assert_eq!(base_sets(sets, costs, 5, 40.0, 1.0, 0.3), vec![0, 1]);
        assert!(Headline.decides() && Decides.decides() && !Shown.decides());
    }

    /// The invariants of [`base_sets`] over many random inputs (a property test without a
    /// crate: a seeded generator, so a failure reproduces).
    #[test]
    fn base_sets_keeps_its_invariants_on_random_sets() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..500 {
            let n = rng.usize(1..8);
            let cost: Vec<f64> = (0..n).map(|_| rng.f64() * 10.0).collect();
            let sets: Vec<(Priority, Vec<usize>)> = (0..rng.usize(0..6))
                .map(|_| {
                    let p = [
                        Priority::Headline,
                        Priority::Decides,
                        Priority::Shown,
                        Priority::Beside,
                    ][rng.usize(0..4)];
                    let mut set: Vec<usize> =
                        (0..rng.usize(1..4)).map(|_| rng.usize(0..n)).collect();
                    set.sort_unstable();
                    set.dedup();
                    (p, set)
                })
                .collect();
            let (left, cheap) = (rng.f64() * 200.0, rng.f64() * 3.0);
            let chosen = base_sets(sets.clone(), |i| cost[i], 5, left, 0.9, cheap);
            let spent: f64 = chosen.iter().map(|&i| cost[i] * 5.0).sum();
            assert!(spent <= 0.9 * left + 1e-9, "{spent} > {left}");
            let mut unique = chosen.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), chosen.len(), "a variant chosen twice");
            let taken = |set: &[usize]| set.iter().all(|i| chosen.contains(i));
            for (p, set) in &sets {
                // Whole or not at all; and a deciding set left out could not have fitted even
                // before every dear set that does not decide was taken.
                if !taken(set) && p.decides() {
                    let own: f64 = set
                        .iter()
                        .filter(|i| !chosen.contains(i))
                        .map(|&i| cost[i] * 5.0)
                        .sum();
                    let others_dear: f64 = sets
                        .iter()
                        .filter(|(q, s)| !q.decides() && taken(s))
                        .filter(|(_, s)| s.iter().any(|&i| cost[i] >= cheap))
                        .flat_map(|(_, s)| s.iter().copied())
                        .filter(|i| {
                            !set.contains(i)
                                && !sets
                                    .iter()
                                    .any(|(q, s)| q.decides() && taken(s) && s.contains(i))
                        })
                        .collect::<std::collections::BTreeSet<usize>>()
                        .iter()
                        .map(|&i| cost[i] * 5.0)
                        .sum();
                    assert!(
                        others_dear == 0.0 || spent - others_dear + own > 0.9 * left,
                        "{sets:?} {chosen:?}"
                    );
                }
            }
            for &i in &chosen {
                assert!(
                    sets.iter().any(|(_, s)| s.contains(&i) && taken(s)),
                    "{i} outside a chosen set"
                );
            }
        }
    }

    #[test]
    fn a_deciding_set_comes_before_a_beside_one_of_the_same_cost() {
        use Priority::*;
        // {2} and {3} both cost 25 s for five rounds; a 30-s share holds one of them.
        let sets = vec![(Beside, vec![2]), (Decides, vec![3])];
        assert_eq!(base_sets(sets, costs, 5, 40.0, 0.75, 10.0), vec![3]);
    }

    #[test]
    fn a_dear_set_only_beside_the_verdicts_gets_no_base_rounds_of_its_own() {
        use Priority::*;
        // {2} beside costs 5 s a round: not cheap (1 s), so it is left out though it fits; a
        // beside set whose variants a deciding set already measures costs nothing more.
        let sets = vec![(Beside, vec![2]), (Decides, vec![0, 1]), (Beside, vec![0])];
        assert_eq!(base_sets(sets, costs, 5, 1000.0, 0.75, 1.0), vec![0, 1]);
        let sets = vec![(Beside, vec![2, 3]), (Decides, vec![3])];
        assert_eq!(base_sets(sets, costs, 5, 1000.0, 0.75, 1.0), vec![3]);
        assert_eq!(
            base_sets(vec![(Beside, vec![4])], costs, 5, 1000.0, 0.75, 2.0),
            vec![4]
        );
        // Cheapest first across priorities: the shown {0} (0.5 s) before the deciding {2, 3}
        // (50 s), in a 50.4-s share; a cheap beside set the same.
        let sets = vec![(Decides, vec![2, 3]), (Shown, vec![0])];
        assert_eq!(base_sets(sets, costs, 5, 67.2, 0.75, 1.0), vec![0]);
        let sets = vec![(Decides, vec![2, 3]), (Beside, vec![0])];
        assert_eq!(base_sets(sets, costs, 5, 67.2, 0.75, 1.0), vec![0]);
    }

    #[test]
    fn regression_a_full_run_spent_618_s_of_its_540_s_budget_on_base_rounds() {
        // The recorded full run (/work/m-prev/full.json, 2026-11-26): a first pass of 103 s
        // over the verdicts' variants, of which S4's cold reads (21 s a pass), the creation
        // probes (12 s), the servers (37 s) and the rest (33 s). Five more passes of all of
        // them (515 s) overran the 423 s left; the plan now keeps them within 317 s and leaves
        // the rest to adaptive rounds.
        let cost = |i: usize| [21.0, 12.0, 37.0, 33.0][i];
        let sets = (0..4).map(|i| (Priority::Decides, vec![i])).collect();
        let chosen = base_sets(sets, cost, 5, 423.0, 0.75, 0.3);
        let spent: f64 = chosen.iter().map(|&i| cost(i) * 5.0).sum();
        assert!(spent <= 0.75 * 423.0, "{spent}");
        // 60 + 105 s: the servers' 185 s and the rest's 165 s do not fit beside them.
        assert_eq!(chosen, vec![1, 0], "the dearest sets give way");
    }

    #[test]
    fn regression_replicate_s2_left_swoole_and_netty_blocking_at_one_round_with_14_s_unspent() {
        // `replicate S2 --quick` (2026-11-27) ended at 41 s of its 55: the blocking servers'
        // set (two variants, about 1 s a round) kept one round, so S2.blocking had no
        // interval. Its five more rounds (10 s) now fit in nine tenths of those 14 s (they
        // did not in half); not in nine tenths of 11 s; and the cheapest set that fits is
        // chosen.
        let cost = |i: usize| [1.0, 1.0, 5.0, 0.65][i];
        assert_eq!(
            short_set_to_complete(vec![vec![0, 1]], cost, 5, 14.0),
            Some(vec![0, 1])
        );
        assert_eq!(short_set_to_complete(vec![vec![0, 1]], cost, 5, 11.0), None);
        assert_eq!(
            short_set_to_complete(vec![vec![2, 3], vec![0, 1]], cost, 5, 24.0),
            Some(vec![0, 1])
        );
        // S0.create's C programs (5.65 s a round, 28 s for five more) in a full run's last 60 s.
        assert_eq!(
            short_set_to_complete(vec![vec![2, 3]], cost, 5, 60.0),
            Some(vec![2, 3])
        );
        assert_eq!(short_set_to_complete(vec![vec![2, 3]], cost, 0, 60.0), None);
        assert_eq!(short_set_to_complete(Vec::new(), cost, 5, 60.0), None);
    }
}
