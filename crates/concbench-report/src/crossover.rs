//! The crossover sweep as rows and sentences every renderer lays out its own way: each point's
//! requests/s measured and predicted with the error, where each pair crosses (measured and
//! predicted), the error over the sweep, and `advise`'s line saying whether and how well its
//! model was checked on this machine.

use crate::answer::thousands;
use concbench_analysis::sweep::{block_text, cpu_text, crossing_text};
use concbench_core::crossover::{Crossing, Crossover, Pair, SweepPoint};
use concbench_core::human::sig3;
use concbench_core::ResultDoc;

/// Whether the document is `concbench crossover`'s (its own short screen).
pub fn is_command(doc: &ResultDoc) -> bool {
    doc.settings.get("command").and_then(|v| v.as_str()) == Some("crossover")
}

pub const POINT_HEADER: [&str; 7] = [
    "design",
    "CPU",
    "blocking",
    "measured req/s [95% CI]",
    "predicted req/s",
    "limit",
    "measured / predicted",
];

/// Requests/s, whole and with thousands: "12,345".
fn rps(v: f64) -> String {
    thousands(v)
}

/// "12,345 [12,001, 12,700]"; without an interval, the rounds' range: "12,345 (3 rounds,
/// 12,001–12,700)"; "not steady" for a server that never levelled.
fn measured_cell(p: &SweepPoint) -> String {
    let figure = match p.measured_ci {
        Some([lo, hi]) => format!("{} [{}, {}]", rps(p.measured_rps), rps(lo), rps(hi)),
        None if p.rounds > 1 => format!(
            "{} ({} rounds, {}–{})",
            rps(p.measured_rps),
            p.rounds,
            rps(p.measured_range[0]),
            rps(p.measured_range[1])
        ),
        None => format!("{} (1 round)", rps(p.measured_rps)),
    };
    if p.steady {
        figure
    } else {
        format!("{figure}, not steady")
    }
}

/// "0.62 [0.58, 0.66]" or "-".
fn error_cell(p: &SweepPoint) -> String {
    match (p.error, p.error_ci) {
        (Some(e), Some([lo, hi])) => format!("{} [{}, {}]", sig3(e), sig3(lo), sig3(hi)),
        (Some(e), None) => sig3(e),
        _ => "-".into(),
    }
}

pub fn point_rows(c: &Crossover) -> Vec<[String; 7]> {
    c.points
        .iter()
        .map(|p| {
            [
                p.label.clone(),
                cpu_text(p.cpu_us),
                block_text(p.block_us),
                measured_cell(p),
                p.predicted_rps.map_or("-".into(), rps),
                p.limited_by.clone().unwrap_or_else(|| "-".into()),
                error_cell(p),
            ]
        })
        .collect()
}

pub const PAIR_HEADER: [&str; 5] = [
    "pair",
    "CPU",
    "measured crossing",
    "predicted crossing",
    "measured / predicted",
];

/// The crossings of one side, or why there is none.
fn crossings_cell(cs: &[Crossing], none: String) -> String {
    if cs.is_empty() {
        none
    } else {
        cs.iter().map(crossing_text).collect::<Vec<_>>().join("; ")
    }
}

/// "none in 0–10 ms: behind at every point".
fn no_crossing(p: &Pair, behind_everywhere: bool) -> String {
    let span = |f: fn(&f64, &f64) -> bool| {
        p.ratios
            .iter()
            .map(|r| r.block_us)
            .reduce(|a, b| if f(&a, &b) { a } else { b })
            .unwrap_or(0.0)
    };
    format!(
        "none in {}–{}: {}",
        block_text(span(|a, b| a < b)),
        block_text(span(|a, b| a > b)),
        if behind_everywhere {
            "behind at every point"
        } else {
            "never behind"
        }
    )
}

pub fn pair_rows(c: &Crossover) -> Vec<[String; 5]> {
    c.pairs
        .iter()
        .map(|p| {
            let predicted_known = p.ratios.iter().all(|r| r.predicted.is_some());
            let predicted = if predicted_known {
                let all_behind = p
                    .ratios
                    .iter()
                    .all(|r| r.predicted.is_some_and(|x| x < 1.0));
                crossings_cell(&p.predicted, no_crossing(p, all_behind))
            } else {
                "not predicted".into()
            };
            [
                format!("{} vs {}", p.challenger, p.reference),
                cpu_text(p.cpu_us),
                crossings_cell(
                    &p.measured,
                    no_crossing(p, p.ratios.iter().all(|r| r.behind)),
                ),
                predicted,
                p.error.map_or("-".into(), sig3),
            ]
        })
        .collect()
}

/// The error over the sweep in one sentence, or why there is none.
pub fn error_line(c: &Crossover) -> String {
    match &c.error {
        Some(e) => format!(
            "advise's predictions against {} levelled points: measured / predicted {} at the \
             median; off by a factor of {} at the median and {} at worst ({})",
            e.points,
            sig3(e.median_ratio),
            sig3(e.median_factor),
            sig3(e.worst_factor),
            e.worst_at
        ),
        None if !c.missing.is_empty() => {
            format!("no prediction: the document lacks {}", c.missing.join("; "))
        }
        None => "no point has both a measurement of a levelled server and a prediction".into(),
    }
}

/// How the predictions were made, how crossings are found, and what is missing.
pub fn method_lines(c: &Crossover) -> Vec<String> {
    let mut v: Vec<String> = c.model.clone();
    v.push(
        "a crossing is where the challenger starts or stops being decisively behind: where the \
         upper end of its ratio's 95% interval (with three rounds a side and no interval, its \
         highest round over the reference's lowest) reaches 1, its logarithm interpolated \
         linearly in the logarithm of the blocking time (linearly in the time next to 0); a \
         prediction is judged the same way, its ratio times the pair's measured resolution (the \
         median of the points' upper end over their ratio); \"by\" and \"from\" mark a bound \
         where a point could not be decided"
            .into(),
    );
    v.extend(c.missing.iter().map(|m| format!("missing: {m}")));
    v
}

/// `advise`'s line on its own check: where the sweep came from and how far off the model was,
/// or that it was never checked here and the command that checks it. `found` is the sweep and
/// where it was read ("run 12 (`crossover` started ...) of PATH", a file name).
pub fn checked_text(found: Option<(&Crossover, &str)>) -> String {
    match found {
        Some((c, source)) => match &c.error {
            Some(e) => format!(
                "Checked on this machine: the crossover sweep in {source} measured {} points of \
                 servers beside this model's predictions; measured / predicted was {} at the \
                 median, off by a factor of {} at the median and {} at worst ({}). Where each \
                 pair crosses, measured and predicted: `concbench report FILE --all`.",
                e.points,
                sig3(e.median_ratio),
                sig3(e.median_factor),
                sig3(e.worst_factor),
                e.worst_at
            ),
            None => format!(
                "The crossover sweep in {source} holds no prediction to check this model against \
                 ({}); `concbench crossover` measures one with the unit costs it needs.",
                error_line(c)
            ),
        },
        None => "Never checked on this machine: `concbench crossover` measures servers at four \
                 blocking times and two CPU costs and sets this model's predictions beside them \
                 (about 10 minutes; --quick about 25 s)."
            .into(),
    }
}
