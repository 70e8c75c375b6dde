//! Where two models swap places along a sweep — seed S0.print: the COUNT at which processes and
//! threads trade the lead — and the interval the sweep pins it to.
//!
//! A point's leader is decided by the caller (a significant difference for measured results,
//! the sign alone for published figures). A crossover is a change of decisive leader: it lies
//! between the last point the old leader won and the first point the new one wins, ties in
//! between included; the estimate interpolates the ratio's logarithm linearly in log x.
//!
//! The crossover sweep of servers asks a different question of the same kind of data — where
//! does one design stop losing to another, a tie counting as not losing — and [`losing_edges`]
//! answers it with the same interpolation ([`ratio_reaches_one`]).

/// Which of the two compared models was faster at a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leader {
    /// The first model (the ratio's denominator) was faster: ratio > 1.
    First,
    /// The second model (the numerator) was faster: ratio < 1.
    Second,
    /// Not distinguishable.
    Tie,
}

/// One point of a sweep: `ratio` = time of the second model / time of the first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub ratio: f64,
    pub leader: Leader,
}

impl Point {
    /// A point whose leader is the sign of the ratio alone (published figures: no intervals).
    pub fn by_sign(x: f64, ratio: f64) -> Point {
        let leader = if ratio > 1.0 {
            Leader::First
        } else if ratio < 1.0 {
            Leader::Second
        } else {
            Leader::Tie
        };
        Point { x, ratio, leader }
    }
}

/// A change of leader between `low` (the old leader's last win) and `high` (the new leader's
/// first win).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossover {
    pub from: Leader,
    pub to: Leader,
    pub low: f64,
    pub high: f64,
    /// Where the interpolated ratio crosses 1, when it does inside the interval.
    pub estimate: Option<f64>,
}

/// Every change of decisive leader along the sweep, in order of x.
pub fn crossovers(points: &[Point]) -> Vec<Crossover> {
    let mut pts = points.to_vec();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x));
    let mut out = Vec::new();
    let mut last: Option<usize> = None;
    for (i, p) in pts.iter().enumerate() {
        if p.leader == Leader::Tie {
            continue;
        }
        if let Some(j) = last.filter(|&j| pts[j].leader != p.leader) {
            out.push(Crossover {
                from: pts[j].leader,
                to: p.leader,
                low: pts[j].x,
                high: p.x,
                estimate: estimate(&pts[j..=i]),
            });
        }
        last = Some(i);
    }
    out
}

/// Where ln(ratio), linear in ln(x) between neighbours, first reaches 0 within `span`.
fn estimate(span: &[Point]) -> Option<f64> {
    span.windows(2)
        .find_map(|w| ratio_reaches_one((w[0].x, w[0].ratio), (w[1].x, w[1].ratio)))
}

/// Where the ratio reaches 1 between two neighbouring points `(x, ratio)` (`a.0 < b.0`): its
/// logarithm interpolated linearly in ln(x), or linearly in x itself when `a` is at 0 (a log
/// scale has no 0). `None` when it stays on one side, or an input is out of range (x below 0,
/// a ratio not above 0).
///
/// Why the logarithms: a sweep's points are decades apart and a ratio of rates is multiplicative
/// (2x behind and 2x ahead are the same distance from even); a straight line through the
/// logarithms is what both axes of the chart show. Invariants: the result lies in `[a.0, b.0]`;
/// with both x above 0, scaling every x by c > 0 scales it by c.
pub fn ratio_reaches_one(a: (f64, f64), b: (f64, f64)) -> Option<f64> {
    let ((xa, ra), (xb, rb)) = (a, b);
    let valid = xa >= 0.0 && xb > xa && ra > 0.0 && rb > 0.0 && ra.is_finite() && rb.is_finite();
    if !valid {
        return None;
    }
    let (la, lb) = (ra.ln(), rb.ln());
    if la == 0.0 {
        return Some(xa);
    }
    if lb == 0.0 {
        return Some(xb);
    }
    if la.signum() == lb.signum() {
        return None;
    }
    let t = la / (la - lb);
    Some(if xa == 0.0 {
        t * xb
    } else {
        (xa.ln() + t * (xb.ln() - xa.ln())).exp().clamp(xa, xb)
    })
}

