//! The run loop: base passes, then passes for undecided verdicts, then interval top-ups.

use crate::assemble::{assemble, Measured};
use crate::closing::{self, LeftAt, LeftShort, RunSummary, VerdictState, CORRECTED_ROUNDS};
use crate::machine::Machine;
use crate::monitor::Monitor;
use crate::plan::RunPlan;
use crate::runner::RoundRunner;
use crate::schedule::{
    adaptive_pass, base_sets, cheapest_first, groups, order, short_set_to_complete, Priority,
};
use crate::settle::{settle, Settled};
use crate::variant::Variant;
use concbench_analysis::published::{published, Published};
use concbench_analysis::verdicts;
use concbench_core::{
    CancelToken, Failure, Host, Invalid, Outcome, Params, ResultEntry, RoundFacts, RoundRaw,
    RunWarning, Skipped, Verdict,
};
use concbench_measure::HarnessEvent;
use std::time::Duration;

/// What the run tells whoever shows progress.
pub trait Observer {
    /// The machine is still busy: other processes use `others` CPUs after `waited`.
    fn settling(&mut self, others: f64, waited: Duration, limit: Duration);
    /// The planned total of rounds changed (it grows pass by pass, and as undecided verdicts
    /// ask for more).
    fn planned(&mut self, rounds: usize);
    /// The plan's total before the first round: every variant's base rounds (a verdict's six,
    /// another's one). The budget may cut it short, and undecided verdicts may add to it; told
    /// once, so that a progress bar's total does not climb from the first pass's count.
    fn estimated(&mut self, _rounds: usize) {}
    fn round_started(&mut self, pass: usize, variant: &Variant);
    fn harness_event(&mut self, event: HarnessEvent);
    fn round_ended(&mut self);
    fn note(&mut self, line: &str);
    /// The measuring has ended (before the document is made).
    fn finished(&mut self) {}
}

/// Everything the run measured, judged.
#[derive(Debug, Clone, Default)]
pub struct SessionOutput {
    pub results: Vec<ResultEntry>,
    pub invalid: Vec<Invalid>,
    pub skipped: Vec<Skipped>,
    pub failures: Vec<Failure>,
    pub verdicts: Vec<Verdict>,
    pub interrupted: bool,
    /// Rounds measured and passes run.
    pub rounds: usize,
    pub passes: usize,
    /// Run-wide warnings (a machine that never settled, the budget spent with verdicts open).
    pub warnings: Vec<RunWarning>,
    pub settled: Option<Settled>,
    /// Other processes' CPUs and the steal share over the whole run.
    pub load: Option<crate::monitor::Load>,
}

/// The state of one variant during the run.
#[derive(Debug, Default)]
struct Slot {
    rounds: Vec<RoundRaw>,
    /// Skipped or failed: not measured again.
    done: bool,
    /// A verdict uses it.
    judged: bool,
    /// Judged, but the budget left its check set no room for the rest of its base rounds: it
    /// keeps its first round and gets no adaptive ones (one more round gives no interval).
    short: bool,
    /// Judged, but after the first pass no check still to be decided wanted it (a guard withheld
    /// its check on this machine, as S4's for a CPU-bound reader; or the verdict shows it only
    /// beside the checks that decide, as S2's Go, PHP Fibers and virtual-thread servers beside
    /// Swoole, and a round of it is not cheap): it keeps its first round, and its rounds go to
    /// checks that can decide.
    withheld: bool,
    /// Rounds one setup serves (`Variant::rounds_per_setup`; 0 is taken as 1).
    rounds_per_setup: usize,
}

impl Slot {
    fn clean_rounds(&self) -> usize {
        self.rounds
            .iter()
            .filter(|r| r.facts.excluded.is_none())
            .count()
    }
    /// What a further round is expected to cost: the mean of its rounds' walls, less what each
    /// spent making what later rounds reuse ([`concbench_core::RawMeasurement::prepared_s`]).
    /// Why less: the io data files are created by whichever round needs them first; a full run
    /// (2026-11-27) priced its 100-file read at the 16.6 s of the round that created 4.5 GB of
    /// them, not the 2.6 s of one that finds them, and left S4.degrade's check at one round.
    ///
    /// A variant whose setup serves several rounds (a server warmed to steady state) pays its
    /// setup once per life: a round costs its own wall less the setup it ran, plus the mean
    /// setup shared over the rounds of a life. Why: priced at its first round, a Netty
    /// server's 20-s warm-up made every further round look like 22 s instead of 5.
    fn mean_wall(&self) -> f64 {
        self.mean_round() + self.mean_setup() / self.rounds_per_setup.max(1) as f64
    }

