//! A verdict's word as every renderer says it: "depends" only where different conditions decide
//! differently; a loose and an exact rule on one figure are said as what they are.

use concbench_core::{Check, Verdict, VerdictKind};

/// The word of an outcome.
pub fn verdict_word(k: VerdictKind) -> &'static str {
    match k {
        VerdictKind::Confirmed => "confirmed",
        VerdictKind::Refuted => "refuted",
        VerdictKind::Depends => "depends",
        VerdictKind::Inconclusive => "inconclusive",
    }
}

/// The verdict as said: its word, except where "depends" would mislead. Checks that disagree on
/// one and the same figure (the same estimate and interval) are a loose rule and an exact one
/// on one number: the claim's direction holds and its size does not ("direction confirmed, size
/// refuted"). "depends" stays for different figures — different conditions — deciding
/// differently.
pub fn verdict_label(v: &Verdict) -> String {
    use VerdictKind::{Confirmed, Depends, Refuted};
    let word = verdict_word(v.verdict).to_string();
    if v.verdict != Depends {
        return word;
    }
    let decided: Vec<&Check> = v
        .checks
        .iter()
        .filter(|c| !c.beside && matches!(c.decision, Confirmed | Refuted))
        .collect();
    let same_figure =
        |a: &Check, b: &Check| a.estimate == b.estimate && a.ci95 == b.ci95 && a.unit == b.unit;
    let split = |c: &Check| {
        decided
            .iter()
            .any(|o| same_figure(c, o) && o.decision != c.decision)
    };
    // Figures decided one way only, by every rule on them: do two of them disagree?
    let whole: Vec<&&Check> = decided.iter().filter(|c| !split(c)).collect();
    let across = whole.iter().any(|c| c.decision == Confirmed)
        && whole.iter().any(|c| c.decision == Refuted);
    let within: Vec<&&Check> = decided.iter().filter(|c| split(c)).collect();
    if across || within.is_empty() {
        return word;
    }
    // A range ("within [a, b]") states a size; a one-sided bound a direction.
    let aspect = |k| {
        if within
            .iter()
            .filter(|c| c.decision == k)
            .all(|c| c.rule.contains("within"))
        {
            "size"
        } else {
            "direction"
        }
    };
    match (aspect(Confirmed), aspect(Refuted)) {
        ("direction", "size") => "direction confirmed, size refuted".into(),
        ("size", "direction") => "size confirmed, direction refuted".into(),
        _ => word,
    }
}
