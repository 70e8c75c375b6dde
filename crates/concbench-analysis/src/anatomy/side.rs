//! Around the hand-over: what a preemption costs the victim it interrupts, what fork costs per
//! MiB of parent, and what the scheduler and the CPU counted. Pure functions of the document.

use super::{difference_interval, passes};
use concbench_core::vocab::id;
use concbench_core::{ResultDoc, ResultEntry};
use serde::Serialize;
use serde_json::json;

/// One `anatomy.victim` result, per switch, beside the direct switch cost.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VictimRow {
    pub partner: String,
    pub working_set_kib: f64,
    pub period_us: f64,
    /// Preemptions (partner wake-ups) per pass of the victim's kernel.
    pub preemptions_per_pass: f64,
    /// The victim's extra time per switch: its slowdown per pass / (2 x preemptions per pass),
    /// a preemption being a switch out and a switch back.
    pub per_switch_ns: f64,
    pub interval: Option<(f64, f64)>,
    /// The same-CPU pipe switch of the same kind of partner (`switch.pipe.thread|process`).
    pub direct_switch_ns: Option<f64>,
}

/// The switches a preemption makes: out of the victim and back.
const SWITCHES_PER_PREEMPTION: f64 = 2.0;

pub fn victim_rows(doc: &ResultDoc) -> Vec<VictimRow> {
    doc.find(id::ANATOMY_VICTIM)
        .filter_map(|r| {
            let preemptions = *r.counters.get("preemptions_per_op")?;
            let switches = preemptions * SWITCHES_PER_PREEMPTION;
            if switches <= 0.0 {
                return None;
            }
            let partner = r.params.get_str("partner")?.to_string();
            let direct = super::find(
                doc,
                &format!("switch.pipe.{partner}"),
                &super::plain_same_cpu(0.0),
            )
            .map(|d| d.summary.median);
            Some(VictimRow {
                working_set_kib: r.params.get_f64("working_set_kib").unwrap_or(0.0),
                period_us: r.params.get_f64("period_us").unwrap_or(0.0),
                preemptions_per_pass: preemptions,
                per_switch_ns: r.summary.median / switches,
                interval: r.interval().map(|(lo, hi)| (lo / switches, hi / switches)),
                direct_switch_ns: direct,
                partner,
            })
        })
        .collect()
}

/// (parent MiB, median ns, its 95% interval).
pub type SizePoint = (f64, f64, Option<(f64, f64)>);

/// One creation method from parents of growing size (one THP setting, one thread).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ForkCurve {
    pub id: String,
    pub thp: String,
    /// By size.
    pub points: Vec<SizePoint>,
    /// Cost per MiB of parent between the smallest and the largest parent, with its interval;
    /// an interval including zero means the cost does not depend on the parent's size here.
    pub ns_per_mib: Option<(f64, Option<(f64, f64)>)>,
    /// MiB of the largest parent the kernel backed with huge pages.
    pub largest_huge_mib: Option<f64>,
}

impl ForkCurve {
    /// Whether the cost grows with the parent (the per-MiB interval excludes zero).
    pub fn depends_on_size(&self) -> Option<bool> {
        let (_, interval) = self.ns_per_mib?;
        interval.map(|(lo, hi)| lo > 0.0 || hi < 0.0)
    }
}

const CREATIONS: [&str; 3] = [id::ANATOMY_FORK, id::ANATOMY_VFORK, id::ANATOMY_POSIX_SPAWN];

