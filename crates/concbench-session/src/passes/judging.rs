//! Judging between passes: the provisional document of what has been measured so far, the checks
//! still to be decided and the variants they read, each check's priority for the base passes,
//! and the figures a run left short or withheld (for the closing warnings).

use super::slot::Slot;
use super::Run;
use crate::assemble::{assemble, Measured};
use crate::closing::{LeftAt, LeftShort};
use crate::schedule::Priority;
use concbench_analysis::published::Published;
use concbench_analysis::verdicts;
use concbench_core::ResultEntry;

/// One check of `published` as the planner sees it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CheckSet {
    pub(super) claim: String,
    /// Its index among its claim's checks.
    pub(super) spec: usize,
    /// How much it matters to the base passes.
    pub(super) priority: Priority,
    /// The variants its selectors match.
    pub(super) variants: Vec<usize>,
}

/// The provisional verdicts' checks as variant sets, after the first pass.
pub(super) struct JudgedSets {
    /// Each check still to be decided ([`Run::undecided_checks`]).
    pub(super) open: Vec<Vec<usize>>,
    /// Each check shown only beside those that decide (`Judged::beside_checks`).
    pub(super) beside: Vec<Vec<usize>>,
    /// Every judged check (open, decided, withheld or beside): its claim, its index among the
    /// claim's checks, its variants.
    pub(super) by_spec: Vec<(String, usize, Vec<usize>)>,
}

/// Each check's claim, priority and variants (`links`, in the order of `published`'s checks):
/// a check that may decide comes first; a `decides = false` check's is beside, and so is a
/// stand-in's where the article's own program of its facet is measured in this run (where it
/// is not, as in a quick run without the JVM servers, the stand-in decides).
pub(super) fn check_priorities(published: &Published, links: &[Vec<usize>]) -> Vec<CheckSet> {
    let mut out = Vec::new();
    let mut at = 0;
    for claim in &published.claims {
        let sets = &links[at..at + claim.checks.len()];
        at += claim.checks.len();
        let article_measured =
            |facet: &Option<String>| {
                claim.checks.iter().zip(sets).any(|(k, set)| {
                    !k.stand_in && k.decides && &k.facet == facet && !set.is_empty()
                })
            };
        for (spec, (check, set)) in claim.checks.iter().zip(sets).enumerate() {
            if set.is_empty() {
                continue;
            }
            let beside = !check.decides || (check.stand_in && article_measured(&check.facet));
            let priority = match (beside, check.headline) {
                (true, _) => Priority::Beside,
                (false, true) => Priority::Headline,
                (false, false) => Priority::Decides,
            };
            out.push(CheckSet {
                claim: claim.id.clone(),
                spec,
                priority,
                variants: set.clone(),
            });
        }
    }
    out
}

impl Run<'_, '_> {
    /// For each check still inconclusive (and decidable by more rounds) or decided but fragile,
    /// its variants.
    pub(super) fn undecided_checks(&self) -> Vec<Vec<usize>> {
        let doc = self.provisional();
        self.open_of(verdicts::judge_all(&doc, &self.published))
    }

    /// The variants of each open check of `judged`, each set once.
    pub(super) fn open_of(&self, judged: Vec<verdicts::Judged<'_>>) -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<usize>> = Vec::new();
        for judged in judged {
            // Fragile decisions too: stopping at the first look where an interval happens to
            // clear a margin is what makes a rerun disagree.
            let open = judged
                .undecided_checks
                .into_iter()
                .chain(judged.fragile_checks);
            for check in open {
                let set = self.indices(&check);
                if !set.is_empty() && !out.contains(&set) {
                    out.push(set);
                }
            }
        }
        out
    }

    /// The provisional verdicts' checks, as variant sets ([`JudgedSets`]).
    pub(super) fn judged_checks(&self) -> JudgedSets {
        let doc = self.provisional();
        let judged = verdicts::judge_all(&doc, &self.published);
        let beside = (judged.iter())
            .flat_map(|j| j.beside_checks.iter().map(|c| self.indices(c)))
            .collect();
        let by_spec = (judged.iter())
            .flat_map(|j| {
                (j.instances.iter())
                    .map(|(spec, c)| (j.verdict.source.clone(), *spec, self.indices(c)))
            })
            .collect();
        JudgedSets {
            open: self.open_of(judged),
            beside,
            by_spec,
        }
    }

    /// The variant indices of `entries`, sorted.
    pub(super) fn indices(&self, entries: &[&concbench_core::ResultEntry]) -> Vec<usize> {
        let index = |e: &concbench_core::ResultEntry| {
            self.variants
                .iter()
                .position(|v| v.meta.id == e.id && v.params == e.params)
        };
        let mut set: Vec<usize> = entries.iter().filter_map(|e| index(e)).collect();
        set.sort_unstable();
        set.dedup();
        set
    }

    /// A document of what has been measured so far, to judge.
    pub(super) fn provisional(&self) -> concbench_core::ResultDoc {
        let measured = self.measured();
        let (results, _) = assemble(&measured, self.rig.host);
        self.doc(results)
    }

