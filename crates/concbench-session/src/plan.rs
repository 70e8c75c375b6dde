//! How many rounds a run spends, and where.
//!
//! Variants a verdict uses start with enough rounds for a 95% interval (six is the least that
//! gives one) and get more, a pass at a time, while a check they feed is undecided — up to a cap
//! per variant and a budget for the whole run. The others get one round; cheap ones are topped
//! up to an interval when the verdicts leave budget for it. A round of a cheap variant costs
//! about 20 ms (a fresh worker, calibration, warm-up, three samples); the long batches (io,
//! servers, print workloads) dominate the run's time. A round's cost is measured around the
//! worker, so its start-up (and a server's) is counted.
//!
//! The budget goes in this order, no round starting past it: one pass of the verdicts'
//! variants (to learn what a round costs, less what it made for later rounds: the io data
//! files); the rest of their six rounds for the conditions still to be decided after that pass
//! (a condition a guard withholds on this machine keeps its first round), deciding ones first,
//! cheapest first, within a share of what is left beside a reserve (`schedule::base_sets`; a
//! dear set left out keeps one round until it fits in nine tenths of what is left, and the run
//! says which claims it would have decided); one round of each variant no verdict reads, cheapest first, while
//! the budget beside the reserve lasts (the cheap ones may take their cost of it); then
//! adaptive rounds for the undecided checks, with the reserve and whatever else is left; then
//! the figures still waiting, while the budget lasts; those left are reported skipped.
//!
//! Why: the budget once went to the figures first. Measured on 2026-11-26/27 on a 2-CPU VM,
//! a full run's six base rounds of every verdict's variant took 618 s of its 540-s budget;
//! with a share of the budget for them, three full runs (f-1..f-3, 541 s each) still took no
//! adaptive round, left S4's cold reads (which decide S4.one_thread and S4.iowait) at one
//! round while 160 figures no verdict reads had theirs, and 15-16 of 24 claims were
//! inconclusive against 6-10 in a 55-s quick run. The replay of f-1's rounds
//! (`tests/replay.rs`) checks the present order on those costs.

use concbench_core::RunMode;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// Rounds every variant a verdict uses gets before the verdicts are first judged.
    pub claim_rounds: usize,
    /// Rounds every other variant gets in the base passes (before the verdicts' extra rounds).
    pub other_rounds: usize,
    /// Cheap variants (a round under `cheap_round`) without a verdict are topped up to this many
    /// rounds, for an interval, while the budget allows.
    pub interval_rounds: usize,
    pub cheap_round: Duration,
    /// The most rounds any variant gets.
    pub max_rounds: usize,
    /// No pass starts that would end past this, counted from the first round; the base passes
    /// always run.
    pub budget: Duration,
    /// How long to wait, at most, for other processes to leave the CPUs before measuring.
    pub settle: Duration,
    /// A round around which other processes used more than this many CPUs is left out and
    /// replaced (0.3: a third of a CPU).
    pub interference_limit: f64,
    /// Seed of the pass order (recorded in the document's settings).
    pub seed: u64,
    /// The share of the budget left after the verdicts' first pass, beside the
    /// [`RunPlan::reserve`], that the rest of their base rounds may take (`schedule::base_sets`);
    /// the remainder is kept for adaptive rounds.
    ///
    /// Why 0.9 in a quick run and 1 in a full one: measured on this 2-CPU VM, a quick run's
    /// other five base passes needed 0.72 of what its first pass left (2026-11-26), and with a
    /// share of 0.75 three of ten back-to-back quick runs (2026-11-27) left S4's cold reads at
    /// one round, so S4's verdicts were inconclusive in those runs only, by the plan rather
    /// than the data; a quick run's adaptive rounds decide little in the seconds a quarter
    /// would keep. A full run keeps its adaptive rounds apart as [`RunPlan::reserve`] instead,
    /// and its base rounds may take all the rest.
    pub base_share: f64,
    /// The share of the budget kept for adaptive rounds: the base rounds take at most
    /// `base_share` of what is left beside it; the figures no verdict reads stop where it
    /// begins, but for the cheap ones' expected cost; what the adaptive rounds leave of it goes
    /// to the figures still waiting.
    ///
    /// Why 0.15 in a full run: replayed on the rounds of the full run f-1 (2026-11-27,
    /// `tests/replay.rs`), the verdicts' first pass takes 111 s and the rest of six rounds of
    /// their check sets 354 s — all but the 100-file cold read (17.5 s a round) and the
    /// Java reader's (14.7 s), which would need 160 s more — and the 81 s kept (less 9 s for
    /// the cheap figures no verdict reads) give the undecided checks 28 passes: the print
    /// workloads' checks (1-2 s a pass) 22-24 rounds, where f-1 gave every check six. A quick
    /// run keeps none: its share of 0.9 already leaves its adaptive rounds about a tenth,
    /// which ten quick runs of 2026-11-27 showed enough (every verdict at 6 rounds or more, S4
    /// at about 10), and its replay (r-1) is the same as before the reserve.
    pub reserve: f64,
    /// The most the budget may grow to, after the first pass, so that every deciding check set
    /// gets its base rounds; `None`: the budget is fixed. Set by `replicate --quick` without
    /// `--budget`: the seed's verdicts are what that run is for, and its deciding sets include
    /// the articles' own servers (Netty blocking in its loop: 3.6 s a round here), which a
    /// quick run's 55 s left at one round (`replicate S2 --quick`, 2026-11-27: S2.blocking
    /// inconclusive, 15 s of the budget unspent).
    pub grow_to: Option<Duration>,
}

impl RunPlan {
    /// The plan of a full run, `--quick` or `--smoke`.
    pub fn new(mode: RunMode) -> Self {
        let quick = mode.is_quick();
        if mode.is_smoke() {
            return RunPlan {
                claim_rounds: 1,
                other_rounds: 1,
                interval_rounds: 1,
                cheap_round: Duration::ZERO,
                max_rounds: mode.max_rounds(),
                // Every variant once, whatever the time: the budget also bounds the rounds of
                // variants no verdict uses, and a smoke run is there to run each of them. The
                // cap of one round already rules out extra rounds.
                budget: Duration::from_secs(24 * 3600),
                settle: Duration::ZERO,
                interference_limit: f64::INFINITY,
                seed: 1,
                base_share: 1.0,
                reserve: 0.0,
                grow_to: None,
            };
        }
        RunPlan {
            claim_rounds: 6,
            // The budget goes to the verdicts first, in both modes: measured on 2026-11-26, a
            // quick run's three base rounds of the 70 variants no verdict uses took 13 of its
            // 55 s, its base passes 47 s, and its undecided checks had the last 8.
            other_rounds: 1,
            interval_rounds: 6,
            cheap_round: Duration::from_millis(if quick { 100 } else { 300 }),
            max_rounds: mode.max_rounds(),
            budget: Duration::from_secs(mode.default_budget_s()),
            settle: Duration::from_secs(if quick { 10 } else { 30 }),
            interference_limit: 0.3,
            seed: 0x636f_6e63,
            base_share: if quick { 0.9 } else { 1.0 },
            reserve: if quick { 0.0 } else { 0.15 },
            grow_to: None,
        }
    }

    /// `--rounds N`: every variant gets at least N rounds (and the cap is at least N).
    pub fn with_rounds(mut self, n: usize) -> Self {
        let n = n.max(1);
        self.claim_rounds = n;
        self.other_rounds = n;
        self.interval_rounds = self.interval_rounds.min(n).max(1);
        self.max_rounds = self.max_rounds.max(n);
        self
    }
}
