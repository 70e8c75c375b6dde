//! Which stored runs may be pooled with a run to judge its claims over the host's history.
//!
//! A stored run is compatible with this one when it measured the same machine, with the same
//! build, in the same mode class, and finished. Each exclusion has its reason, because the
//! pooled verdict's run count is only meaningful when a reader knows what was left out:
//!
//! * **Another machine** (the hashed machine id; the host name and CPU model for documents
//!   without one): pooling two machines would make the "run level" a machine level.
//! * **Another build** (`tool.version`, and `tool.build`, the executable's hash, since the
//!   version is the same for every commit between releases): experiments and their parameters
//!   belong to the build; a result is matched to its like by id *and* params, so a renamed or
//!   re-parameterised variant never pools with the old one, but a changed operation under the
//!   same name would.
//! * **Another mode class**: quick, full or smoke (different sizes, samples per round and caps),
//!   held awake or not (`--hold-awake` removes the halted-CPU mode that decides wake-up costs),
//!   and the pinning policy.
//! * **Another CPU limit**: a run under a CPU quota or a cpuset (`run --cpus`, a container's
//!   limit, `taskset`) measured a smaller machine than one without (`Host::cpu_limit`).
//! * **Incomplete**: a run stopped by Ctrl-C measured what it reached, in an order cut short.
//!
//! Within compatible runs, a result is pooled only with results of its id and params that hold
//! the same quantity ([`one_quantity`]): a build that reported a difference in one run and the
//! raw figure in the next (before the quantity was fixed) must not set the two side by side.

use concbench_core::{Quantity, ResultDoc};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

/// Why a stored run is not pooled with this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exclusion {
    OtherMachine,
    OtherBuild(String),
    OtherMode(String),
    /// Another CPU limit: the other run's (`None`: it had none).
    OtherCpuLimit(Option<String>),
    Incomplete,
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exclusion::OtherMachine => write!(f, "another machine"),
            Exclusion::OtherBuild(v) => write!(f, "another build (concbench {v})"),
            Exclusion::OtherMode(m) => write!(f, "another mode class ({m})"),
            Exclusion::OtherCpuLimit(Some(l)) => write!(f, "another CPU limit ({l})"),
            Exclusion::OtherCpuLimit(None) => write!(f, "another CPU limit (none)"),
            Exclusion::Incomplete => write!(f, "interrupted"),
        }
    }
}

/// Whether `other` may be pooled with `this`; the first reason it may not otherwise.
pub fn compatible(this: &ResultDoc, other: &ResultDoc) -> Result<(), Exclusion> {
    if !same_machine(this, other) {
        return Err(Exclusion::OtherMachine);
    }
    if other.tool.version != this.tool.version || other.tool.build != this.tool.build {
        return Err(Exclusion::OtherBuild(build_label(other)));
    }
    let (mine, theirs) = (mode_class(this), mode_class(other));
    if mine != theirs {
        return Err(Exclusion::OtherMode(theirs));
    }
    if this.host.cpu_limit() != other.host.cpu_limit() {
        return Err(Exclusion::OtherCpuLimit(other.host.cpu_limit()));
    }
    if other.interrupted {
        return Err(Exclusion::Incomplete);
    }
    Ok(())
}

/// "0.1.0, build 1a2b3c4d…" (the version alone for a document without a build id).
fn build_label(doc: &ResultDoc) -> String {
    match &doc.tool.build {
        Some(b) => format!("{}, build {}", doc.tool.version, b.get(..8).unwrap_or(b)),
        None => format!("{}, no build id", doc.tool.version),
    }
}

/// One machine, by the one rule ([`concbench_core::MachineIdentity::same_as`]).
fn same_machine(a: &ResultDoc, b: &ResultDoc) -> bool {
    a.host.identity().same_as(&b.host.identity())
}