    /// A round's own wall, less what it made for later rounds and the setup it ran: the mean.
    fn mean_round(&self) -> f64 {
        let n = self.rounds.len().max(1) as f64;
        (self.rounds.iter())
            .map(|r| (r.facts.wall_s - r.raw.prepared_s - r.raw.setup_s).max(0.0))
            .sum::<f64>()
            / n
    }

    /// One setup (a worker's start, a server's start and warm-up): the mean over the rounds
    /// that ran one, 0 when none did.
    fn mean_setup(&self) -> f64 {
        let setups: Vec<f64> = (self.rounds.iter())
            .map(|r| r.raw.setup_s)
            .filter(|s| *s > 0.0)
            .collect();
        match setups.len() {
            0 => 0.0,
            k => setups.iter().sum::<f64>() / k as f64,
        }
    }

    /// What `more` further rounds are expected to cost in all: each its own wall (less what
    /// it made for later rounds and its setup), plus one setup per start they need. Why not
    /// `more` times [`Slot::mean_wall`]: a warm server's life still has rounds left, so five
    /// more rounds of a server that serves three per start need one restart, not five thirds
    /// of one (a full run on 2026-11-28 priced Netty's five at 48 s where they took 28 s, and
    /// left 33 deciding figures at one round for the difference).
    ///
    /// Invariants: `cost_of(0) == 0`; non-decreasing in `more`; equals `more * mean_wall()`
    /// for a variant set up afresh every round.
    fn cost_of(&self, more: usize) -> f64 {
        let (warm, setup) = (self.mean_round(), self.mean_setup());
        let per_life = self.rounds_per_setup.max(1);
        // Rounds of the current life served: those since the last round that started one.
        let since_start = (self.rounds.iter().rev())
            .position(|r| r.raw.setup_s > 0.0)
            .map_or(per_life, |p| p + 1);
        let left_in_life = per_life.saturating_sub(since_start);
        let restarts = more.saturating_sub(left_in_life).div_ceil(per_life);
        more as f64 * warm + restarts as f64 * setup
    }

    /// [`Slot::cost_of`] per round, for a planner that multiplies by the rounds itself.
    fn round_cost_of(&self, more: usize) -> f64 {
        match more {
            0 => self.mean_wall(),
            m => self.cost_of(m) / m as f64,
        }
    }
}

struct Run<'a> {
    variants: &'a [Variant],
    plan: &'a RunPlan,
    runner: &'a mut dyn RoundRunner,
    machine: &'a dyn Machine,
    observer: &'a mut dyn Observer,
    cancel: &'a CancelToken,
    host: &'a Host,
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

/// One check of `published` as the planner sees it.
#[derive(Debug, Clone, PartialEq)]
struct CheckSet {
    claim: String,
    /// Its index among its claim's checks.
    spec: usize,
    /// How much it matters to the base passes.
    priority: Priority,
    /// The variants its selectors match.
    variants: Vec<usize>,
}

/// The provisional verdicts' checks as variant sets, after the first pass.
struct JudgedSets {
    /// Each check still to be decided ([`Run::undecided_checks`]).
    open: Vec<Vec<usize>>,
    /// Each check shown only beside those that decide (`Judged::beside_checks`).
    beside: Vec<Vec<usize>>,
    /// Every judged check (open, decided, withheld or beside): its claim, its index among the
    /// claim's checks, its variants.
    by_spec: Vec<(String, usize, Vec<usize>)>,
}