pub fn fork_curves(doc: &ResultDoc) -> Vec<ForkCurve> {
    let mut out = Vec::new();
    for id in CREATIONS {
        for thp in ["off", "on"] {
            let mut rs: Vec<&ResultEntry> = doc
                .find(id)
                .filter(|r| r.params.get_str("thp") == Some(thp))
                .filter(|r| r.params.get("parent_threads") == Some(&json!(1)))
                .collect();
            if rs.is_empty() {
                continue;
            }
            let mib = |r: &ResultEntry| r.params.get_f64("parent_mib").unwrap_or(0.0);
            rs.sort_by(|a, b| mib(a).total_cmp(&mib(b)));
            let (small, large) = (rs[0], rs[rs.len() - 1]);
            let span = mib(large) - mib(small);
            let ns_per_mib = (span > 0.0).then(|| {
                (
                    (large.summary.median - small.summary.median) / span,
                    difference_interval(Some(&passes(small)), &passes(large))
                        .map(|(lo, hi)| (lo / span, hi / span)),
                )
            });
            out.push(ForkCurve {
                id: id.to_string(),
                thp: thp.to_string(),
                points: rs
                    .iter()
                    .map(|r| (mib(r), r.summary.median, r.interval()))
                    .collect(),
                ns_per_mib,
                largest_huge_mib: large.counters.get("anon_huge_mib").copied(),
            });
        }
    }
    out
}

/// Fork from a parent with many threads against the same parent with one.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ThreadedFork {
    pub threads: f64,
    pub median: f64,
    pub single_median: Option<f64>,
    pub extra_interval: Option<(f64, f64)>,
}

pub fn threaded_forks(doc: &ResultDoc) -> Vec<ThreadedFork> {
    let single = super::find(
        doc,
        id::ANATOMY_FORK,
        &[
            ("parent_mib", json!(1)),
            ("thp", json!("off")),
            ("parent_threads", json!(1)),
        ],
    );
    doc.find(id::ANATOMY_FORK)
        .filter(|r| r.params.get_f64("parent_threads").is_some_and(|t| t > 1.0))
        .map(|r| ThreadedFork {
            threads: r.params.get_f64("parent_threads").unwrap_or(0.0),
            median: r.summary.median,
            single_median: single.map(|s| s.summary.median),
            extra_interval: single.and_then(|s| difference_interval(Some(&passes(s)), &passes(r))),
        })
        .collect()
}

/// What the kernel and the CPU counted for one `anatomy.handover` result.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EvidenceRow {
    /// "process same-cpu", "thread cross-cpu same-llc".
    pub label: String,
    /// (metric, value per operation or ns), in a fixed order; absent metrics are left out.
    pub figures: Vec<(String, f64)>,
}

const EVIDENCE_METRICS: [&str; 11] = [
    "sched_switches_per_op",
    "sched_wakeups_per_op",
    "wakeup_p50_ns",
    "wakeup_p90_ns",
    "wakeup_p99_ns",
    "wakeup_max_ns",
    "cycles_per_op",
    "instructions_per_op",
    "llc_misses_per_op",
    "dtlb_misses_per_op",
    "itlb_misses_per_op",
];