    /// A document of `results` to judge: the plan's round cap goes with it, since it bounds
    /// what more rounds can decide.
    pub(super) fn doc(&self, results: Vec<ResultEntry>) -> concbench_core::ResultDoc {
        let mut doc = concbench_core::ResultDoc {
            results,
            ..concbench_core::ResultDoc::new(self.rig.host.clone(), String::new())
        };
        concbench_core::RoundCaps {
            max_rounds: self.plan.max_rounds,
        }
        .write(&mut doc.settings);
        doc
    }

    pub(super) fn measured(&self) -> Vec<Measured<'_>> {
        self.slots
            .iter()
            .filter(|s| !s.done && !s.rounds.is_empty())
            .map(|s| Measured { rounds: &s.rounds })
            .collect()
    }

    /// The figures `marked` picks that are not done, with the claims whose checks `counts`
    /// accepts that read them; `None` when there are none.
    pub(super) fn left_at(
        &self,
        marked: impl Fn(&Slot) -> bool,
        counts: impl Fn(&CheckSet) -> bool,
    ) -> Option<(Vec<usize>, LeftAt)> {
        let picked: Vec<usize> = (0..self.slots.len())
            .filter(|&i| marked(&self.slots[i]) && !self.slots[i].done)
            .collect();
        if picked.is_empty() {
            return None;
        }
        let claims = (self.claims_reading(&picked, counts).into_iter())
            .map(str::to_string)
            .collect();
        let left = LeftAt {
            figures: picked.len(),
            claims,
        };
        Some((picked, left))
    }

    /// The figures the budget gave their first round only ([`Slot::short`]), the claims a
    /// left-out figure would have decided (those it is only shown beside keep their verdicts),
    /// and what their left-out rounds cost.
    pub(super) fn left_short(&self) -> Option<LeftShort> {
        let (short, left) = self.left_at(|s| s.short, |c| c.priority.decides())?;
        let more = self.plan.claim_rounds.saturating_sub(1);
        let cost_s = short.iter().map(|&i| self.slots[i].cost_of(more)).sum();
        Some(LeftShort { left, cost_s })
    }

    /// The claims, once each in check order, of the checks `counts` accepts that read a slot of
    /// `slots`.
    pub(super) fn claims_reading(
        &self,
        slots: &[usize],
        counts: impl Fn(&CheckSet) -> bool,
    ) -> Vec<&str> {
        let mut claims: Vec<&str> = Vec::new();
        for c in &self.checks {
            let reads = c.variants.iter().any(|i| slots.contains(i));
            if reads && counts(c) && !claims.contains(&c.claim.as_str()) {
                claims.push(&c.claim);
            }
        }
        claims
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_analysis::published::published;
    #[test]
    fn a_stand_in_decides_only_where_the_articles_program_is_not_measured() {
        // S0.create's stand-in (concbench's create.*_100k, variants 0 and 1) beside the
        // article's programs (probes.c.*_100k, variants 2 and 3) when they are in the run.
        let p = published();
        let links = |probes: bool| -> Vec<Vec<usize>> {
            p.claims
                .iter()
                .flat_map(|c| c.checks.iter().map(move |k| (c.id.as_str(), k)))
                .map(|(claim, k)| match (claim, k.stand_in, probes) {
                    ("S0.create", true, _) => vec![0, 1],
                    ("S0.create", false, true) => vec![2, 3],
                    _ => Vec::new(),
                })
                .collect()
        };
        let stand_in = |probes: bool| {
            check_priorities(&p, &links(probes))
                .into_iter()
                .find(|c| c.claim == "S0.create" && c.variants == [0, 1])
                .map(|c| c.priority)
        };
        assert_eq!(stand_in(false), Some(Priority::Decides));
        assert_eq!(stand_in(true), Some(Priority::Beside));
    }

    #[test]
    fn the_headline_claims_article_check_is_the_headline_and_its_stand_in_beside() {
        // S2.no_blocking (marked `headline`): Swoole vs Netty decide first; PHP Fibers stand in
        // beside while Swoole is measured.
        let p = published();
        let headline: Vec<(&str, &str)> = (p.claims.iter())
            .flat_map(|c| c.checks.iter().map(move |k| (c, k)))
            .filter(|(_, k)| k.headline)
            .map(|(c, k)| (c.id.as_str(), k.facet.as_deref().unwrap_or("")))
            .collect();
        // The printed code's Netty only: the prose's reading decides beside it at its own
        // price (both as headline left 33 deciding figures at one round in a full run).
        assert_eq!(headline, [("S2.no_blocking", "equal, the printed code")]);
        let links: Vec<Vec<usize>> = (p.claims.iter())
            .flat_map(|c| c.checks.iter().map(move |k| (c.id.as_str(), k)))
            .map(|(claim, k)| match (claim, k.stand_in) {
                ("S2.no_blocking", false) => vec![0, 1],
                ("S2.no_blocking", true) => vec![2, 1],
                _ => Vec::new(),
            })
            .collect();
        let priorities = check_priorities(&p, &links);
        let of = |variants: [usize; 2]| {
            (priorities.iter())
                .find(|c| c.variants == variants)
                .map(|c| c.priority)
        };
        assert_eq!(of([0, 1]), Some(Priority::Headline));
        assert_eq!(of([2, 1]), Some(Priority::Beside));
    }
}
