//! Verdicts on the seed articles' claims, from a run's results, by rules written as data.
//!
//! Every claim in `data/published.toml` carries its checks: a quantity over named results
//! ([`expr`]), a rule with its numbers ([`decide`]), the conditions it is checked under
//! ([`spec`]). A check is computed pass by pass over the rounds of its results ([`series`]), its
//! 95% interval decides it, the claim combines its checks (`evaluate`), and resampling its
//! rounds says how robust the verdict is (`robustness`). Four outcomes: confirmed, refuted,
//! depends (decided differently under different conditions), inconclusive (an interval straddles
//! the rule's number at the rounds spent) — never "refuted" for lack of precision.
//!
//! Over a host's history ([`pool`]), each check is also judged on this run and the compatible
//! stored runs ([`compatible()`]), the run as the top level of the model.
//!
//! The S0.table row "programming and debugging" carries no checks, deliberately: how hard code
//! is to write and debug is not a property of the machine.

mod bounds;
pub mod compatible;
mod context;
pub mod decide;
pub mod drift;
mod evaluate;
pub mod expr;
mod margin;
mod multiplicity;
mod pooled;
mod robustness;
pub mod separation;
pub mod series;
pub mod spec;

pub use compatible::{compatible, mode_class, Exclusion};
pub use decide::{Combine, Rule};
pub use evaluate::{check_sentence, Judged};
pub use pooled::{label_over_history, over_history, pool};
pub use spec::{ArticleFigures, CheckSpec, Selector, SelectorSpec};

use crate::published::{shared, Published};
use concbench_core::{Params, ResultDoc, ResultEntry, Verdict};
use serde_json::Value;

/// The first result with `id` whose params contain every `(key, value)` given.
pub fn find<'a>(doc: &'a ResultDoc, id: &str, params: &[(&str, Value)]) -> Option<&'a ResultEntry> {
    doc.results
        .iter()
        .find(|e| e.id == id && params.iter().all(|(k, v)| e.params.get(k) == Some(v)))
}

/// All verdicts the results support, in the published file's order.
pub fn judge(doc: &ResultDoc) -> Vec<Verdict> {
    judge_all(doc, shared())
        .into_iter()
        .map(|j| j.verdict)
        .collect()
}

/// Every claim judged, with the results that fed its undecided checks.
pub fn judge_all<'a>(doc: &'a ResultDoc, published: &'a Published) -> Vec<Judged<'a>> {
    published
        .claims
        .iter()
        .filter_map(|claim| {
            let mut judged = evaluate::judge_claim(doc, claim)?;
            if let Some(more) = context::context(doc, &judged.verdict, published) {
                judged.verdict.explanation.push(' ');
                judged.verdict.explanation.push_str(&more);
            }
            Some(judged)
        })
        .collect()
}

/// For each check of each claim (in file order), which of `variants` (id and recorded params)
/// it may use: the run measures those together, interleaved, and gives them more rounds.
pub fn check_variants(published: &Published, variants: &[(&str, &Params)]) -> Vec<Vec<usize>> {
    published
        .claims
        .iter()
        .flat_map(|c| c.checks.iter())
        .map(|check| {
            variants
                .iter()
                .enumerate()
                .filter(|(_, (id, params))| check_uses(check, id, params))
                .map(|(i, _)| i)
                .collect()
        })
        .collect()
}

/// Whether a check may use the variant `id` with these recorded params.
pub fn check_uses(check: &CheckSpec, id: &str, params: &Params) -> bool {
    let entry = crate::entry::blank(id, "ns", params.clone());
    check.selectors().any(|s| series::selects(s, &entry, &[]))
}

/// Of `v`'s unmeasured deciding checks (and facets measured only by concbench's stand-in),
/// those a full run measures that this run's mode cannot: a check of the claim (the article's
/// own program or system, for a facet) uses a variant of `variants` — every registered variant,
/// with its recorded params and whether `--quick` runs it — that only a full run runs. As
/// `Verdict::unmeasured` names them, without the stand-in's mark.
pub fn full_run_adds(
    published: &Published,
    v: &Verdict,
    variants: &[(&str, &Params, bool)],
) -> Vec<String> {
    let Some(claim) = published.claims.iter().find(|c| c.id == v.source) else {
        return Vec::new();
    };
    let full_only = |spec: &CheckSpec| {
        variants
            .iter()
            .any(|(id, params, in_quick)| !in_quick && check_uses(spec, id, params))
    };
    let mut out = Vec::new();
    for u in &v.unmeasured {
        let text = u.trim_end_matches(evaluate::STOOD_IN).trim_end();
        let Some(spec) = claim
            .checks
            .iter()
            .find(|s| s.decides && evaluate::unmeasured_text(s) == text)
        else {
            continue;
        };
        let article: Vec<&CheckSpec> = match &spec.facet {
            Some(f) => claim
                .checks
                .iter()
                .filter(|s| s.facet.as_ref() == Some(f) && !s.stand_in)
                .collect(),
            None => vec![spec],
        };
        if article.into_iter().any(full_only) && !out.iter().any(|o| o == text) {
            out.push(text.to_string());
        }
    }
    out
}

/// Every `use` of every check whose selectors match none of `variants` (id and recorded
/// params), as "claim / condition / name": a renamed experiment or param would otherwise
/// silently drop a verdict.
pub fn unmatched_selectors(published: &Published, variants: &[(&str, &Params)]) -> Vec<String> {
    let mut out = Vec::new();
    for claim in &published.claims {
        for check in &claim.checks {
            for (name, spec) in &check.uses {
                let matched = variants.iter().any(|(id, params)| {
                    let entry = crate::entry::blank(id, "ns", (*params).clone());
                    spec.alternatives()
                        .iter()
                        .any(|s| series::selects(s, &entry, &[]))
                });
                if !matched {
                    out.push(format!("{} / {} / {name}", claim.id, check.condition));
                }
            }
        }
    }
    out
}