/// One point of a pair's sweep for [`losing_edges`]: the challenger's ratio to the reference
/// (above 1: ahead) and whether it is behind there — decisively, as the caller decides (an
/// interval below 1 for measurements; below 1 at all for a model).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    pub x: f64,
    pub ratio: f64,
    pub behind: bool,
}

/// Where the challenger starts or stops being behind along the sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    /// True: behind from `high` on (it was not at `low`); false: behind at `low`, not at `high`.
    pub falls_behind: bool,
    pub low: f64,
    pub high: f64,
    /// Where the ratio reaches 1 between them ([`ratio_reaches_one`]), or, when it does not (the
    /// side not behind already had a ratio below 1, within its noise), that side's x: a bound.
    pub at: f64,
    pub bound: bool,
}

/// Every change between behind and not behind, in order of x: the question "where does one
/// stop losing to the other" asked of a sweep. A tie counts as not behind, so a pool that keeps
/// up until its workers run out and then falls behind has one edge, where it falls behind.
///
/// Invariants: `low < at <= high` or `low <= at < high`, inside the pair of neighbouring
/// points that differ; the edges alternate in direction; the input's order does not matter.
pub fn losing_edges(points: &[Standing]) -> Vec<Edge> {
    let mut pts = points.to_vec();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x));
    pts.windows(2)
        .filter(|w| w[0].behind != w[1].behind && w[0].x < w[1].x)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let level = if a.behind { b } else { a };
            let crossed = ratio_reaches_one((a.x, a.ratio), (b.x, b.ratio));
            Edge {
                falls_behind: b.behind,
                low: a.x,
                high: b.x,
                at: crossed.unwrap_or(level.x),
                bound: crossed.is_none(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's published S0.print table: thread / process seconds at P = 255.
    fn published() -> Vec<Point> {
        let rows = [
            (5.0, 0.070, 0.049),
            (10.0, 0.104, 0.092),
            (50.0, 0.507, 0.422),
            (100.0, 1.051, 0.919),
            (500.0, 5.334, 4.646),
            (1000.0, 11.681, 13.074),
            (5000.0, 68.591, 86.318),
            (10000.0, 134.137, 160.240),
        ];
        rows.iter()
            .map(|&(x, p, t)| Point::by_sign(x, t / p))
            .collect()
    }

    #[test]
    fn the_published_table_crosses_between_500_and_1000() {
        let c = crossovers(&published());
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].from, c[0].to), (Leader::Second, Leader::First));
        assert_eq!((c[0].low, c[0].high), (500.0, 1000.0));
        let e = c[0].estimate.unwrap();
        assert!(e > 500.0 && e < 1000.0, "{e}");
    }

    #[test]
    fn ties_widen_the_interval_and_order_does_not_matter() {
        let mut pts = vec![
            Point {
                x: 10.0,
                ratio: 0.5,
                leader: Leader::Second,
            },
            Point {
                x: 100.0,
                ratio: 0.9,
                leader: Leader::Tie,
            },
            Point {
                x: 1000.0,
                ratio: 1.1,
                leader: Leader::Tie,
            },
            Point {
                x: 10000.0,
                ratio: 1.5,
                leader: Leader::First,
            },
        ];
        pts.reverse();
        let c = crossovers(&pts);
        assert_eq!((c[0].low, c[0].high), (10.0, 10000.0));
        // ln 0.9 -> ln 1.1 crosses zero between 100 and 1000.
        let e = c[0].estimate.unwrap();
        assert!(e > 100.0 && e < 1000.0, "{e}");
    }

    #[test]
    fn converging_without_swapping_is_no_crossover() {
        let pts = [
            Point::by_sign(5.0, 0.4),
            Point {
                x: 1000.0,
                ratio: 0.99,
                leader: Leader::Tie,
            },
        ];
        assert!(crossovers(&pts).is_empty());
    }

    fn standing(x: f64, ratio: f64, behind: bool) -> Standing {
        Standing { x, ratio, behind }
    }

    #[test]
    fn a_ratio_halving_each_decade_reaches_one_at_the_geometric_midpoint() {
        // ln 2 at 100, ln 0.5 at 1000: zero halfway in ln x, at sqrt(100 x 1000).
        let at = ratio_reaches_one((100.0, 2.0), (1000.0, 0.5)).unwrap();
        assert!((at - 316.227_766).abs() < 1e-3, "{at}");
        // Next to zero the scale is linear: halfway between 0 and 100.
        assert_eq!(ratio_reaches_one((0.0, 2.0), (100.0, 0.5)), Some(50.0));
        assert_eq!(ratio_reaches_one((1.0, 2.0), (10.0, 1.5)), None);
        assert_eq!(ratio_reaches_one((1.0, 1.0), (10.0, 0.5)), Some(1.0));
        assert_eq!(ratio_reaches_one((1.0, 0.5), (10.0, 1.0)), Some(10.0));
        assert_eq!(ratio_reaches_one((1.0, 0.0), (10.0, 2.0)), None);
        assert_eq!(
            ratio_reaches_one((10.0, 2.0), (1.0, 0.5)),
            None,
            "a before b"
        );
    }

    #[test]
    fn a_pool_that_keeps_up_then_falls_behind_has_one_edge_where_it_falls() {
        // Level at 0 and 100 (0.98 is within noise), behind from 1000 on.
        let edges = losing_edges(&[
            standing(10_000.0, 0.1, true),
            standing(0.0, 1.01, false),
            standing(100.0, 0.98, false),
            standing(1000.0, 0.5, true),
        ]);
        assert_eq!(edges.len(), 1);
        let e = edges[0];
        assert!(e.falls_behind);
        assert_eq!((e.low, e.high), (100.0, 1000.0));
        // 0.98 never reaches 1 on the way to 0.5: the level side is the bound.
        assert!(e.bound);
        assert_eq!(e.at, 100.0);
    }

    #[test]
    fn a_process_pool_that_catches_up_has_its_edge_where_the_ratio_reaches_one() {
        let edges = losing_edges(&[
            standing(0.0, 0.8, true),
            standing(100.0, 0.8, true),
            standing(1000.0, 1.0, false),
            standing(10_000.0, 1.0, false),
        ]);
        assert_eq!(edges.len(), 1);
        assert!(!edges[0].falls_behind);
        assert_eq!(edges[0].at, 1000.0);
        assert!(!edges[0].bound);
    }

    /// Properties over pseudo-random sweeps (fastrand, seeded: the same cases every run).
    #[test]
    fn edges_lie_between_neighbours_alternate_and_scale_with_x() {
        let mut rng = fastrand::Rng::with_seed(45);
        for _ in 0..2000 {
            let n = rng.usize(2..8);
            let mut x = 0.0;
            let pts: Vec<Standing> = (0..n)
                .map(|i| {
                    x = if i == 0 { 0.0 } else { x * 10.0 + 1.0 };
                    let ratio = (rng.f64() * 4.0 - 2.0).exp();
                    let behind = ratio < 1.0 && rng.bool();
                    standing(x, ratio, behind)
                })
                .collect();
            let edges = losing_edges(&pts);
            let flips = pts
                .windows(2)
                .filter(|w| w[0].behind != w[1].behind)
                .count();
            assert_eq!(edges.len(), flips);
            for e in &edges {
                assert!(e.low <= e.at && e.at <= e.high, "{e:?}");
            }
            for w in edges.windows(2) {
                assert_ne!(w[0].falls_behind, w[1].falls_behind);
            }
            let mut shuffled = pts.clone();
            rng.shuffle(&mut shuffled);
            assert_eq!(losing_edges(&shuffled), edges);
            // Scaling x scales every estimate (log-linear and linear next to 0 alike).
            let scaled: Vec<Standing> = pts
                .iter()
                .map(|p| standing(p.x * 3.0, p.ratio, p.behind))
                .collect();
            for (e, s) in edges.iter().zip(losing_edges(&scaled)) {
                assert!(
                    (s.at - 3.0 * e.at).abs() <= 1e-9 * s.at.max(1.0),
                    "{e:?} {s:?}"
                );
            }
        }
    }

    #[test]
    fn each_swap_is_reported() {
        let pts = [
            Point::by_sign(1.0, 0.5),
            Point::by_sign(2.0, 2.0),
            Point::by_sign(4.0, 0.5),
        ];
        let c = crossovers(&pts);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].to, Leader::Second);
    }
}
