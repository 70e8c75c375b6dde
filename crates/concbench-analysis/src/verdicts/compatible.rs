//! Which stored runs may be pooled with a run to judge its claims over the host's history.
//!
//! A stored run is compatible with this one when it measured the same machine, with the same
//! build, in the same mode class, and finished. Each exclusion has its reason, because the
//! pooled verdict's run count is only meaningful when a reader knows what was left out:
//!
//! * **Another machine** (the hashed machine id; the host name and CPU model for documents
//!   without one): pooling two machines would make the "run level" a machine level.
//! * **Another build** (`tool.version`): experiments and their parameters belong to the build;
//!   a result is matched to its like by id *and* params, so a renamed or re-parameterised
//!   variant never pools with the old one, but a changed operation under the same name would.
//! * **Another mode class**: quick, full or smoke (different sizes, samples per round and caps),
//!   held awake or not (`--hold-awake` removes the halted-CPU mode that decides wake-up costs),
//!   and the pinning policy.
//! * **Another CPU limit**: a run under a CPU quota or a cpuset (`run --cpus`, a container's
//!   limit, `taskset`) measured a smaller machine than one without (`Host::cpu_limit`).
//! * **Incomplete**: a run stopped by Ctrl-C measured what it reached, in an order cut short.

use concbench_core::ResultDoc;
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
    if other.tool.version != this.tool.version {
        return Err(Exclusion::OtherBuild(other.tool.version.clone()));
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

/// The machine id when both runs have one, else the host name and CPU model.
fn same_machine(a: &ResultDoc, b: &ResultDoc) -> bool {
    match (&a.host.machine_id, &b.host.machine_id) {
        (Some(x), Some(y)) => x == y,
        _ => a.host.hostname == b.host.hostname && a.host.cpu_model == b.host.cpu_model,
    }
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
            Err(Exclusion::OtherBuild("0.0.9".into()))
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
