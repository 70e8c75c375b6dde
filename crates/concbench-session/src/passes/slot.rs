//! One variant's state during the run, and what a further round of it is expected to cost (the
//! budget's prices: a round's own wall, less what it made for later rounds and the setup a
//! resident server shares over its rounds).

use concbench_core::RoundRaw;

/// The state of one variant during the run.
#[derive(Debug, Default)]
pub(super) struct Slot {
    pub(super) rounds: Vec<RoundRaw>,
    /// Skipped or failed: not measured again.
    pub(super) done: bool,
    /// A verdict, the first screen's unit table or cards, or an anatomy layer reads it: it gets a
    /// verdict's rounds, so that what is shown has an interval.
    pub(super) needs_interval: bool,
    /// Judged, but the budget left its check set no room for the rest of its base rounds: it
    /// keeps its first round and gets no adaptive ones (one more round gives no interval).
    pub(super) short: bool,
    /// Judged, but after the first pass no check still to be decided wanted it (a guard withheld
    /// its check on this machine, as S4's for a CPU-bound reader; or the verdict shows it only
    /// beside the checks that decide, as S2's Go, PHP Fibers and virtual-thread servers beside
    /// Swoole, and a round of it is not cheap): it keeps its first round, and its rounds go to
    /// checks that can decide.
    pub(super) withheld: bool,
    /// Rounds one setup serves (`Variant::rounds_per_setup`; 0 is taken as 1).
    pub(super) rounds_per_setup: usize,
}

impl Slot {
    pub(super) fn clean_rounds(&self) -> usize {
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
    pub(super) fn mean_wall(&self) -> f64 {
        self.mean_round() + self.mean_setup() / self.rounds_per_setup.max(1) as f64
    }

    /// A round's own wall, less what it made for later rounds and the setup it ran: the mean.
    pub(super) fn mean_round(&self) -> f64 {
        let n = self.rounds.len().max(1) as f64;
        (self.rounds.iter())
            .map(|r| (r.facts.wall_s - r.raw.prepared_s - r.raw.setup_s).max(0.0))
            .sum::<f64>()
            / n
    }

    /// One setup (a worker's start, a server's start and warm-up): the mean over the rounds
    /// that ran one, 0 when none did.
    pub(super) fn mean_setup(&self) -> f64 {
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
    pub(super) fn cost_of(&self, more: usize) -> f64 {
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
    pub(super) fn round_cost_of(&self, more: usize) -> f64 {
        match more {
            0 => self.mean_wall(),
            m => self.cost_of(m) / m as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Params, RoundFacts};

    #[test]
    pub(super) fn a_rounds_cost_leaves_out_what_it_made_for_later_rounds() {
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
    pub(super) fn server_round(wall_s: f64, setup_s: f64) -> RoundRaw {
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
    pub(super) fn more_rounds_of_a_warm_server_cost_the_restarts_they_need_and_no_more() {
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
    pub(super) fn a_round_on_a_warm_server_costs_its_window_and_a_share_of_the_warm_up() {
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
