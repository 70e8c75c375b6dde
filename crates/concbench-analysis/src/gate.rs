//! `concbench compare --fail-if`: the thresholds a CI job fails on, and which comparisons break
//! them.
//!
//! A threshold is about the figure's relative change, B/A − 1, in the direction that makes it
//! worse or better: a time that grows or a rate (req/s, MiB/s) that falls is *slower*. A result
//! breaks `slower>10%` only when its whole interval lies beyond +10% of change in the slower
//! direction *and* it is significant after the Benjamini-Hochberg adjustment: the interval
//! carries the noise, so the threshold is a size of effect, never a noise margin. Results in
//! units that are neither times nor rates (sizes, counts) have no "slower" and are never gated
//! by `slower`/`faster`.

use crate::comparison::{higher_is_better, CompareSet, Pair, RunComparison, VerdictRow};
pub use crate::threshold::{Direction, Gate, GATE_SYNTAX};
use concbench_core::human::seconds;
use concbench_core::VerdictKind;

/// Whether a result in `unit` is a time (lower is better) or a rate (higher is better); `None`
/// for sizes and counts, which have no "slower".
pub fn speed_sense(unit: &str) -> Option<bool> {
    if higher_is_better(unit) {
        Some(true)
    } else if seconds(1.0, unit).is_some() {
        Some(false)
    } else {
        None
    }
}

/// Which way a significant pair moved (`None` when not significant, or not a time or a rate).
pub fn moved(pair: &Pair<'_>) -> Option<Direction> {
    let higher_better = speed_sense(&pair.a.unit)?;
    let c = pair.comparison.filter(|_| pair.significant())?;
    let grew = c.ratio > 1.0;
    Some(if grew == higher_better {
        Direction::Faster
    } else {
        Direction::Slower
    })
}

/// What broke a threshold.
#[derive(Debug, Clone)]
pub enum Breach<'a> {
    /// A result whose interval of change lies wholly beyond the threshold.
    Result {
        gate: Gate,
        pair: &'a Pair<'a>,
        /// B/A − 1 in percent, and its 95% interval.
        change_percent: f64,
        interval_percent: (f64, f64),
    },
    /// A claim whose verdict (or how much of it was judged) changed between A and B.
    Verdict {
        row: &'a VerdictRow,
        a: VerdictKind,
        b: VerdictKind,
        /// The run's index in the row (B's column).
        column: usize,
    },
}

/// The results of `c` that break `gate` (a shift gate), in A's order.
fn shift_breaches<'a>(
    c: &'a RunComparison<'a>,
    gate: Gate,
    direction: Direction,
    percent: f64,
) -> Vec<Breach<'a>> {
    let limit = percent / 100.0;
    c.pairs
        .iter()
        .filter_map(|pair| {
            let cmp = pair.comparison?;
            let (lo, hi) = cmp.ci?;
            let higher_better = speed_sense(&pair.a.unit)?;
            if moved(pair)? != direction {
                return None;
            }
            // "Up" is the figure growing: slower for a time, faster for a rate.
            let up = (direction == Direction::Slower) != higher_better;
            let beyond = if up {
                lo > 1.0 + limit
            } else {
                hi < 1.0 - limit
            };
            beyond.then_some(Breach::Result {
                gate,
                pair,
                change_percent: (cmp.ratio - 1.0) * 100.0,
                interval_percent: ((lo - 1.0) * 100.0, (hi - 1.0) * 100.0),
            })
        })
        .collect()
}

/// Every breach of `gates` by run B (`b`-th decision of `verdicts`) against run A (decision
/// 0): result breaches first, in the gates' order, then verdict changes. `verdicts` rows are
/// only looked at for `verdict-changed`.
pub fn breaches<'a>(
    gates: &[Gate],
    c: &'a RunComparison<'a>,
    verdicts: &'a [VerdictRow],
    b: usize,
) -> Vec<Breach<'a>> {
    let mut out = Vec::new();
    for &gate in gates {
        match gate {
            Gate::Shift { direction, percent } => {
                for br in shift_breaches(c, gate, direction, percent) {
                    let already = out.iter().any(|o| same_pair(o, &br));
                    if !already {
                        out.push(br);
                    }
                }
            }
            Gate::VerdictChanged => {
                for row in verdicts {
                    let (Some(Some(a)), Some(Some(bv))) =
                        (row.decisions.first(), row.decisions.get(b))
                    else {
                        continue;
                    };
                    let already = out.iter().any(
                        |o| matches!(o, Breach::Verdict { row: r, .. } if r.source == row.source),
                    );
                    let judged = |i: usize| row.judged.get(i).copied().flatten();
                    let differ = a != bv || judged(0) != judged(b);
                    if differ && !already {
                        out.push(Breach::Verdict {
                            row,
                            a: *a,
                            b: *bv,
                            column: b,
                        });
                    }
                }
            }
        }
    }
    out
}

