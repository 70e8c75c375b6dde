//! S0.print: "for the print workload, threads are no faster than processes on Linux 2.6" —
//! judged on this machine's COUNT sweep (P = 255, 12-byte lines, one CPU), with the crossover
//! here and in the published table, and the S0.heavy and S0.scale points beside it.

use super::{compare, verdict, Comparison};
use crate::crossover::{crossovers, Crossover, Leader, Point};
use crate::published::Published;
use concbench_core::{ResultDoc, ResultEntry, Verdict, VerdictKind};
use serde_json::{json, Value};

const ID: &str = "workload.print";
const SEED_WORKERS: u64 = 255;
const SEED_COUNT: u64 = 1000;
const SEED_LINE: u64 = 12;
const HEAVY_LINE: u64 = 256;

/// The shape of one print batch, without the model.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape<'a> {
    pub placement: &'a str,
    pub workers: u64,
    pub count: u64,
    pub line_bytes: u64,
    pub sink: &'a str,
}

impl Shape<'_> {
    fn matches(&self, e: &ResultEntry, model: &str) -> bool {
        let p = &e.params;
        e.id == ID
            && p.get_str("model") == Some(model)
            && p.get_str("placement") == Some(self.placement)
            && p.get_str("sink") == Some(self.sink)
            && [
                ("workers", self.workers),
                ("count", self.count),
                ("line_bytes", self.line_bytes),
            ]
            .iter()
            .all(|(k, v)| p.get(k) == Some(&json!(v)))
    }
}

/// The process and thread results of one shape, and threads relative to processes.
pub(crate) fn pair<'a>(
    doc: &'a ResultDoc,
    shape: Shape<'_>,
) -> Option<(&'a ResultEntry, &'a ResultEntry, Comparison)> {
    let process = doc.results.iter().find(|e| shape.matches(e, "process"))?;
    let thread = doc.results.iter().find(|e| shape.matches(e, "thread"))?;
    Some((process, thread, compare(process, thread)?))
}

/// Who led at a measured point: a significant difference, or a tie.
fn leader(c: &Comparison) -> Leader {
    match (c.differs(), c.ratio < 1.0) {
        (false, _) => Leader::Tie,
        (true, true) => Leader::Second,
        (true, false) => Leader::First,
    }
}

/// The measured COUNT sweep on `placement`: (COUNT, threads / processes) with leaders.
pub(crate) fn count_sweep(doc: &ResultDoc, placement: &str) -> Vec<Point> {
    let mut counts: Vec<u64> = doc
        .results
        .iter()
        .filter(|e| e.id == ID)
        .filter_map(|e| e.params.get("count").and_then(Value::as_u64))
        .collect();
    counts.sort_unstable();
    counts.dedup();
    counts
        .into_iter()
        .filter_map(|count| {
            let shape = Shape {
                placement,
                workers: SEED_WORKERS,
                count,
                line_bytes: SEED_LINE,
                sink: "pipe",
            };
            let (_, _, c) = pair(doc, shape)?;
            Some(Point {
                x: count as f64,
                ratio: c.ratio,
                leader: leader(&c),
            })
        })
        .collect()
}

/// The published S0.print table as points (threads / processes), leaders by sign.
fn published_sweep(published: &Published) -> Vec<Point> {
    let figure = |model: &str, count: u64| {
        published.figures.iter().find(|f| {
            f.seed == "S0.print"
                && f.params.get("model").and_then(|v| v.as_str()) == Some(model)
                && f.params.get("count").and_then(|v| v.as_integer()) == Some(count as i64)
        })
    };
    let mut counts: Vec<u64> = published
        .figures
        .iter()
        .filter(|f| f.seed == "S0.print")
        .filter_map(|f| f.params.get("count")?.as_integer())
        .map(|c| c as u64)
        .collect();
    counts.sort_unstable();
    counts.dedup();
    counts
        .into_iter()
        .filter_map(|c| {
            let (p, t) = (
                figure("process", c)?.central()?,
                figure("thread", c)?.central()?,
            );
            Some(Point::by_sign(c as f64, t / p))
        })
        .collect()
}

fn who(l: Leader) -> &'static str {
    match l {
        Leader::First => "processes faster",
        Leader::Second => "threads faster",
        Leader::Tie => "no significant difference",
    }
}

/// "threads faster at COUNT 5-500 (0.39-0.57x); no significant difference at 1000-10000 (...)"
pub(crate) fn describe_runs(points: &[Point]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < points.len() {
        let mut j = i;
        while j + 1 < points.len() && points[j + 1].leader == points[i].leader {
            j += 1;
        }
        let run = &points[i..=j];
        let (lo, hi) = run.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p.ratio), hi.max(p.ratio))
        });
        let xs = if i == j {
            format!("{}", points[i].x)
        } else {
            format!("{}-{}", points[i].x, points[j].x)
        };
        let ratios = if i == j {
            format!("{lo:.2}x")
        } else {
            format!("{lo:.2}-{hi:.2}x")
        };
        parts.push(format!(
            "{} at COUNT {xs} ({ratios})",
            who(points[i].leader)
        ));
        i = j + 1;
    }
    parts.join("; ")
}

