//! How many rounds a run spends, and where.
//!
//! Variants a verdict uses start with enough rounds for a 95% interval (six is the least that
//! gives one) and get more, a pass at a time, while a check they feed is undecided — up to a cap
//! per variant and a budget for the whole run. The others get one round; cheap ones are topped
//! up to an interval when the verdicts leave budget for it. Why these numbers: a round of a
//! cheap variant costs about 20 ms (a fresh worker, calibration, warm-up, three samples), so six
//! are affordable for every cheap variant; the long batches (io, servers, print workloads)
//! dominate the run's time and get what their verdicts need.
//!
//! No round starts past the budget, the base passes' included: a verdict's variants get one
//! pass, and then the rest of their six rounds only for the check sets that fit in a share of
//! the budget left (`RunPlan::base_share`: 0.9 quick, 0.75 full) (deciding checks first, cheapest first: `schedule::base_sets`);
//! a dear set left out keeps one round, and the run says which claims it would have decided.
//! Why: measured on 2026-11-26, a full run's six base rounds of every verdict's variant (now
//! with the headline's variants and the articles' servers) took 618 s of its 540-s budget, and
//! the run 623 s, with no adaptive round left and 15 of 27 claims inconclusive. A round's cost
//! is measured around the worker, so its start-up (and a server's) is counted.
//!
//! A full run measures the articles' sizes, where one round of a variant can take seconds (a
//! 100-thread cold read of 5 GiB, a server under 1000 connections): every variant once is about
//! five minutes on a 2-CPU machine. So in a full run a variant no verdict uses gets one round in
//! the base passes (a figure without an interval, as three rounds would be too), and the cheap
//! ones are topped up to an interval only with what the verdicts leave of the budget: measured,
//! the base passes of the previous plan (three rounds of every cheap variant no verdict uses
//! first) filled the whole budget, so every full-run verdict rested on exactly six rounds, whose
//! interval is `[min, max]`, and three full runs disagreed on 11 of 25 claims. A quick run
//! does the same: its three base rounds of every such variant left its undecided checks 8 of
//! its 55 s.

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
    /// The share of the budget left after the verdicts' first pass that the rest of their base
    /// rounds may take (`schedule::base_sets`); the remainder is kept for adaptive rounds.
    ///
    /// Why 0.9 in a quick run and 0.75 in a full one: measured on this 2-CPU VM, a quick run's
    /// other five base passes needed 0.72 of what its first pass left (2026-11-26), and with a
    /// share of 0.75 three of ten back-to-back quick runs (2026-11-27) left S4's cold reads at
    /// one round, so S4's verdicts were inconclusive in those runs only, by the plan rather
    /// than the data; a quick run's adaptive rounds decide little in the seconds a quarter
    /// would keep. A full run's base passes would take 618 s of 540 s, and a quarter kept
    /// (about 100 s) gives its cheap undecided checks dozens of passes.
    pub base_share: f64,
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
            budget: Duration::from_secs(if quick { 55 } else { 540 }),
            settle: Duration::from_secs(if quick { 10 } else { 30 }),
            interference_limit: 0.3,
            seed: 0x636f_6e63,
            base_share: if quick { 0.9 } else { 0.75 },
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
