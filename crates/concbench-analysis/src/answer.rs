//! The answer a run gives, computed once from its document and the published claims: what one
//! unit of each kind costs, the cheapest model per typical workload, each verdict as it is said
//! and the figures each of its checks is computed from, the anatomy of a hand-over, and what
//! the run's intervals rest on. The terminal, markdown and HTML renderers only format this
//! model; none of them calls back into the analysis.

mod fragile;
mod key;
mod label;
mod operands;
mod prose;

pub use fragile::{fragile, has_interval, FRAGILE};
pub use key::{depends_groups, key_checks, KeyChecks, Shown};
pub use label::{verdict_label, verdict_word};
pub use operands::{operands, Operand};
pub use prose::prose;

use crate::advice::{self, Advice, Kind, UnitCosts, Workload};
use crate::anatomy::{anatomy, Anatomy};
use crate::published::{self, replications, Published, Replication};
use concbench_core::{Check, ResultDoc, Verdict};

/// The whole answer of one document.
#[derive(Debug, Clone)]
pub struct Answer<'a> {
    /// The document answered.
    pub doc: &'a ResultDoc,
    /// The published claims and figures it is answered against.
    pub published: &'a Published,
    /// One row per kind of unit, measured or not.
    pub units: Vec<UnitCosts>,
    /// The kinds of unit this run measured nothing of: the advice and the unit table then hold
    /// "among what was measured", and name these.
    pub unmeasured: Vec<Kind>,
    /// The typical workloads, each with every model's bill.
    pub workloads: Vec<WorkloadAnswer>,
    /// The verdicts in the document's order.
    pub verdicts: Vec<VerdictAnswer<'a>>,
    /// The articles' published figures beside this machine's measurements.
    pub replications: Vec<Replication<'a>>,
    /// The anatomy of a hand-over, when the run asked for it (a result of family `anatomy`:
    /// `--only anatomy`) and it has anything to show; other runs may hold some of its layers,
    /// but their reports stay as they were.
    pub anatomy: Option<Anatomy>,
    /// The sentence a run whose intervals are its own alone says
    /// ([`crate::verdicts::drift::alone_sentence`]); `None` when a history widened them.
    pub intervals_alone: Option<String>,
}

/// One typical workload and its advice.
#[derive(Debug, Clone)]
pub struct WorkloadAnswer {
    /// "Throwaway tasks: 50,000 per second, ...".
    pub name: &'static str,
    pub workload: Workload,
    pub advice: Advice,
}

/// A verdict as said, with the figures behind each check.
#[derive(Debug, Clone)]
pub struct VerdictAnswer<'a> {
    pub verdict: &'a Verdict,
    /// Its word as the rows say it ([`verdict_label`]).
    pub label: String,
    /// Its explanation without the check sentences it opens with ([`prose`]).
    pub prose: String,
    /// Its robustness when that is worth saying beside the word ([`fragile`]).
    pub fragile: Option<f64>,
    /// The checks its line stands on, and its key figure ([`key_checks`]).
    pub key: KeyChecks<'a>,
    /// Each check in the verdict's order, with what its quantity is computed from.
    pub checks: Vec<CheckAnswer<'a>>,
}

/// One check and the measured figures its quantity is computed from.
#[derive(Debug, Clone)]
pub struct CheckAnswer<'a> {
    pub check: &'a Check,
    /// Every name of the quantity with its result's figure; empty for a check whose spec is no
    /// longer in the published claims (an older document).
    pub operands: Vec<Operand>,
    /// The quantity computed from the operands' medians: a ratio of medians, where the check's
    /// estimate is the median of the per-round ratios (the two agree within the interval).
    pub from_operands: Option<f64>,
}

impl<'a> Answer<'a> {
    /// The answer of `doc`, judged against the shipped published claims.
    pub fn of(doc: &'a ResultDoc) -> Self {
        Self::with(doc, published::shared())
    }

    /// The answer of `doc` against `published`.
    pub fn with(doc: &'a ResultDoc, published: &'a Published) -> Self {
        let units = advice::unit_costs(doc);
        let unmeasured = units
            .iter()
            .filter(|u| !measured_any(u))
            .map(|u| u.kind)
            .collect();
        let workloads = advice::typical_workloads()
            .into_iter()
            .map(|(name, workload)| WorkloadAnswer {
                name,
                workload,
                advice: advice::advise(doc, workload),
            })
            .collect();
        let verdicts = doc
            .verdicts
            .iter()
            .map(|v| VerdictAnswer {
                verdict: v,
                label: verdict_label(v),
                prose: prose(v),
                fragile: fragile(v),
                key: key_checks(v),
                checks: v
                    .checks
                    .iter()
                    .map(|c| {
                        let (operands, from_operands) = operands(doc, published, v, c);
                        CheckAnswer {
                            check: c,
                            operands,
                            from_operands,
                        }
                    })
                    .collect(),
            })
            .collect();
        Answer {
            doc,
            published,
            replications: replications(published, doc),
            units,
            unmeasured,
            workloads,
            verdicts,
            anatomy: anatomy_asked(doc),
            intervals_alone: crate::verdicts::drift::alone_sentence(doc),
        }
    }

    /// Whether anything in the unit table was measured.
    pub fn any_unit_cost(&self) -> bool {
        self.unmeasured.len() < self.units.len()
    }

    /// "among what was measured (not measured: coroutine, async task)", or `None` when every
    /// kind was measured or none was.
    pub fn among_measured(&self) -> Option<String> {
        if self.unmeasured.is_empty() || !self.any_unit_cost() {
            return None;
        }
        let names: Vec<&str> = self.unmeasured.iter().map(|k| k.name()).collect();
        Some(format!(
            "among what was measured (not measured: {})",
            names.join(", ")
        ))
    }

    /// The verdict of a claim, as answered.
    pub fn verdict(&self, source: &str) -> Option<&VerdictAnswer<'a>> {
        self.verdicts.iter().find(|v| v.verdict.source == source)
    }
}

/// The anatomy when the run asked for it and it shows anything ([`Answer::anatomy`]).
fn anatomy_asked(doc: &ResultDoc) -> Option<Anatomy> {
    doc.results
        .iter()
        .any(|r| r.family == "anatomy")
        .then(|| anatomy(doc))
        .filter(|a| !a.is_empty())
}

/// Whether any cost of the unit was measured.
fn measured_any(u: &UnitCosts) -> bool {
    u.create_ns.is_some()
        || u.handover_ns.is_some()
        || u.bare_switch_ns.is_some()
        || u.memory_kib.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{doc, entry_with};
    use concbench_core::Params;

    #[test]
    fn a_run_without_coroutines_answers_among_what_was_measured() {
        let d = doc(vec![
            entry_with("create.fork", "ns", Params::new(), &[150_000.0; 6]),
            entry_with("create.thread", "ns", Params::new(), &[30_000.0; 6]),
        ]);
        let a = Answer::of(&d);
        assert!(a.any_unit_cost());
        assert_eq!(a.unmeasured, [Kind::Coroutine, Kind::AsyncTask]);
        assert_eq!(
            a.among_measured().as_deref(),
            Some("among what was measured (not measured: coroutine, async task)")
        );
        // Nothing measured at all: no answer to qualify.
        let empty = doc(vec![]);
        assert_eq!(Answer::of(&empty).among_measured(), None);
    }
}
