//! The run loop: base passes, then passes for undecided verdicts, then interval top-ups; what it
//! measured, summarised, validated and judged, as the run's document ([`crate::run`] completes it).

use crate::closing::{self, RunSummary, VerdictState};
use crate::monitor::Monitor;
use crate::plan::RunPlan;
use crate::rig::{Finished, Rig, RunStats};
use crate::schedule::{adaptive_pass, base_sets, groups, order, short_set_to_complete, Priority};
use crate::settle::{settle, Settled};
use crate::variant::Variant;

mod budget;
mod judging;
mod slot;

use crate::assemble::assemble;
use concbench_analysis::published::{published, Published};
use concbench_analysis::verdicts;
use concbench_core::{Failure, Outcome, Params, RoundFacts, RoundRaw, Skipped, Verdict};
use judging::{check_priorities, CheckSet};
use slot::Slot;
use std::time::Duration;

struct Run<'a, 'r> {
    variants: &'a [Variant],
    plan: &'a RunPlan,
    rig: &'a mut Rig<'r>,
    published: Published,
    groups: Vec<Vec<usize>>,
    /// Per check of `published` that reads a variant of this run.
    checks: Vec<CheckSet>,
    slots: Vec<Slot>,
    monitor: Monitor,
    skipped: Vec<Skipped>,
    failures: Vec<Failure>,
    passes: usize,
    planned: usize,
    started: Duration,
    /// How long the base passes took: when they spend the whole budget, no check gets a round
    /// beyond its first six, and the run says so.
    base_took: Duration,
    /// Variants no verdict reads that the budget left without a round (reported skipped).
    unmeasured: usize,
    /// The budget after it grew for the deciding check sets ([`RunPlan::grow_to`]).
    grown: Option<Duration>,
}

/// Settle, measure `variants` in passes as `plan` says, judge, and return what was measured:
/// the document's results, invalid, skipped, failures, verdicts and the run's own warnings
/// (the host, the settings and the start time are the caller's: [`crate::run`]).
pub fn run_passes(variants: &[Variant], plan: &RunPlan, rig: &mut Rig<'_>) -> Finished {
    let published = published();
    let keys: Vec<(&str, &Params)> = variants.iter().map(|v| (v.meta.id, &v.params)).collect();
    let links = verdicts::check_variants(&published, &keys);
    let priorities = check_priorities(&published, &links);
    let mut slots: Vec<Slot> = (variants.iter())
        .map(|v| Slot {
            rounds_per_setup: v.rounds_per_setup,
            ..Slot::default()
        })
        .collect();
    for i in links.iter().flatten() {
        slots[*i].needs_interval = true;
    }
    // The answer's unit table and the advice's cards read a few variants no verdict may read
    // (a coroutine's creation, the bare switches): they get a verdict's rounds too, so that
    // every figure of the first screen has an interval, in a quick run as well.
    for (slot, v) in slots.iter_mut().zip(variants) {
        slot.needs_interval |= concbench_analysis::advice::reads_variant(v.meta.id, &v.params);
    }
    // The anatomy's layers are differences of two results taken pass by pass: when a paired
    // variant runs, every variant it reads needs its rounds in the same passes, as a verdict's do (topped up
    // later, a cheap variant shared only three passes with its neighbour: no interval).
    if variants.iter().any(|v| v.paired) {
        slots.iter_mut().for_each(|s| s.needs_interval = true);
    }
    let settled = (plan.settle > Duration::ZERO).then(|| {
        let cancelled = || rig.cancel.is_cancelled();
        settle(rig.machine, plan.settle, &cancelled, &mut |o, w| {
            rig.observer.settling(o, w, plan.settle)
        })
    });
    let started = rig.machine.now();
    let mut run = Run {
        variants,
        plan,
        rig,
        groups: groups(variants.len(), &links),
        checks: priorities,
        published,
        slots,
        monitor: Monitor::default(),
        skipped: Vec::new(),
        failures: Vec::new(),
        passes: 0,
        planned: 0,
        started,
        base_took: Duration::ZERO,
        unmeasured: 0,
        grown: None,
    };
    run.monitor.mark(run.rig.machine);
    run.base_passes();
    run.base_took = run.elapsed();
    run.verdict_passes();
    run.others_left();
    run.top_up_passes();
    run.finish(settled)
}

