//! Sentences that put a verdict in context beyond its checks: where the print workload's models
//! trade the lead here and in the article, and what one unit holds in memory.

use super::decide::num;
use crate::crossover::{crossovers, Crossover, Leader, Point};
use crate::published::Published;
use concbench_core::vocab::{id, key};
use concbench_core::{ResultDoc, Verdict};
use concbench_stats::MIN_VALUES_95;
use serde_json::json;

/// The extra sentences for `verdict`, if its claim has any.
pub fn context(doc: &ResultDoc, verdict: &Verdict, published: &Published) -> Option<String> {
    match verdict.source.as_str() {
        "S0.print" => Some(print_crossovers(verdict, published)),
        "S0.table.memory_cpu" | "S0.30x.far" => memory_sentence(doc),
        _ => None,
    }
}

/// The smallest lead that counts at a COUNT: S0.print's rule (`data/published.toml`), the smallest
/// gap the article names a lead — processes at COUNT 1000, 13.074 against 11.681 s.
const LEAD: f64 = 1.119;

/// The leader at a COUNT from the threads/processes interval: decided only outside the lead.
fn leader(ci: Option<[f64; 2]>) -> Leader {
    match ci {
        Some([_, hi]) if hi < 1.0 / LEAD => Leader::Second,
        Some([lo, _]) if lo > LEAD => Leader::First,
        _ => Leader::Tie,
    }
}

/// The COUNT a print check's condition names ("threads lead at COUNT = 100, ...").
fn count_of(condition: &str) -> Option<f64> {
    let rest = &condition[condition.find("COUNT = ")? + "COUNT = ".len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

fn describe(c: &[Crossover]) -> String {
    if c.is_empty() {
        return "neither model overtakes the other".to_string();
    }
    c.iter()
        .map(|x| {
            format!(
                "they cross between COUNT {} and {}{}",
                x.low,
                x.high,
                x.estimate
                    .map(|e| format!(" (about {e:.0})"))
                    .unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn print_crossovers(verdict: &Verdict, published: &Published) -> String {
    // One point per COUNT: the check that decides there, else the first shown beside it (the
    // crossing's neighbourhood is shown, never decided).
    let mut by_count: Vec<Point> = Vec::new();
    let deciding_first = verdict
        .checks
        .iter()
        .filter(|c| !c.beside)
        .chain(verdict.checks.iter().filter(|c| c.beside));
    for c in deciding_first {
        let (Some(count), Some(ratio)) = (count_of(&c.condition), c.estimate) else {
            continue;
        };
        if by_count.iter().all(|p| p.x != count) {
            by_count.push(Point {
                x: count,
                ratio,
                leader: leader(c.ci95),
            });
        }
    }
    format!(
        "Along the COUNT sweep here {}. In the article's table (Xeon 5130, Linux 2.6.9) {}; the \
         paper it repeats put the crossing at 600.",
        describe(&crossovers(&by_count)),
        describe(&crossovers(&published_sweep(published)))
    )
}

/// The published S0.print table as points (threads / processes), leaders by sign.
pub(crate) fn published_sweep(published: &Published) -> Vec<Point> {
    let figure = |model: &str, count: i64| {
        published.figures.iter().find(|f| {
            f.seed == "S0.print"
                && f.params.get(key::MODEL).and_then(|v| v.as_str()) == Some(model)
                && f.params.get(key::COUNT).and_then(|v| v.as_integer()) == Some(count)
        })
    };
    let mut counts: Vec<i64> = published
        .figures
        .iter()
        .filter(|f| f.seed == "S0.print")
        .filter_map(|f| f.params.get(key::COUNT)?.as_integer())
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

/// What an idle process and an idle thread hold (PSS, kernel memory, commit), from the memory
/// family at 1000 units.
pub(crate) fn memory_sentence(doc: &ResultDoc) -> Option<String> {
    let units = [(key::UNITS, json!(1000))];
    let p = super::find(doc, id::MEMORY_PROCESS, &units)?;
    let t = super::find(
        doc,
        id::MEMORY_THREAD,
        &[(key::UNITS, json!(1000)), (key::STACK, json!("default"))],
    )?;
    let c = |e: &concbench_core::ResultEntry, k: &str| e.counters.get(k).copied();
    let mut s = format!(
        "Held idle (1000 at once), a process adds {} KiB of PSS and a thread {} KiB",
        num(p.summary.median),
        num(t.summary.median)
    );
    if let (Some(pk), Some(tk)) = (c(p, "kernel_kib_per_unit"), c(t, "kernel_kib_per_unit")) {
        s.push_str(&format!("; in the kernel {} vs {} KiB", num(pk), num(tk)));
    }
    if let (Some(pc), Some(tc)) = (
        c(p, "committed_kib_per_unit"),
        c(t, "committed_kib_per_unit"),
    ) {
        s.push_str(&format!(
            "; committed address space {} KiB per process against {} KiB per thread, whose \
             whole default stack is reserved",
            num(pc),
            num(tc)
        ));
    }
    if p.rounds.len() < MIN_VALUES_95 {
        s.push_str(" (too few rounds for intervals)");
    }
    s.push('.');
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::published;

    #[test]
    fn the_published_sweep_crosses_between_500_and_1000() {
        let pts = published_sweep(&published());
        assert_eq!(pts.len(), 8);
        let c = crossovers(&pts);
        assert_eq!((c[0].low, c[0].high), (500.0, 1000.0));
    }
}