/// Each check's claim, priority and variants (`links`, in the order of `published`'s checks):
/// a check that may decide comes first; a `decides = false` check's is beside, and so is a
/// stand-in's where the article's own program of its facet is measured in this run (where it
/// is not, as in a quick run without the JVM servers, the stand-in decides).
fn check_priorities(published: &Published, links: &[Vec<usize>]) -> Vec<CheckSet> {
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

/// Run the session: settle, measure in passes, judge, and return the document's parts.
pub fn run(
    variants: &[Variant],
    plan: &RunPlan,
    runner: &mut dyn RoundRunner,
    machine: &dyn Machine,
    observer: &mut dyn Observer,
    cancel: &CancelToken,
    host: &Host,
) -> SessionOutput {
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
        slots[*i].judged = true;
    }
    // The answer's unit table and the advice's cards read a few variants no verdict may read
    // (a coroutine's creation, the bare switches): they get a verdict's rounds too, so that
    // every figure of the first screen has an interval, in a quick run as well.
    for (slot, v) in slots.iter_mut().zip(variants) {
        slot.judged |= concbench_analysis::advice::reads_variant(v.meta.id, &v.params);
    }
    // The anatomy's layers are differences of two results taken pass by pass: when a paired
    // variant runs, every variant it reads needs its rounds in the same passes, as a verdict's do (topped up
    // later, a cheap variant shared only three passes with its neighbour: no interval).
    if variants.iter().any(|v| v.paired) {
        slots.iter_mut().for_each(|s| s.judged = true);
    }
    let settled = (plan.settle > Duration::ZERO).then(|| {
        let cancelled = || cancel.is_cancelled();
        settle(machine, plan.settle, &cancelled, &mut |o, w| {
            observer.settling(o, w, plan.settle)
        })
    });
    let mut run = Run {
        variants,
        plan,
        runner,
        machine,
        observer,
        cancel,
        host,
        groups: groups(variants.len(), &links),
        checks: priorities,
        published,
        slots,
        monitor: Monitor::default(),
        skipped: Vec::new(),
        failures: Vec::new(),
        passes: 0,
        planned: 0,
        started: machine.now(),
        base_took: Duration::ZERO,
        unmeasured: 0,
        grown: None,
    };
    run.monitor.mark(machine);
    run.base_passes();
    run.base_took = run.elapsed();
    run.verdict_passes();
    run.others_left();
    run.top_up_passes();
    run.finish(settled)
}