impl Run<'_, '_> {
    fn elapsed(&self) -> Duration {
        self.rig.machine.now() - self.started
    }

    fn plan_more(&mut self, rounds: usize) {
        self.planned += rounds;
        self.rig.observer.planned(self.planned);
    }

    /// The rounds variant `i` gets in the base passes: a verdict's (its first alone when the
    /// budget left its checks no room) or the others'.
    fn base_rounds(&self, i: usize) -> usize {
        let s = &self.slots[i];
        match (s.needs_interval, s.short || s.withheld) {
            (true, false) => self.plan.claim_rounds,
            (true, true) => 1,
            _ => self.plan.other_rounds,
        }
    }

    /// Everyone gets its first rounds, none past the budget: one pass of the variants a verdict
    /// uses; then the rest of their `claim_rounds` for the check sets that fit in a share of
    /// the budget left beside the reserve ([`base_sets`]: deciding checks first, cheapest
    /// first); then `other_rounds` passes of the others, cheapest first, until the reserve for
    /// adaptive rounds ([`RunPlan::reserve`]). Why the first pass first: only then is a round's
    /// cost known, worker and server start-up included. Measured on 2026-11-26, a full run's
    /// base passes (six of every verdict's variant, whatever they cost) took 618 s of its 540-s
    /// budget and the run 623 s: over the ten minutes it promises, with no adaptive round left.
    fn base_passes(&mut self) {
        let judged: Vec<usize> = (0..self.slots.len())
            .filter(|&i| self.slots[i].needs_interval)
            .collect();
        let others: Vec<usize> = (0..self.slots.len())
            .filter(|&i| !self.slots[i].needs_interval)
            .collect();
        self.rig.observer.estimated(
            judged.len() * self.plan.claim_rounds + others.len() * self.plan.other_rounds,
        );
        self.plan_more(judged.len());
        if !self.pass_in_budget(&judged) {
            return;
        }
        let more = self.plan.claim_rounds.saturating_sub(1);
        self.grow_for_deciding(more);
        let sets = self.base_candidates(&judged);
        let chosen = self.base_choice(sets.clone(), more);
        // Left out of the base rounds: for the budget, when a check still to be decided (or a
        // first-screen figure) wanted it; else because none does (withheld, or only beside).
        for &i in &judged {
            let deciding = (sets.iter()).any(|(p, set)| *p != Priority::Beside && set.contains(&i));
            let left_out = more > 0 && !chosen.contains(&i);
            self.slots[i].short = left_out && deciding;
            self.slots[i].withheld = left_out && !deciding;
        }
        self.plan_more(chosen.len() * more);
        for _ in 0..more {
            if !self.pass_in_budget(&chosen) {
                return;
            }
        }
        self.plan_more(others.len() * self.plan.other_rounds);
        let budget = self.budget().as_secs_f64();
        let until = (budget - self.reserve_s() + self.kept_for_cheap_others(&others)).min(budget);
        for _ in 0..self.plan.other_rounds {
            if !self.pass_within(&others, until) {
                return;
            }
        }
    }

    /// After the adaptive rounds: a round of each variant no verdict reads that the reserve
    /// kept from its base pass, while the budget lasts; the rest are reported skipped.
    fn others_left(&mut self) {
        let waiting: Vec<usize> = (0..self.slots.len())
            .filter(|&i| {
                let s = &self.slots[i];
                !s.needs_interval && !s.done && s.rounds.is_empty()
            })
            .collect();
        let budget = self.budget().as_secs_f64();
        let room = self.elapsed().as_secs_f64() < budget;
        if room && !self.pass_within(&waiting, budget) {
            return;
        }
        if !self.rig.cancel.is_cancelled() {
            self.skip_unmeasured(&waiting);
        }
    }