/// Whether two breaches are about the same result (two gates may both catch one).
fn same_pair(x: &Breach<'_>, y: &Breach<'_>) -> bool {
    match (x, y) {
        (Breach::Result { pair: p, .. }, Breach::Result { pair: q, .. }) => std::ptr::eq(*p, *q),
        _ => false,
    }
}

/// The thresholds of a comparison, held to its runs (here rather than beside the set, so that the
/// comparison does not need the gate that reads it).
impl CompareSet<'_> {
    /// The breaches of the thresholds by the `i`-th later run.
    pub fn breaches(&self, i: usize) -> Vec<Breach<'_>> {
        breaches(&self.gates, &self.runs[i].comparison, &self.verdicts, i + 1)
    }

    /// Whether any later run breaks a threshold.
    pub fn breached(&self) -> bool {
        (0..self.runs.len()).any(|i| !self.breaches(i).is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comparison::{compare_runs, verdicts_side_by_side};
    use crate::synthetic::{doc, entry, entry_with};
    use concbench_core::{Params, Verdict};

    fn rounds(centre: f64) -> Vec<f64> {
        [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, -1.5, 0.25]
            .iter()
            .map(|d| centre * (1.0 + d / 100.0))
            .collect()
    }

    fn gate(s: &str) -> Gate {
        s.parse().unwrap()
    }

    #[test]
    fn expressions_parse_and_print_back() {
        for s in ["slower>10%", "faster>2.5%", "verdict-changed"] {
            assert_eq!(gate(s).to_string(), s);
        }
        assert_eq!(
            gate(" slower > 10 % "),
            Gate::Shift {
                direction: Direction::Slower,
                percent: 10.0
            }
        );
        for bad in [
            "slower>10",
            "slower<10%",
            "worse>10%",
            "slower>0%",
            "slower>-5%",
            "faster>100%",
            "slower>x%",
            "",
        ] {
            assert!(bad.parse::<Gate>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_time_half_again_as_long_breaks_slower_10_and_names_its_interval() {
        let a = doc(vec![entry("create.fork", &rounds(100.0))]);
        let b = doc(vec![entry("create.fork", &rounds(150.0))]);
        let c = compare_runs(&a, &b);
        let found = breaches(&[gate("slower>10%")], &c, &[], 1);
        assert_eq!(found.len(), 1);
        let Breach::Result {
            change_percent,
            interval_percent: (lo, hi),
            ..
        } = found[0]
        else {
            panic!("not a result breach")
        };
        assert!((change_percent - 50.0).abs() < 1.0, "{change_percent}");
        assert!(lo > 10.0 && lo <= change_percent && change_percent <= hi);
        // The same change is not "faster", and not beyond 60%.
        assert!(breaches(&[gate("faster>10%")], &c, &[], 1).is_empty());
        assert!(breaches(&[gate("slower>60%")], &c, &[], 1).is_empty());
    }

    #[test]
    fn a_rate_that_falls_is_slower_and_one_that_rises_is_faster() {
        let rate = |v| {
            entry_with(
                "server.keepalive",
                "req/s",
                Params::new().with("placement", "unpinned"),
                &rounds(v),
            )
        };
        let (a, b) = (doc(vec![rate(1000.0)]), doc(vec![rate(700.0)]));
        let c = compare_runs(&a, &b);
        assert_eq!(breaches(&[gate("slower>10%")], &c, &[], 1).len(), 1);
        assert!(breaches(&[gate("faster>10%")], &c, &[], 1).is_empty());
        let b = doc(vec![rate(1500.0)]);
        let c = compare_runs(&a, &b);
        assert_eq!(breaches(&[gate("faster>10%")], &c, &[], 1).len(), 1);
        assert!(breaches(&[gate("slower>10%")], &c, &[], 1).is_empty());
    }

    #[test]
    fn a_time_that_falls_breaks_faster() {
        let a = doc(vec![entry("switch.pipe.thread", &rounds(100.0))]);
        let b = doc(vec![entry("switch.pipe.thread", &rounds(60.0))]);
        let c = compare_runs(&a, &b);
        assert_eq!(breaches(&[gate("faster>20%")], &c, &[], 1).len(), 1);
        assert!(breaches(&[gate("faster>45%")], &c, &[], 1).is_empty());
    }

    #[test]
    fn a_significant_change_whose_interval_reaches_inside_the_threshold_does_not_breach() {
        // About +8%: significant, but the interval does not lie wholly above +10%.
        let a = doc(vec![entry("create.fork", &rounds(100.0))]);
        let b = doc(vec![entry("create.fork", &rounds(108.0))]);
        let c = compare_runs(&a, &b);
        assert!(c.pairs[0].significant());
        assert!(breaches(&[gate("slower>10%")], &c, &[], 1).is_empty());
        assert_eq!(breaches(&[gate("slower>2%")], &c, &[], 1).len(), 1);
    }

    #[test]
    fn sizes_and_counts_are_never_slower() {
        let size = |v| {
            entry_with(
                "memory.thread",
                "KiB",
                Params::new().with("placement", "unpinned"),
                &rounds(v),
            )
        };
        let (a, b) = (doc(vec![size(100.0)]), doc(vec![size(300.0)]));
        let c = compare_runs(&a, &b);
        assert!(c.pairs[0].significant());
        assert!(breaches(&[gate("slower>10%"), gate("faster>10%")], &c, &[], 1).is_empty());
    }

    #[test]
    fn an_a_a_pair_of_many_results_breaks_nothing() {
        let mut rng = fastrand::Rng::with_seed(34);
        let mut ra = Vec::new();
        let mut rb = Vec::new();
        for i in 0..120 {
            let draw = |rng: &mut fastrand::Rng| {
                (0..6)
                    .map(|_| 100.0 * (1.0 + rng.f64() * 0.05))
                    .collect::<Vec<_>>()
            };
            let mut x = entry("t.x", &draw(&mut rng));
            x.params.set("n", i);
            let mut y = entry("t.x", &draw(&mut rng));
            y.params.set("n", i);
            ra.push(x);
            rb.push(y);
        }
        let (a, b) = (doc(ra), doc(rb));
        let c = compare_runs(&a, &b);
        let gates = [
            gate("slower>10%"),
            gate("faster>10%"),
            gate("verdict-changed"),
        ];
        let rows = verdicts_side_by_side(&[&a, &b]);
        assert!(breaches(&gates, &c, &rows, 1).is_empty());
    }

    #[test]
    fn a_changed_verdict_breaks_verdict_changed_and_one_gate_catches_a_result_once() {
        let v = |k| Verdict {
            claim: "c".into(),
            source: "S0.create".into(),
            verdict: k,
            evidence: vec!["create.fork".into()],
            explanation: "e".into(),
            checks: vec![],
            robustness: None,
            rounds: None,
            unmeasured: vec![],
            judged: Default::default(),
            full_run: Vec::new(),
        };
        let mut a = doc(vec![entry("create.fork", &rounds(100.0))]);
        a.verdicts.push(v(VerdictKind::Confirmed));
        let mut b = doc(vec![entry("create.fork", &rounds(200.0))]);
        b.verdicts.push(v(VerdictKind::Inconclusive));
        let c = compare_runs(&a, &b);
        let rows = verdicts_side_by_side(&[&a, &b]);
        let found = breaches(
            &[
                gate("slower>10%"),
                gate("slower>20%"),
                gate("verdict-changed"),
            ],
            &c,
            &rows,
            1,
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(matches!(
            found[1],
            Breach::Verdict {
                a: VerdictKind::Confirmed,
                b: VerdictKind::Inconclusive,
                ..
            }
        ));
        // A claim only one run judged has not changed.
        let rows = verdicts_side_by_side(&[&a, &doc(vec![])]);
        assert!(breaches(&[gate("verdict-changed")], &c, &rows, 1).is_empty());
    }
}