impl Run<'_> {
    fn elapsed(&self) -> Duration {
        self.machine.now() - self.started
    }

    fn plan_more(&mut self, rounds: usize) {
        self.planned += rounds;
        self.observer.planned(self.planned);
    }

    /// The rounds variant `i` gets in the base passes: a verdict's (its first alone when the
    /// budget left its checks no room) or the others'.
    fn base_rounds(&self, i: usize) -> usize {
        let s = &self.slots[i];
        match (s.judged, s.short || s.withheld) {
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
            .filter(|&i| self.slots[i].judged)
            .collect();
        let others: Vec<usize> = (0..self.slots.len())
            .filter(|&i| !self.slots[i].judged)
            .collect();
        self.observer.estimated(
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

    /// The run's budget: the plan's, or what it grew to ([`Run::grow_for_deciding`]).
    fn budget(&self) -> Duration {
        self.grown.unwrap_or(self.plan.budget)
    }

    /// Where the plan allows ([`RunPlan::grow_to`]), grows the budget so that the base rounds
    /// of every deciding check set fit in the share the base passes may take, up to the cap.
    fn grow_for_deciding(&mut self, more: usize) {
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
    fn kept_for_cheap_others(&self, others: &[usize]) -> f64 {
        let cheap = self.plan.cheap_round.as_secs_f64();
        (others.iter())
            .filter(|&&i| !self.slots[i].done)
            .map(|&i| self.expected_wall(i))
            .filter(|&w| w < cheap)
            .sum()
    }

    /// Seconds of the budget kept for adaptive rounds ([`RunPlan::reserve`]).
    fn reserve_s(&self) -> f64 {
        self.budget().as_secs_f64() * self.plan.reserve
    }

    /// After the adaptive rounds: a round of each variant no verdict reads that the reserve
    /// kept from its base pass, while the budget lasts; the rest are reported skipped.
    fn others_left(&mut self) {
        let waiting: Vec<usize> = (0..self.slots.len())
            .filter(|&i| {
                let s = &self.slots[i];
                !s.judged && !s.done && s.rounds.is_empty()
            })
            .collect();
        let budget = self.budget().as_secs_f64();
        let room = self.elapsed().as_secs_f64() < budget;
        if room && !self.pass_within(&waiting, budget) {
            return;
        }
        if !self.cancel.is_cancelled() {
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

    /// One pass over `wanted` in the scheduled order, taking no round once the budget is spent.
    fn pass_in_budget(&mut self, wanted: &[usize]) -> bool {
        let ordered = order(&self.groups, wanted, self.plan.seed, self.passes);
        let budget = self.budget();
        self.pass_in(ordered, &|run: &Self| run.elapsed() < budget)
    }

    /// A pass over `wanted`, cheapest first, that takes no round once the run has reached
    /// `until` seconds (the budget, or the budget less the reserve for adaptive rounds).
    fn pass_within(&mut self, wanted: &[usize], until: f64) -> bool {
        let shuffled = order(&self.groups, wanted, self.plan.seed, self.passes);
        let ordered = cheapest_first(shuffled, |i| self.expected_wall(i));
        self.pass_in(ordered, &|run: &Self| run.elapsed().as_secs_f64() < until)
    }

    /// Variant `i`'s expected round time: its own rounds' mean, or else that of the measured
    /// variants of its experiment, or else of its family, or else of everything measured.
    /// Why guess: before its first round only its kin say what a round of it costs (a
    /// `switch` round is 0.02 s, an `io` one seconds).
    fn expected_wall(&self, i: usize) -> f64 {
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

    /// Variants of `wanted` the budget left without a round, reported skipped with the reason
    /// and the way to measure them.
    fn skip_unmeasured(&mut self, wanted: &[usize]) {
        for &i in wanted {
            let s = &mut self.slots[i];
            if s.done || !s.rounds.is_empty() || self.cancel.is_cancelled() {
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
                    && (s.judged || !s.rounds.is_empty())
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
                        && !s.judged
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

    /// Whether a pass over `wanted` is expected to end within the budget.
    fn affordable(&self, wanted: &[usize]) -> bool {
        let cost: f64 = wanted.iter().map(|&i| self.slots[i].mean_wall()).sum();
        self.elapsed().as_secs_f64() + cost <= self.budget().as_secs_f64()
    }

    /// For each check still inconclusive (and decidable by more rounds) or decided but fragile,
    /// its variants.
    fn undecided_checks(&self) -> Vec<Vec<usize>> {
        let doc = self.provisional();
        self.open_of(verdicts::judge_all(&doc, &self.published))
    }

    /// The variants of each open check of `judged`, each set once.
    fn open_of(&self, judged: Vec<verdicts::Judged<'_>>) -> Vec<Vec<usize>> {
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
    fn judged_checks(&self) -> JudgedSets {
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
    fn indices(&self, entries: &[&concbench_core::ResultEntry]) -> Vec<usize> {
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
    fn provisional(&self) -> concbench_core::ResultDoc {
        let measured = self.measured();
        let (results, _) = assemble(&measured, self.host);
        self.doc(results)
    }

    /// A document of `results` to judge: the plan's round cap goes with it, since it bounds
    /// what more rounds can decide.
    fn doc(&self, results: Vec<ResultEntry>) -> concbench_core::ResultDoc {
        let mut doc = concbench_core::ResultDoc {
            results,
            ..concbench_core::ResultDoc::new(self.host.clone(), String::new())
        };
        concbench_core::RoundCaps {
            max_rounds: self.plan.max_rounds,
        }
        .write(&mut doc.settings);
        doc
    }

    fn measured(&self) -> Vec<Measured<'_>> {
        self.slots
            .iter()
            .filter(|s| !s.done && !s.rounds.is_empty())
            .map(|s| Measured { rounds: &s.rounds })
            .collect()
    }

    /// One pass over `wanted` in the scheduled order. False when the run was interrupted.
    fn pass(&mut self, wanted: &[usize]) -> bool {
        let ordered = order(&self.groups, wanted, self.plan.seed, self.passes);
        self.pass_in(ordered, &|_| true)
    }

    /// One pass in the order `ordered`, taking a round only while `go` holds.
    fn pass_in(&mut self, ordered: Vec<usize>, go: &dyn Fn(&Self) -> bool) -> bool {
        if ordered.is_empty() {
            return !self.cancel.is_cancelled();
        }
        let pass = self.passes;
        self.passes += 1;
        for i in ordered {
            if self.cancel.is_cancelled() {
                return false;
            }
            if self.slots[i].done || !go(self) {
                self.observer.round_ended();
                continue;
            }
            self.round(i, pass);
            self.observer.round_ended();
        }
        !self.cancel.is_cancelled()
    }

    fn round(&mut self, i: usize, pass: usize) {
        let variant = &self.variants[i];
        self.observer.round_started(pass, variant);
        let begun = self.machine.now();
        let observer = &mut *self.observer;
        let outcome = self.runner.run(variant, &mut |e| observer.harness_event(e));
        let wall_s = (self.machine.now() - begun).as_secs_f64();
        let resident = self.runner.resident_cpu_s();
        self.monitor.mark_with(self.machine, resident);
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
            Outcome::Failed(_) if self.cancel.is_cancelled() => {}
            Outcome::Failed(f) => {
                // A variant that failed in any round is reported failed, not half-measured.
                self.slots[i].done = true;
                self.slots[i].rounds.clear();
                self.observer
                    .note(&format!("FAILED {}: {}", self.variants[i].label(), f.error));
                self.failures.push(f);
            }
        }
    }

    /// The figures `marked` picks that are not done, with the claims whose checks `counts`
    /// accepts that read them; `None` when there are none.
    fn left_at(
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
    fn left_short(&self) -> Option<LeftShort> {
        let (short, left) = self.left_at(|s| s.short, |c| c.priority.decides())?;
        let more = self.plan.claim_rounds.saturating_sub(1);
        let cost_s = short.iter().map(|&i| self.slots[i].cost_of(more)).sum();
        Some(LeftShort { left, cost_s })
    }

    /// The claims, once each in check order, of the checks `counts` accepts that read a slot of
    /// `slots`.
    fn claims_reading(&self, slots: &[usize], counts: impl Fn(&CheckSet) -> bool) -> Vec<&str> {
        let mut claims: Vec<&str> = Vec::new();
        for c in &self.checks {
            let reads = c.variants.iter().any(|i| slots.contains(i));
            if reads && counts(c) && !claims.contains(&c.claim.as_str()) {
                claims.push(&c.claim);
            }
        }
        claims
    }

    fn finish(self, settled: Option<Settled>) -> SessionOutput {
        // Resident servers end before the judging, not after the document is written.
        self.runner.end();
        let measured = self.measured();
        let (results, invalid) = assemble(&measured, self.host);
        let doc = self.doc(results.clone());
        let judged = verdicts::judge_all(&doc, &self.published);
        let summary = RunSummary {
            plan: self.plan,
            grown: self.grown.map(|g| g.as_secs_f64()),
            base_took_s: self.base_took.as_secs_f64(),
            cancelled: self.cancel.is_cancelled(),
            settled,
            unmeasured: self.unmeasured,
            short: self.left_short(),
            withheld: self.left_at(|s| s.withheld, |_| true).map(|(_, left)| left),
            verdicts: judged.iter().map(VerdictState::of).collect(),
        };
        let warnings = closing::warnings(&summary);
        SessionOutput {
            rounds: self.rounds_taken(),
            passes: self.passes,
            verdicts: judged.into_iter().map(|j| j.verdict).collect(),
            interrupted: self.cancel.is_cancelled(),
            load: self.monitor.overall(),
            settled,
            warnings,
            results,
            invalid,
            skipped: self.skipped,
            failures: self.failures,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn a_rounds_cost_leaves_out_what_it_made_for_later_rounds() {
        // The 100-file read of stop 29's full run: 16.6 s, of which 14 s created the data
        // files; a round that finds them costs 2.6 s.
        let meta = concbench_core::Meta {
            id: "io.read",
            family: "io",
            title: "t",
            op: "o",
            unit: "ms",
            expected_switches_per_op: None,
        };
        let round = |wall_s: f64, prepared_s: f64| {
            let mut raw =
                concbench_core::RawMeasurement::from_values(meta.clone(), Params::new(), vec![1.0]);
            raw.prepared_s = prepared_s;
            RoundRaw {
                raw,
                facts: RoundFacts {
                    wall_s,
                    ..RoundFacts::default()
                },
            }
        };
        let first = Slot {
            rounds: vec![round(16.6, 14.0)],
            ..Slot::default()
        };
        assert!((first.mean_wall() - 2.6).abs() < 1e-9);
        let both = Slot {
            rounds: vec![round(16.6, 14.0), round(2.8, 0.0)],
            ..Slot::default()
        };
        assert!((both.mean_wall() - 2.7).abs() < 1e-9);
    }

    /// A round of a server taking `wall_s`, `setup_s` of it starting and warming the server.
    fn server_round(wall_s: f64, setup_s: f64) -> RoundRaw {
        let meta = concbench_core::Meta {
            id: "server.keepalive",
            family: "server",
            title: "t",
            op: "o",
            unit: "req/s",
            expected_switches_per_op: None,
        };
        let mut raw = concbench_core::RawMeasurement::from_values(meta, Params::new(), vec![1.0]);
        raw.setup_s = setup_s;
        RoundRaw {
            raw,
            facts: RoundFacts {
                wall_s,
                ..RoundFacts::default()
            },
        }
    }

    /// Regression: a full run (2026-11-28) priced five more rounds of a warm Netty at five
    /// thirds of a warm-up where they needed one restart: its life still had two rounds left.
    #[test]
    fn more_rounds_of_a_warm_server_cost_the_restarts_they_need_and_no_more() {
        let round = server_round;
        let slot = |rounds, rounds_per_setup| Slot {
            rounds,
            rounds_per_setup,
            ..Slot::default()
        };
        // Warmed 20 s, rounds of 2 s, three a start; one round served.
        let warm = slot(vec![round(22.0, 20.0)], 3);
        assert_eq!(warm.cost_of(0), 0.0);
        assert!((warm.cost_of(2) - 4.0).abs() < 1e-9, "two left in its life");
        assert!((warm.cost_of(3) - 26.0).abs() < 1e-9);
        assert!(
            (warm.cost_of(5) - 30.0).abs() < 1e-9,
            "one restart, not 5/3"
        );
        assert!((warm.round_cost_of(5) - 6.0).abs() < 1e-9);
        // A life served in full: the next round starts a fresh one.
        let full = slot(vec![round(22.0, 20.0), round(2.0, 0.0), round(2.0, 0.0)], 3);
        assert!((full.cost_of(1) - 22.0).abs() < 1e-9);
        // Set up afresh every round: `more` times its mean wall, as before.
        let fresh = slot(vec![round(3.0, 1.0), round(3.5, 1.0)], 1);
        for more in 0..8 {
            assert!((fresh.cost_of(more) - more as f64 * fresh.mean_wall()).abs() < 1e-9);
        }
        let mut last = 0.0;
        for more in 0..20 {
            let c = warm.cost_of(more);
            assert!(c >= last, "non-decreasing");
            last = c;
        }
    }

    /// A Netty server warmed for 20 s serves three rounds of 2 s: each round costs its 2 s and
    /// a third of the warm-up, whether the planner has seen one round of the life or all three.
    #[test]
    fn a_round_on_a_warm_server_costs_its_window_and_a_share_of_the_warm_up() {
        let round = server_round;
        let slot = |rounds| Slot {
            rounds,
            rounds_per_setup: 3,
            ..Slot::default()
        };
        let expected = 2.0 + 20.0 / 3.0;
        let first = slot(vec![round(22.0, 20.0)]);
        assert!((first.mean_wall() - expected).abs() < 1e-9);
        let life = slot(vec![round(22.0, 20.0), round(2.0, 0.0), round(2.0, 0.0)]);
        assert!((life.mean_wall() - expected).abs() < 1e-9);
    }
}
