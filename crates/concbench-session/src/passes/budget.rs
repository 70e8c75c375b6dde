//! The run's budget: the time it may spend, how it grows for the deciding checks, the reserve kept
//! for adaptive rounds, and whether a pass or a round fits in what is left.

use super::Run;
use crate::closing::CORRECTED_ROUNDS;
use crate::schedule::{cheapest_first, order};
use std::time::Duration;

impl Run<'_, '_> {
    /// The run's budget: the plan's, or what it grew to ([`Run::grow_for_deciding`]).
    pub(super) fn budget(&self) -> Duration {
        self.grown.unwrap_or(self.plan.budget)
    }

    /// Where the plan allows ([`RunPlan::grow_to`]), grows the budget so that the base rounds
    /// of every deciding check set fit in the share the base passes may take, up to the cap.
    pub(super) fn grow_for_deciding(&mut self, more: usize) {
        let Some(cap) = self.plan.grow_to else {
            return;
        };
        let mut deciding: Vec<usize> = (self.checks.iter())
            .filter(|c| c.priority.decides())
            .flat_map(|c| c.variants.iter().copied())
            .filter(|&i| !self.slots[i].done)
            .collect();
        deciding.sort_unstable();
        deciding.dedup();
        // Room for the rounds a refutation needs under the correction across a claim's
        // conditions, beyond the base six: measured, `replicate S2 --quick` grown to six rounds
        // left S2.blocking's "about 6x" (130x [110, 149]) "refuted on its own, but not once the
        // correction for the claim's 2 checks is applied" at seven.
        let more = more.max(CORRECTED_ROUNDS.saturating_sub(1));
        let cost: f64 = deciding.iter().map(|&i| self.slots[i].cost_of(more)).sum();
        let needed = self.elapsed().as_secs_f64() + self.reserve_s() + cost / self.plan.base_share;
        let grown = Duration::from_secs_f64(needed.ceil()).min(cap);
        if grown > self.plan.budget {
            self.grown = Some(grown);
        }
    }

    /// The seconds of the reserve the first round of each cheap variant no verdict reads
    /// (expected under `cheap_round`) may take: their expected cost. Why from the reserve, not
    /// the base rounds: replayed on the full run f-1, keeping it from the base rounds left S4's
    /// cold reads at one round again; and keeping nothing left all 210 such figures unmeasured,
    /// where the cheap ones cost seconds in all (81 of f-1's 160 figures, 10 s).
    pub(super) fn kept_for_cheap_others(&self, others: &[usize]) -> f64 {
        let cheap = self.plan.cheap_round.as_secs_f64();
        (others.iter())
            .filter(|&&i| !self.slots[i].done)
            .map(|&i| self.expected_wall(i))
            .filter(|&w| w < cheap)
            .sum()
    }

    /// Seconds of the budget kept for adaptive rounds ([`RunPlan::reserve`]).
    pub(super) fn reserve_s(&self) -> f64 {
        self.budget().as_secs_f64() * self.plan.reserve
    }

    /// One pass over `wanted` in the scheduled order, taking no round once the budget is spent.
    pub(super) fn pass_in_budget(&mut self, wanted: &[usize]) -> bool {
        let ordered = order(&self.groups, wanted, self.plan.seed, self.passes);
        let budget = self.budget();
        self.pass_in(ordered, &|run: &Self| run.elapsed() < budget)
    }

    /// A pass over `wanted`, cheapest first, that takes no round once the run has reached
    /// `until` seconds (the budget, or the budget less the reserve for adaptive rounds).
    pub(super) fn pass_within(&mut self, wanted: &[usize], until: f64) -> bool {
        let shuffled = order(&self.groups, wanted, self.plan.seed, self.passes);
        let ordered = cheapest_first(shuffled, |i| self.expected_wall(i));
        self.pass_in(ordered, &|run: &Self| run.elapsed().as_secs_f64() < until)
    }

    /// Variant `i`'s expected round time: its own rounds' mean, or else that of the measured
    /// variants of its experiment, or else of its family, or else of everything measured.
    /// Why guess: before its first round only its kin say what a round of it costs (a
    /// `switch` round is 0.02 s, an `io` one seconds).
    pub(super) fn expected_wall(&self, i: usize) -> f64 {
        if !self.slots[i].rounds.is_empty() {
            return self.slots[i].mean_wall();
        }
        let mean_of = |same: &dyn Fn(usize) -> bool| -> Option<f64> {
            let walls: Vec<f64> = (0..self.slots.len())
                .filter(|&j| !self.slots[j].rounds.is_empty() && same(j))
                .map(|j| self.slots[j].mean_wall())
                .collect();
            (!walls.is_empty()).then(|| walls.iter().sum::<f64>() / walls.len() as f64)
        };
        let meta = &self.variants[i].meta;
        mean_of(&|j| self.variants[j].meta.id == meta.id)
            .or_else(|| mean_of(&|j| self.variants[j].meta.family == meta.family))
            .or_else(|| mean_of(&|_| true))
            .unwrap_or(0.0)
    }

    /// Whether a pass over `wanted` is expected to end within the budget.
    pub(super) fn affordable(&self, wanted: &[usize]) -> bool {
        let cost: f64 = wanted.iter().map(|&i| self.slots[i].mean_wall()).sum();
        self.elapsed().as_secs_f64() + cost <= self.budget().as_secs_f64()
    }
}