pub fn evidence_rows(doc: &ResultDoc) -> Vec<EvidenceRow> {
    doc.find(id::ANATOMY_HANDOVER)
        .map(|r| {
            let p = &r.params;
            let label = [
                p.get_str("partner"),
                p.get_str("placement"),
                p.get_str("pair_class"),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
            EvidenceRow {
                label,
                figures: EVIDENCE_METRICS
                    .iter()
                    .filter_map(|m| Some((m.to_string(), *r.counters.get(*m)?)))
                    .collect(),
            }
        })
        .collect()
}

/// Each distinct reason some evidence is missing, once: from the results' `info` and from a
/// skipped `anatomy.handover`.
pub fn unavailable(doc: &ResultDoc) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |why: &str| {
        if !out.iter().any(|o| o == why) {
            out.push(why.to_string());
        }
    };
    for r in doc.find(id::ANATOMY_HANDOVER) {
        for key in ["hw_counters", "sched_tracepoints"] {
            if let Some(why) = r.info.get(key).filter(|v| *v != "measured") {
                add(why);
            }
        }
    }
    for s in doc.skipped.iter().filter(|s| s.id == id::ANATOMY_HANDOVER) {
        for why in s.reason.split("; ") {
            add(why);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{doc, entry_with};
    use concbench_core::{Params, Skipped};

    /// Six rounds spread +-2% around `v`; `shuffled` puts the spread in another order, so two
    /// results' noise is not the same pass by pass.
    fn around(v: f64, shuffled: bool) -> Vec<f64> {
        let f = if shuffled {
            [1.02, 0.98, 1.0, 1.01, 1.0, 0.99]
        } else {
            [0.98, 1.0, 1.02, 0.99, 1.01, 1.0]
        };
        f.iter().map(|f| v * f).collect()
    }

    fn creation(id: &str, mib: u64, thp: &str, threads: u64, ns: f64) -> ResultEntry {
        let params = Params::new()
            .with("parent_mib", mib)
            .with("thp", thp)
            .with("parent_threads", threads)
            .with("placement", "same-cpu");
        entry_with(id, "ns", params, &around(ns, mib > 1))
    }

    #[test]
    fn fork_grows_with_the_parent_and_vfork_does_not() {
        let d = doc(vec![
            creation("anatomy.fork", 1, "off", 1, 100_000.0),
            creation("anatomy.fork", 1024, "off", 1, 5_220_000.0),
            creation("anatomy.vfork", 1, "off", 1, 30_000.0),
            creation("anatomy.vfork", 1024, "off", 1, 30_100.0),
            creation("anatomy.fork", 1, "off", 64, 160_000.0),
        ]);
        let curves = fork_curves(&d);
        assert_eq!(curves.len(), 2);
        let (per_mib, _) = curves[0].ns_per_mib.unwrap();
        assert_eq!(per_mib.round(), 5005.0);
        assert_eq!(curves[0].depends_on_size(), Some(true));
        assert_eq!(curves[1].depends_on_size(), Some(false));
        let threaded = threaded_forks(&d);
        assert_eq!(threaded.len(), 1);
        assert_eq!(threaded[0].single_median, Some(100_000.0));
    }

    #[test]
    fn victim_slowdown_is_per_switch_beside_the_direct_cost() {
        let params = Params::new()
            .with("partner", "process")
            .with("working_set_kib", 4096)
            .with("period_us", 50)
            .with("placement", "same-cpu");
        let mut victim = entry_with("anatomy.victim", "ns", params, &around(1000.0, false));
        victim.counters.insert("preemptions_per_op".into(), 0.1);
        let direct = entry_with(
            "switch.pipe.process",
            "ns",
            Params::new()
                .with("placement", "same-cpu")
                .with("sched", "other")
                .with("working_set_kib", 0),
            &around(2800.0, false),
        );
        let rows = victim_rows(&doc(vec![victim, direct]));
        assert_eq!(rows.len(), 1);
        // 1000 ns per pass over 0.2 switches per pass.
        assert_eq!(rows[0].per_switch_ns.round(), 5000.0);
        assert_eq!(rows[0].direct_switch_ns, Some(2800.0));
    }

    #[test]
    fn missing_evidence_is_said_once() {
        let mut a = entry_with(
            "anatomy.handover",
            "ns",
            Params::new(),
            &around(3000.0, false),
        );
        a.info.insert(
            "hw_counters".into(),
            "hardware counters: unavailable (no PMU)".into(),
        );
        a.info.insert("sched_tracepoints".into(), "measured".into());
        a.counters.insert("sched_switches_per_op".into(), 1.0);
        let b = a.clone();
        let mut d = doc(vec![a, b]);
        d.skipped.push(Skipped {
            id: "anatomy.handover".into(),
            params: Params::new(),
            reason: "hardware counters: unavailable (no PMU); scheduler tracepoints: tracefs \
                     is not mounted"
                .into(),
        });
        assert_eq!(
            unavailable(&d),
            [
                "hardware counters: unavailable (no PMU)",
                "scheduler tracepoints: tracefs is not mounted"
            ]
        );
        let rows = evidence_rows(&d);
        assert_eq!(
            rows[0].figures,
            [("sched_switches_per_op".to_string(), 1.0)]
        );
    }
}
