//! Where two models swap places along a sweep — seed S0.print: the COUNT at which processes and
//! threads trade the lead — and the interval the sweep pins it to.
//!
//! A point's leader is decided by the caller (a significant difference for measured results,
//! the sign alone for published figures). A crossover is a change of decisive leader: it lies
//! between the last point the old leader won and the first point the new one wins, ties in
//! between included; the estimate interpolates the ratio's logarithm linearly in log x.

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
    span.windows(2).find_map(|w| {
        let (a, b) = (w[0], w[1]);
        if a.x <= 0.0 || b.x <= 0.0 || a.ratio <= 0.0 || b.ratio <= 0.0 {
            return None;
        }
        let (la, lb) = (a.ratio.ln(), b.ratio.ln());
        if la == 0.0 {
            return Some(a.x);
        }
        if la.signum() == lb.signum() {
            return None;
        }
        let t = la / (la - lb);
        Some((a.x.ln() + t * (b.x.ln() - a.x.ln())).exp())
    })
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
