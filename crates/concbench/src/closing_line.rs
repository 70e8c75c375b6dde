//! The line that closes a run's progress on stderr: rounds, passes, time, the rounds each verdict
//! rests on, and what a full run would add to a quick one.

use concbench_core::ResultDoc;
use concbench_session::RunStats;

/// "concbench: 412 rounds in 19 passes, 55 s; rounds per verdict: ...; a full run ...".
pub fn closing_line(doc: &ResultDoc, stats: &RunStats, claim_rounds: usize) -> String {
    format!(
        "concbench: {} rounds in {} passes, {:.0} s{}{}",
        stats.rounds,
        stats.passes,
        doc.duration_s,
        rounds_per_verdict(doc, claim_rounds),
        what_a_full_run_adds(doc)
    )
}

/// "; a full run (about 10 minutes) judges S0.print, S4.one_thread on the articles' own
/// programs and systems" for a quick run's closing line; empty when it adds nothing.
fn what_a_full_run_adds(doc: &ResultDoc) -> String {
    let claims: Vec<&str> = (doc.verdicts.iter())
        .filter(|v| !v.full_run.is_empty())
        .map(|v| v.source.as_str())
        .collect();
    if claims.is_empty() {
        return String::new();
    }
    let time = concbench_report::full_run_time(doc)
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    format!(
        "; a full run{time} judges {} on the articles' own programs and systems",
        claims.join(", ")
    )
}

/// "; rounds per verdict: S0.30x 6, S4.degrade 9 (1 check at 1), ..." for the closing line: a
/// verdict's rounds are its deciding checks' most, and the checks the run left under its base
/// rounds follow in brackets (a withheld check, which takes no rounds of its own, is not one).
/// Why: a full run on 2026-11-27 said "S4.degrade 9" while its 100-thread check had one round.
/// `base` is the plan's rounds for a claim's figures (`RunPlan::claim_rounds`), passed typed
/// rather than read back from the document's settings by name.
fn rounds_per_verdict(doc: &ResultDoc, base: usize) -> String {
    let parts: Vec<String> = doc
        .verdicts
        .iter()
        .filter_map(|v| {
            let short: Vec<usize> = (v.checks.iter())
                .filter(|c| !c.beside && !c.withheld && c.rounds < base)
                .map(|c| c.rounds)
                .collect();
            let under = match (short.len(), short.iter().min()) {
                (0, _) | (_, None) => String::new(),
                (1, Some(r)) => format!(" (1 check at {r})"),
                (n, Some(r)) => format!(" ({n} checks under {base}, the fewest at {r})"),
            };
            Some(format!("{} {}{under}", v.source, v.rounds?))
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; rounds per verdict: {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_core::{Check, Host, Verdict, VerdictKind};

    fn check(rounds: usize, beside: bool, withheld: bool) -> Check {
        Check {
            condition: "c".into(),
            rule: "r".into(),
            estimate: Some(1.0),
            ci95: None,
            unit: "x".into(),
            rounds,
            decision: VerdictKind::Inconclusive,
            note: String::new(),
            beside,
            withheld,
            boundary: None,
            at_margin: None,
        }
    }

    #[test]
    fn regression_the_closing_line_said_s4_degrade_9_with_a_check_at_one_round() {
        let mut doc = ResultDoc::new(Host::default(), String::new());
        let verdict = |source: &str, checks: Vec<Check>| Verdict {
            claim: "claim".into(),
            source: source.into(),
            verdict: VerdictKind::Inconclusive,
            evidence: Vec::new(),
            explanation: String::new(),
            rounds: checks.iter().filter(|c| !c.beside).map(|c| c.rounds).max(),
            checks,
            robustness: None,
            unmeasured: Vec::new(),
            judged: Default::default(),
            full_run: Vec::new(),
        };
        doc.verdicts = vec![
            verdict(
                "S4.degrade",
                vec![check(9, false, false), check(1, false, false)],
            ),
            // Withheld or beside at one round: not left short by the run.
            verdict(
                "S4.one_thread",
                vec![check(20, false, false), check(1, false, true)],
            ),
            verdict(
                "S0.print",
                vec![check(6, false, false), check(1, true, false)],
            ),
            verdict(
                "S0.create",
                vec![
                    check(7, false, false),
                    check(1, false, false),
                    check(5, false, false),
                ],
            ),
        ];
        assert_eq!(
            rounds_per_verdict(&doc, 6),
            "; rounds per verdict: S4.degrade 9 (1 check at 1), S4.one_thread 20, S0.print 6, \
             S0.create 7 (2 checks under 6, the fewest at 1)"
        );
    }
}