/// "quick", "full", "smoke", with ", held awake" and ", pin=none" when they apply: what a run's
/// figures depend on beyond the machine and the build.
pub fn mode_class(doc: &ResultDoc) -> String {
    let mut class = doc.mode().as_str().to_string();
    let held = doc
        .settings
        .get(concbench_core::HOLD_AWAKE_SETTING)
        .and_then(|h| h.get("held"))
        .and_then(|v| v.as_bool())
        == Some(true);
    if held {
        class.push_str(", held awake");
    }
    match doc.settings.get("pin").and_then(|v| v.as_str()) {
        Some(pin) if pin != "auto" => class.push_str(&format!(", pin={pin}")),
        _ => {}
    }
    class
}

/// The runs (newest first) with every result left out that holds another quantity than the
/// newest run with its id and params holds, and what was left out ("switch.pipe.process
/// working_set_kib=4096: another quantity in 2 runs (the figure as measured, where the newest
/// run holds the difference from a subtracted baseline), not pooled").
pub fn one_quantity<'a>(runs: &[&'a ResultDoc]) -> (Vec<Cow<'a, ResultDoc>>, Vec<String>) {
    let mut first: BTreeMap<(String, String), Quantity> = BTreeMap::new();
    let mut refused: BTreeMap<(String, String), (Quantity, Quantity, usize)> = BTreeMap::new();
    let mut out = Vec::new();
    for doc in runs {
        let mut keep: Vec<bool> = Vec::with_capacity(doc.results.len());
        for e in &doc.results {
            let key = (e.id.clone(), e.params.compact());
            let reference = *first.entry(key.clone()).or_insert(e.quantity());
            let same = reference == e.quantity();
            if !same {
                refused.entry(key).or_insert((reference, e.quantity(), 0)).2 += 1;
            }
            keep.push(same);
        }
        if keep.iter().all(|k| *k) {
            out.push(Cow::Borrowed(*doc));
        } else {
            let mut cleaned = (*doc).clone();
            let mut flags = keep.into_iter();
            cleaned.results.retain(|_| flags.next().unwrap_or(true));
            out.push(Cow::Owned(cleaned));
        }
    }
    let notes = refused
        .into_iter()
        .map(|((id, params), (reference, other, n))| {
            let label = if params.is_empty() {
                id
            } else {
                format!("{id} {params}")
            };
            format!(
                "{label}: another quantity in {n} run{} ({}, where the newest run holds {}), \
                 not pooled",
                if n == 1 { "" } else { "s" },
                other.describe(),
                reference.describe()
            )
        })
        .collect();
    (out, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(machine: &str, quick: bool) -> ResultDoc {
        let mut d = crate::synthetic::doc(vec![]);
        d.host.machine_id = Some(machine.into());
        d.settings.insert("quick".into(), json!(quick));
        d.settings.insert("pin".into(), json!("auto"));
        d
    }

    #[test]
    fn a_run_of_the_same_machine_build_and_mode_is_compatible() {
        assert_eq!(compatible(&run("m1", true), &run("m1", true)), Ok(()));
    }

    #[test]
    fn another_machine_is_excluded() {
        assert_eq!(
            compatible(&run("m1", true), &run("m2", true)),
            Err(Exclusion::OtherMachine)
        );
        // Without machine ids, the host name and CPU model decide.
        let (mut a, mut b) = (run("m1", true), run("m1", true));
        a.host.machine_id = None;
        b.host.machine_id = None;
        b.host.hostname = "other".into();
        assert_eq!(compatible(&a, &b), Err(Exclusion::OtherMachine));
    }

    #[test]
    fn another_build_is_excluded() {
        let mut b = run("m1", true);
        b.tool.version = "0.0.9".into();
        assert_eq!(
            compatible(&run("m1", true), &b),
            Err(Exclusion::OtherBuild("0.0.9, no build id".into()))
        );
    }

    /// Regression: every commit between two releases is "0.1.0", so a build whose experiment
    /// changed was pooled with the one before it, and `compare` counted their difference as
    /// run-to-run variation.
    #[test]
    fn another_build_of_the_same_version_is_excluded() {
        let mut a = run("m1", true);
        a.tool.build = Some("1111222233334444".into());
        let mut b = a.clone();
        assert_eq!(compatible(&a, &b), Ok(()));
        b.tool.build = Some("aaaabbbbccccdddd".into());
        let excluded = compatible(&a, &b).unwrap_err();
        assert_eq!(
            excluded.to_string(),
            format!(
                "another build (concbench {}, build aaaabbbb)",
                env!("CARGO_PKG_VERSION")
            )
        );
        b.tool.build = None;
        assert!(
            compatible(&a, &b).is_err(),
            "a document without a build id is another build"
        );
    }

    #[test]
    fn another_mode_class_is_excluded() {
        assert_eq!(
            compatible(&run("m1", true), &run("m1", false)),
            Err(Exclusion::OtherMode("full".into()))
        );
        let mut held = run("m1", true);
        held.settings.insert(
            concbench_core::HOLD_AWAKE_SETTING.into(),
            json!({"held": true, "note": "x"}),
        );
        assert_eq!(
            compatible(&run("m1", true), &held),
            Err(Exclusion::OtherMode("quick, held awake".into()))
        );
        let mut unpinned = run("m1", true);
        unpinned.settings.insert("pin".into(), json!("none"));
        assert!(matches!(
            compatible(&run("m1", true), &unpinned),
            Err(Exclusion::OtherMode(_))
        ));
        let mut smoke = run("m1", true);
        smoke.settings.insert("smoke".into(), json!(true));
        assert_eq!(mode_class(&smoke), "smoke");
    }

    #[test]
    fn a_result_holding_another_quantity_is_not_pooled() {
        use concbench_core::Overhead;
        let entry = |distinguishable: bool| {
            let mut e = crate::synthetic::entry("switch.pipe.process", &[2.0; 6]);
            e.overhead = Some(Overhead {
                method: "warm read".into(),
                median: 38.0,
                raw_median: 40.0,
                samples: vec![],
                distinguishable,
                difference: Some(2.0),
                difference_ci95: None,
            });
            e
        };
        let this = crate::synthetic::doc(vec![entry(true)]);
        // A document from before the quantity was fixed: the raw figure when not distinguishable.
        let old = crate::synthetic::doc(vec![entry(false), crate::synthetic::entry("t.x", &[1.0])]);
        let (runs, notes) = one_quantity(&[&this, &old, &this]);
        assert_eq!(
            runs[1].results.len(),
            1,
            "the raw figure is left out, the rest kept"
        );
        assert_eq!(runs[1].results[0].id, "t.x");
        assert!(matches!(runs[2], Cow::Borrowed(_)));
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0],
            "switch.pipe.process placement=same-cpu: another quantity in 1 run (the figure as \
             measured, where the newest run holds the difference from a subtracted baseline), not \
             pooled"
        );
    }

    #[test]
    fn a_run_under_another_cpu_limit_is_another_machine_for_pooling() {
        let mut plain = run("m1", true);
        plain.host.logical_cpus = 2;
        plain.host.cpus_allowed = vec![0, 1];
        let mut quota = plain.clone();
        quota.host.cpu_quota = Some(1.0);
        assert_eq!(
            compatible(&plain, &quota),
            Err(Exclusion::OtherCpuLimit(Some(
                "a quota of 1.00 CPUs".into()
            )))
        );
        let mut cpuset = plain.clone();
        cpuset.host.cpus_allowed = vec![1];
        assert_eq!(
            compatible(&quota, &cpuset).unwrap_err().to_string(),
            "another CPU limit (1 of 2 CPUs allowed)"
        );
        assert_eq!(
            compatible(&quota, &plain).unwrap_err().to_string(),
            "another CPU limit (none)"
        );
        // A quota as large as the machine limits nothing.
        let mut whole = plain.clone();
        whole.host.cpu_quota = Some(2.0);
        assert_eq!(compatible(&plain, &whole), Ok(()));
        assert_eq!(compatible(&quota, &quota.clone()), Ok(()));
    }

    #[test]
    fn an_interrupted_run_is_excluded() {
        let mut b = run("m1", true);
        b.interrupted = true;
        assert_eq!(compatible(&run("m1", true), &b), Err(Exclusion::Incomplete));
    }
}
