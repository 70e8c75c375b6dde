//! Verdicts on the seed articles' claims, from this run's results.
//!
//! One file per claim. A judge returns `None` when the run lacks its evidence (the family was not
//! run, or was skipped); otherwise a [`Verdict`] citing the result ids it used and explaining the
//! figures. Claim texts come from `data/published.toml` so the wording lives in one place.
//!
//! The S0.table row "programming and debugging" gets no verdict, deliberately: how hard code is
//! to write and debug is not a property of the machine, and no measurement here bears on it. A
//! "depends" would read as if something had been measured; the report can show the row as not
//! measurable instead.

mod alternate;
mod create_switch;
mod distribution;
mod evidence;
#[cfg(test)]
mod fixtures;
mod io_one_thread;
mod memory_cpu;
mod print;
mod process_vs_thread;
mod reliability;
mod server_blocking;
mod server_memory;
mod sharing;
mod stevens_order;
mod switch_cost;
mod switch_order;

pub use evidence::{compare, find, Comparison, MIN_SAMPLES};

use crate::published::{published, Published};
use concbench_core::{ResultDoc, Verdict, VerdictKind};

/// A judge: the claim id it rules on and the function that rules.
type Judge = fn(&ResultDoc, &Published) -> Option<Verdict>;

/// Every judge, in the order verdicts are reported.
const JUDGES: &[Judge] = &[
    process_vs_thread::thirty_times,
    process_vs_thread::create_100k,
    create_switch::create_destroy_switch,
    alternate::alternate,
    switch_order::switch_order,
    switch_cost::switch_cost,
    io_one_thread::one_thread,
    server_blocking::coroutine_vs_event_loop,
    server_memory::memory_per_connection,
    stevens_order::design_order,
    memory_cpu::memory_cpu,
    sharing::sharing,
    reliability::reliability,
    distribution::distribution,
    print::print_workload,
];

/// All verdicts the results support.
pub fn judge(doc: &ResultDoc) -> Vec<Verdict> {
    let published = published();
    JUDGES.iter().filter_map(|j| j(doc, &published)).collect()
}

/// Build a verdict for claim `claim_id` (its text and seed come from the published data).
pub(crate) fn verdict(
    published: &Published,
    claim_id: &str,
    verdict: VerdictKind,
    mut evidence: Vec<String>,
    explanation: String,
) -> Option<Verdict> {
    let claim = published.claims.iter().find(|c| c.id == claim_id)?;
    // Several variants of one id often back a verdict: cite each id once, in first-use order.
    let mut seen = std::collections::HashSet::new();
    evidence.retain(|id| seen.insert(id.clone()));
    Some(Verdict {
        claim: claim.text.clone(),
        source: claim.id.clone(),
        verdict,
        evidence,
        explanation,
    })
}

/// How a measured ratio interval relates to a claimed factor: "about R" is read as within a
/// factor of 1.5 either side (published figures come from machines a decade or more older).
pub(crate) fn about(ratio_ci: (f64, f64), claimed: f64) -> bool {
    ratio_ci.1 >= claimed / 1.5 && ratio_ci.0 <= claimed * 1.5
}