    /// The sets that may get the rest of their base rounds, judged on the first pass: each
    /// condition a verdict may still decide by more rounds (the variants it compares); each
    /// shown beside them; what no judged condition of a check compares, by its check's set as
    /// before; and a variant no check reads (a first-screen figure, the anatomy's) alone. A
    /// variant only withheld conditions compare is in none of them.
    ///
    /// Why conditions, not whole checks: one check of `published` spans several conditions
    /// (S4.one_thread's concbench check: two sizes by four readers, 16 variants) and a set is
    /// taken whole or not at all, so one dear condition kept all the others at one round — the
    /// full run of 2026-11-27 left S4.degrade's 100-thread read there. Why judged: a condition
    /// a guard withholds on this machine (S4's CPU-bound readers, the article's Java reader
    /// among them: 1.01 of its wall time on the CPU) cannot decide however many rounds it gets,
    /// so its rounds go to the conditions that can; it keeps its first round, shown with the
    /// guard's reason.
    fn base_candidates(&self, judged: &[usize]) -> Vec<(Priority, Vec<usize>)> {
        let measured = |i: &usize| !self.slots[*i].done;
        let only_measured = |set: &[usize]| set.iter().copied().filter(measured).collect();
        let seen = self.judged_checks();
        // A condition of the headline's checks keeps the headline's priority.
        let headline = |set: &[usize]| {
            (self.checks.iter()).any(|c| {
                c.priority == Priority::Headline && set.iter().all(|i| c.variants.contains(i))
            })
        };
        let deciding = |set: &[usize]| match headline(set) {
            true => Priority::Headline,
            false => Priority::Decides,
        };
        let mut sets: Vec<(Priority, Vec<usize>)> = (seen.open.iter())
            .map(|set| (deciding(set), only_measured(set)))
            .chain((seen.beside.iter()).map(|set| (Priority::Beside, only_measured(set))))
            .collect();
        // What none of a check's judged conditions compares (all of it, when its partner is not
        // in this run, under `--only`; a read its selectors match but no condition uses) is
        // planned by the check as before: a variant is not left at one round for want of a
        // verdict on it, and `--rounds N` gives it N.
        for c in &self.checks {
            let judged_here = |i: &usize| {
                (seen.by_spec.iter()).any(|(claim, spec, set)| {
                    *claim == c.claim && *spec == c.spec && set.contains(i)
                })
            };
            let rest: Vec<usize> = (c.variants.iter().copied())
                .filter(|i| !judged_here(i))
                .collect();
            sets.push((c.priority, only_measured(&rest)));
        }
        sets.retain(|(_, set)| !set.is_empty());
        for &i in judged.iter().filter(|i| measured(i)) {
            if !self.checks.iter().any(|c| c.variants.contains(&i)) {
                sets.push((Priority::Shown, vec![i]));
            }
        }
        sets
    }

    /// The variants of `sets` that get `more` base rounds within the budget left
    /// ([`base_sets`]).
    fn base_choice(&self, sets: Vec<(Priority, Vec<usize>)>, more: usize) -> Vec<usize> {
        let cheap = self.plan.cheap_round.as_secs_f64();
        let left = self.budget().as_secs_f64() - self.elapsed().as_secs_f64() - self.reserve_s();
        base_sets(
            sets,
            |i| self.slots[i].round_cost_of(more),
            more,
            left,
            self.plan.base_share,
            cheap,
        )
    }

    /// Variants of `wanted` the budget left without a round, reported skipped with the reason
    /// and the way to measure them.
    fn skip_unmeasured(&mut self, wanted: &[usize]) {
        for &i in wanted {
            let s = &mut self.slots[i];
            if s.done || !s.rounds.is_empty() || self.rig.cancel.is_cancelled() {
                continue;
            }
            s.done = true;
            self.unmeasured += 1;
            let v = &self.variants[i];
            self.skipped.push(Skipped {
                id: v.meta.id.into(),
                params: v.params.clone(),
                reason: format!(
                    "not measured: the run's budget ({:.0} s) was spent before its round, and \
                     no verdict reads it; `--only {}` (or a larger --budget) measures it",
                    self.budget().as_secs_f64(),
                    v.meta.id
                ),
            });
        }
    }