/// "crossover between COUNT 500 and 1000 (about 700): threads faster below, processes above"
pub(crate) fn describe_crossovers(c: &[Crossover]) -> String {
    if c.is_empty() {
        return "no crossover (neither model overtakes the other)".to_string();
    }
    c.iter()
        .map(|x| {
            format!(
                "crossover between COUNT {} and {}{}: {} below, {} above",
                x.low,
                x.high,
                x.estimate
                    .map(|e| format!(" (about {e:.0})"))
                    .unwrap_or_default(),
                who(x.from),
                who(x.to)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One extra sentence for a seed point beside the sweep (S0.heavy, S0.scale).
fn side_point(doc: &ResultDoc, label: &str, shape: Shape<'_>) -> Option<String> {
    let (_, _, c) = pair(doc, shape)?;
    Some(format!(
        " {label}: threads take {} the processes' time.",
        c.describe()
    ))
}

pub fn print_workload(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let points = count_sweep(doc, "same-cpu");
    if points.is_empty() {
        return None;
    }
    let faster = points.iter().filter(|p| p.leader == Leader::Second).count();
    let kind = match faster {
        0 => VerdictKind::Confirmed,
        n if n == points.len() => VerdictKind::Refuted,
        _ => VerdictKind::Depends,
    };
    let swaps = crossovers(&points);
    let mut explanation = format!(
        "Here, 255 workers on one CPU writing 12-byte lines through a pipe (threads' time / \
         processes'): {}; {}.",
        describe_runs(&points),
        describe_crossovers(&swaps)
    );
    if kind == VerdictKind::Depends {
        explanation.push_str(if swaps.is_empty() {
            " Threads win while creating the workers dominates (a fork costs more than a \
             pthread_create); once each writes enough lines, the system calls dominate and the \
             two are equal."
        } else {
            " Threads win while creating the workers dominates (a fork costs more than a \
             pthread_create); with enough lines per worker, processes pull ahead."
        });
    }
    let seed_shape = |workers, count, line_bytes| Shape {
        placement: "same-cpu",
        workers,
        count,
        line_bytes,
        sink: "pipe",
    };
    let heavy = side_point(
        doc,
        "256-byte lines (S0.heavy, COUNT 1000)",
        seed_shape(SEED_WORKERS, SEED_COUNT, HEAVY_LINE),
    );
    let scale = side_point(
        doc,
        "1000 workers (S0.scale, COUNT 1000)",
        seed_shape(1000, SEED_COUNT, SEED_LINE),
    );
    explanation.push_str(&heavy.unwrap_or_default());
    explanation.push_str(&scale.unwrap_or_default());
    let seed = published_sweep(published);
    if !seed.is_empty() {
        explanation.push_str(&format!(
            " Published (Xeon 5130, Linux 2.6.9, one core): {}; {}.",
            describe_runs(&seed),
            describe_crossovers(&crossovers(&seed))
        ));
    }
    verdict(
        published,
        "S0.print",
        kind,
        vec![ID.to_string()],
        explanation,
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{around, doc, entry};
    use super::*;
    use crate::published::published;

    #[test]
    fn runs_group_consecutive_leaders() {
        let pts = [
            Point::by_sign(5.0, 0.4),
            Point::by_sign(10.0, 0.5),
            Point {
                x: 1000.0,
                ratio: 1.01,
                leader: Leader::Tie,
            },
        ];
        assert_eq!(
            describe_runs(&pts),
            "threads faster at COUNT 5-10 (0.40-0.50x); no significant difference at COUNT \
             1000 (1.01x)"
        );
    }

    fn sweep(process_over_thread: impl Fn(u64) -> f64) -> ResultDoc {
        let mut results = Vec::new();
        for count in [5u64, 100, 1000, 10000] {
            let thread_s = count as f64 * 1e-4 + 0.01;
            for (model, s) in [
                ("process", thread_s * process_over_thread(count)),
                ("thread", thread_s),
            ] {
                let p = [
                    ("model", json!(model)),
                    ("workers", json!(255)),
                    ("count", json!(count)),
                    ("line_bytes", json!(12)),
                    ("sink", json!("pipe")),
                    ("placement", json!("same-cpu")),
                ];
                results.push(entry(ID, &p, around(s)));
            }
        }
        doc(results)
    }

    #[test]
    fn threads_faster_only_for_short_batches_depends_and_compares_with_the_seed() {
        let d = sweep(|count| if count < 1000 { 2.0 } else { 1.0 });
        let v = print_workload(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Depends);
        assert!(
            v.explanation
                .contains("threads faster at COUNT 5-100 (0.50-0.50x)"),
            "{}",
            v.explanation
        );
        assert!(v.explanation.contains("no crossover"), "{}", v.explanation);
        assert!(
            v.explanation
                .contains("crossover between COUNT 500 and 1000"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn threads_never_faster_confirms_and_a_swap_is_located() {
        let d = sweep(|count| if count < 1000 { 1.0 } else { 0.8 });
        let v = print_workload(&d, &published()).unwrap();
        assert_eq!(v.verdict, VerdictKind::Confirmed);
        let c = crossovers(&count_sweep(&d, "same-cpu"));
        assert!(c.is_empty(), "ties then processes faster: {c:?}");
        let d = sweep(|count| if count < 1000 { 2.0 } else { 0.8 });
        let c = crossovers(&count_sweep(&d, "same-cpu"));
        assert_eq!((c[0].low, c[0].high), (100.0, 1000.0));
    }

    #[test]
    fn the_published_sweep_is_read_from_the_shipped_figures() {
        let pts = published_sweep(&published());
        assert_eq!(pts.len(), 8);
        let c = crossovers(&pts);
        assert_eq!((c[0].low, c[0].high), (500.0, 1000.0));
    }
}
