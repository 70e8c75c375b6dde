//! A verdict's explanation without the sentences it opens with, one per check: the pages list
//! each check with its figures, so the evidence is said once.

use crate::verdicts::check_sentence;
use concbench_core::Verdict;

/// The explanation of `v` less each check's sentence, as the analysis wrote it
/// ([`check_sentence`], the one function that writes them and finds them).
pub fn prose(v: &Verdict) -> String {
    let mut text = v.explanation.clone();
    for c in &v.checks {
        text = text.replacen(&check_sentence(c), "", 1);
    }
    text.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::check;
    use concbench_core::{AtMargin, VerdictKind};

    #[test]
    fn the_checks_sentences_leave_the_explanation_and_its_own_words_stay() {
        let mut c = check("same CPU", "p / t >= 1.15", 1.2, VerdictKind::Confirmed);
        c.at_margin = Some(AtMargin {
            margin: 1.15,
            distance: 0.05,
            half_width: 0.12,
        });
        c.note = "at the margin: the estimate is 0.05 from 1.15".into();
        let v = Verdict {
            claim: "a claim".into(),
            source: "S2.switch_order".into(),
            verdict: VerdictKind::Confirmed,
            evidence: Vec::new(),
            explanation: format!("{} A process switch costs more.", check_sentence(&c)),
            checks: vec![c],
            rounds: Some(6),
            robustness: Some(1.0),
            unmeasured: Vec::new(),
            judged: Default::default(),
            full_run: Vec::new(),
        };
        assert_eq!(prose(&v), "A process switch costs more.");
    }
}