    fn rounds_taken(&self) -> usize {
        self.slots.iter().map(|s| s.rounds.len()).sum()
    }

    /// Variants whose clean rounds fell short of their base because rounds were excluded. (A
    /// figure no verdict reads still waiting for its first round is not one: it waits for
    /// [`Run::others_left`], after the verdicts' rounds.)
    fn short_of_base(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&i| {
                let s = &self.slots[i];
                !s.done
                    && (s.needs_interval || !s.rounds.is_empty())
                    && s.clean_rounds() < self.base_rounds(i)
                    && s.rounds.len() < self.plan.max_rounds
            })
            .collect()
    }

    /// Passes over the variants of undecided checks until they are decided, capped or out of
    /// budget. A check gains a pair of rounds only when all its variants are measured in one
    /// pass, so a pass takes whole checks, the cheapest first, within a share of the budget
    /// left ([`adaptive_pass`]): the cheap checks get many passes, the dear ones join
    /// while the budget is large.
    fn verdict_passes(&mut self) {
        loop {
            match self.complete_short_set() {
                Some(true) => continue,
                Some(false) => return,
                None => {}
            }
            let mut sets = self.undecided_checks();
            sets.extend(self.short_of_base().into_iter().map(|i| vec![i]));
            sets.retain(|set| {
                set.iter().all(|&i| {
                    let s = &self.slots[i];
                    !s.done && !s.short && s.rounds.len() < self.plan.max_rounds
                })
            });
            let left = self.budget().as_secs_f64() - self.elapsed().as_secs_f64();
            let wanted = adaptive_pass(sets, |i| self.slots[i].mean_wall(), left);
            if wanted.is_empty() {
                return;
            }
            self.plan_more(wanted.len());
            if !self.pass(&wanted) {
                return;
            }
        }
    }

    /// Brings one undecided check set that the base passes left at one round to its base
    /// rounds, when they now fit in a share of the budget left ([`short_set_to_complete`]):
    /// `Some(true)` done, `Some(false)` the budget ran out, `None` nothing to complete. Why:
    /// one round gives no interval, so such a set decides nothing however long the run goes
    /// on; measured, `replicate S2 --quick` ended 14 s early with S2's blocking servers at one
    /// round, and a full run left S0.create's own programs there while its adaptive rounds
    /// took a check to 27.
    fn complete_short_set(&mut self) -> Option<bool> {
        let sets: Vec<Vec<usize>> = self
            .undecided_checks()
            .into_iter()
            .filter(|set| {
                set.iter().any(|&i| self.slots[i].short)
                    && set.iter().all(|&i| {
                        let s = &self.slots[i];
                        !s.done && s.rounds.len() < self.plan.max_rounds
                    })
            })
            .collect();
        let more = self.plan.claim_rounds.saturating_sub(1);
        let left = self.budget().as_secs_f64() - self.elapsed().as_secs_f64();
        let set = short_set_to_complete(sets, |i| self.slots[i].round_cost_of(more), more, left)?;
        for &i in &set {
            self.slots[i].short = false;
        }
        self.plan_more(set.len() * more);
        for _ in 0..more {
            if !self.pass_in_budget(&set) {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Cheap variants without a verdict, topped up to an interval while the budget allows.
    fn top_up_passes(&mut self) {
        loop {
            let wanted: Vec<usize> = (0..self.slots.len())
                .filter(|&i| {
                    let s = &self.slots[i];
                    !s.done
                        && !s.needs_interval
                        && s.clean_rounds() < self.plan.interval_rounds
                        && s.rounds.len() < self.plan.max_rounds
                        && s.mean_wall() < self.plan.cheap_round.as_secs_f64()
                })
                .collect();
            if wanted.is_empty() || !self.affordable(&wanted) {
                return;
            }
            self.plan_more(wanted.len());
            if !self.pass(&wanted) {
                return;
            }
        }
    }

    /// One pass over `wanted` in the scheduled order. False when the run was interrupted.
    fn pass(&mut self, wanted: &[usize]) -> bool {
        let ordered = order(&self.groups, wanted, self.plan.seed, self.passes);
        self.pass_in(ordered, &|_| true)
    }

    /// One pass in the order `ordered`, taking a round only while `go` holds.
    fn pass_in(&mut self, ordered: Vec<usize>, go: &dyn Fn(&Self) -> bool) -> bool {
        if ordered.is_empty() {
            return !self.rig.cancel.is_cancelled();
        }
        let pass = self.passes;
        self.passes += 1;
        for i in ordered {
            if self.rig.cancel.is_cancelled() {
                return false;
            }
            if self.slots[i].done || !go(self) {
                self.rig.observer.round_ended();
                continue;
            }
            self.round(i, pass);
            self.rig.observer.round_ended();
        }
        !self.rig.cancel.is_cancelled()
    }

    fn round(&mut self, i: usize, pass: usize) {
        let variant = &self.variants[i];
        self.rig.observer.round_started(pass, variant);
        let begun = self.rig.machine.now();
        let observer = &mut *self.rig.observer;
        let outcome = self
            .rig
            .runner
            .run(variant, &mut |e| observer.harness_event(e));
        let wall_s = (self.rig.machine.now() - begun).as_secs_f64();
        let resident = self.rig.runner.resident_cpu_s();
        self.monitor.mark_with(self.rig.machine, resident);
        let load = self.monitor.recent();
        match outcome {
            Outcome::Measured(raw) => {
                let others = load.map(|l| l.others);
                let excluded = others
                    .filter(|o| *o > self.plan.interference_limit)
                    .map(|o| format!("other processes used {o:.2} CPUs around this round"));
                self.slots[i].rounds.push(RoundRaw {
                    raw: *raw,
                    facts: RoundFacts {
                        pass,
                        interference: others,
                        steal: load.map(|l| l.steal),
                        wall_s,
                        excluded,
                    },
                });
            }
            Outcome::Skipped(s) => {
                self.slots[i].done = true;
                self.skipped.push(s);
            }
            Outcome::Failed(_) if self.rig.cancel.is_cancelled() => {}
            Outcome::Failed(f) => {
                // A variant that failed in any round is reported failed, not half-measured.
                self.slots[i].done = true;
                self.slots[i].rounds.clear();
                self.rig.observer.note(&format!(
                    "FAILED {}: {}",
                    self.variants[i].label(),
                    f.error
                ));
                self.failures.push(f);
            }
        }
    }

    fn finish(self, settled: Option<Settled>) -> Finished {
        // Resident servers end before the judging, not after the document is written.
        self.rig.runner.end();
        let measured = self.measured();
        let (results, invalid) = assemble(&measured, self.rig.host);
        let mut doc = self.doc(results);
        let judged = verdicts::judge_all(&doc, &self.published);
        let summary = RunSummary {
            plan: self.plan,
            grown: self.grown.map(|g| g.as_secs_f64()),
            base_took_s: self.base_took.as_secs_f64(),
            cancelled: self.rig.cancel.is_cancelled(),
            settled,
            unmeasured: self.unmeasured,
            short: self.left_short(),
            withheld: self.left_at(|s| s.withheld, |_| true).map(|(_, left)| left),
            verdicts: judged.iter().map(VerdictState::of).collect(),
        };
        let verdicts: Vec<Verdict> = judged.into_iter().map(|j| j.verdict).collect();
        doc.verdicts = verdicts;
        doc.warnings = closing::warnings(&summary).into();
        doc.invalid = invalid;
        doc.interrupted = self.rig.cancel.is_cancelled();
        let stats = RunStats {
            rounds: self.rounds_taken(),
            passes: self.passes,
            settled,
            load: self.monitor.overall(),
        };
        doc.skipped = self.skipped;
        doc.failures = self.failures;
        Finished { doc, stats }
    }
}
