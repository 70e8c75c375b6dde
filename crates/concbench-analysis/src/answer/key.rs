//! Which checks a verdict's one line stands on: the checks that decide it, and the key figure —
//! one check, or for a verdict that depends, every check that decides grouped by rule and
//! decision. A choice about the evidence, so it is made here once; the renderers only word it.

use concbench_core::{Check, Verdict, VerdictKind};

/// The checks a verdict's line stands on.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyChecks<'a> {
    /// The checks that decide the verdict (those only shown beside left out), or every check
    /// when none decides.
    pub deciding: Vec<&'a Check>,
    /// What the line shows of them.
    pub shown: Shown<'a>,
}

/// The key figure of a verdict's line.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown<'a> {
    /// The verdict has no check (an older document's): nothing to show.
    Nothing,
    /// One check: the first deciding check that says the verdict's word, else the first.
    One(&'a Check),
    /// A verdict that depends: its checks grouped by rule and decision, in check order
    /// ([`depends_groups`]).
    Groups(Vec<Vec<&'a Check>>),
}

impl Shown<'_> {
    /// How many checks the line shows (the rest are counted as "+N more").
    pub fn count(&self) -> usize {
        match self {
            Shown::Nothing => 0,
            Shown::One(_) => 1,
            Shown::Groups(groups) => groups.iter().map(Vec::len).sum(),
        }
    }
}

/// The checks `v`'s line stands on.
pub fn key_checks(v: &Verdict) -> KeyChecks<'_> {
    let mut deciding: Vec<&Check> = v.checks.iter().filter(|c| !c.beside).collect();
    if deciding.is_empty() {
        deciding = v.checks.iter().collect();
    }
    let shown = match deciding.first() {
        None => Shown::Nothing,
        Some(_) if v.verdict == VerdictKind::Depends => Shown::Groups(depends_groups(&deciding)),
        Some(first) => Shown::One(
            (deciding.iter())
                .find(|c| c.decision == v.verdict)
                .unwrap_or(first),
        ),
    };
    KeyChecks { deciding, shown }
}

/// The checks a verdict that depends shows: every check that decides (confirmed or refuted) —
/// or, when fewer than two do, the first of each decision, two at most — grouped by rule and
/// decision in check order, so that six conditions under one rule read as two groups.
pub fn depends_groups<'a>(checks: &[&'a Check]) -> Vec<Vec<&'a Check>> {
    let decides = |c: &&&Check| matches!(c.decision, VerdictKind::Confirmed | VerdictKind::Refuted);
    let mut shown: Vec<&Check> = checks.iter().filter(decides).copied().collect();
    if shown.len() < 2 {
        shown.clear();
        for c in checks {
            if shown.len() < 2 && !shown.iter().any(|s| s.decision == c.decision) {
                shown.push(c);
            }
        }
    }
    let mut groups: Vec<Vec<&Check>> = Vec::new();
    for c in shown {
        match (groups.iter_mut()).find(|g| g[0].rule == c.rule && g[0].decision == c.decision) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use VerdictKind::*;

    fn check(condition: &str, rule: &str, decision: VerdictKind) -> Check {
        crate::synthetic::check(condition, rule, 1.0, decision)
    }

    fn verdict(kind: VerdictKind, checks: Vec<Check>) -> Verdict {
        Verdict {
            claim: "a claim".into(),
            source: "S0.print".into(),
            verdict: kind,
            evidence: Vec::new(),
            explanation: String::new(),
            checks,
            rounds: Some(6),
            robustness: Some(1.0),
            unmeasured: Vec::new(),
            judged: Default::default(),
            full_run: Vec::new(),
        }
    }

    fn conditions(groups: &[Vec<&Check>]) -> Vec<Vec<String>> {
        (groups.iter())
            .map(|g| g.iter().map(|c| c.condition.clone()).collect())
            .collect()
    }

    #[test]
    fn a_verdict_that_depends_shows_every_deciding_check_grouped_by_rule_and_decision() {
        let checks = [
            check("COUNT = 5", "t / p >= 0.870", Refuted),
            check("COUNT = 500", "t / p >= 0.870", Inconclusive),
            check("COUNT = 1000", "t / p >= 0.870", Confirmed),
            check("COUNT = 10", "t / p >= 0.870", Refuted),
        ];
        let refs: Vec<&Check> = checks.iter().collect();
        assert_eq!(
            conditions(&depends_groups(&refs)),
            [vec!["COUNT = 5", "COUNT = 10"], vec!["COUNT = 1000"]]
        );
        // Fewer than two deciding: the first of each decision, two at most.
        let one = [
            check("a", "x >= 1", Inconclusive),
            check("b", "x >= 1", Confirmed),
            check("c", "x >= 1", Inconclusive),
        ];
        let refs: Vec<&Check> = one.iter().collect();
        assert_eq!(conditions(&depends_groups(&refs)), [vec!["a"], vec!["b"]]);
    }

    #[test]
    fn the_key_check_says_the_verdicts_word_and_a_check_shown_beside_never_decides_it() {
        let mut beside = check("the stand-in", "x >= 1", Confirmed);
        beside.beside = true;
        let v = verdict(
            Refuted,
            vec![
                beside,
                check("the article's", "x >= 1", Inconclusive),
                check("the article's, cold", "x >= 1", Refuted),
            ],
        );
        let key = key_checks(&v);
        assert_eq!(key.deciding.len(), 2);
        assert_eq!(key.shown, Shown::One(&v.checks[2]));
        assert_eq!(key.shown.count(), 1);
        // None with the verdict's word: the first deciding check.
        let v = verdict(Confirmed, vec![check("a", "x >= 1", Inconclusive)]);
        assert_eq!(key_checks(&v).shown, Shown::One(&v.checks[0]));
        assert_eq!(
            key_checks(&verdict(Confirmed, vec![])).shown,
            Shown::Nothing
        );
        let v = verdict(
            Depends,
            vec![
                check("a", "x >= 1", Refuted),
                check("b", "x >= 1", Confirmed),
            ],
        );
        assert_eq!(key_checks(&v).shown.count(), 2);
    }
}
