//! The registry: every experiment variant, and selection by `--only`.

use anyhow::Result;
use concbench_core::{Experiment, UsageError};

/// A family's list of variants.
type Family = fn() -> Vec<Box<dyn Experiment>>;

/// Whether a variant of another family is an input of an opt-in family.
pub type IsInput = fn(&dyn Experiment) -> bool;

/// Every variant concbench knows, in run order: the syscall floor first, then each family.
/// Cross-CPU variants appear once per class of CPU pair the machine has (see `pairs.rs`).
pub fn all() -> Vec<Box<dyn Experiment>> {
    let families: [Family; 14] = [
        crate::syscall::all,
        crate::create::all,
        crate::switch::all,
        crate::contend::all,
        crate::io::all,
        crate::probes::all,
        crate::server::all,
        crate::workload::all,
        crate::memory::all,
        crate::limits::all,
        crate::isolation::all,
        crate::share::all,
        crate::anatomy::all,
        crate::reference::all,
    ];
    let pairs = crate::pairs::live_pairs();
    families
        .into_iter()
        .flat_map(|family| crate::pairs::per_pair(family, pairs))
        .collect()
}

/// Families that run only when `--only` names them (they take long, or repeat what the default
/// run measures), each with the variants of other families it is built from.
pub const OPT_IN: [(&str, IsInput); 2] = [
    (crate::anatomy::FAMILY, crate::anatomy::is_input),
    (crate::reference::FAMILY, crate::reference::is_input),
];

/// Whether `family` runs only when named by `--only`.
pub fn is_opt_in(family: &str) -> bool {
    OPT_IN.iter().any(|(f, _)| *f == family)
}

/// Experiments of a default family that run only when `--only` names their id exactly: seed S2's
/// servers driven by the article's ab. Each round starts its server and warms it to steady
/// state before ab runs (a JVM's tens of seconds), for a figure no verdict reads; in a default
/// run they took a full run's budget from the verdicts' rounds.
///
/// The crossover sweep (`server.crossover`) too: 48 points of several rounds each, a run of its
/// own (`concbench crossover`).
pub const OPT_IN_IDS: [&str; 3] = [
    crate::server::ab::KEEPALIVE_ID,
    crate::server::ab::BLOCKING_ID,
    crate::server::crossover::ID,
];

/// Whether a variant runs without `--only` naming it (see [`OPT_IN`], [`OPT_IN_IDS`]).
fn by_default(e: &dyn Experiment) -> bool {
    runs_by_default(e.meta().family, e.meta().id)
}

/// Whether the variants of `id` (in `family`) run without `--only` naming them: not in an opt-in
/// family, not an opt-in id.
pub fn runs_by_default(family: &str, id: &str) -> bool {
    !is_opt_in(family) && !OPT_IN_IDS.contains(&id)
}

/// Family names, in run order, without duplicates.
pub fn families() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for e in all() {
        if !out.contains(&e.meta().family) {
            out.push(e.meta().family);
        }
    }
    out
}

/// The variant at `index` of [`all`] (how a worker process finds what it was asked to measure).
pub fn at(index: usize) -> Option<Box<dyn Experiment>> {
    all().into_iter().nth(index)
}

/// The variants selected by `--only` (family names, full ids or id prefixes such as
/// `switch.pipe`), or all of them except the opt-in families when `only` is empty, each with its
/// index in [`all`]. Naming an opt-in family also selects the variants it is built from. An
/// unknown name is a usage error.
pub fn select(only: &[String]) -> Result<Vec<(usize, Box<dyn Experiment>)>> {
    let every: Vec<(usize, Box<dyn Experiment>)> = all().into_iter().enumerate().collect();
    if only.is_empty() {
        return Ok(every
            .into_iter()
            .filter(|(_, e)| by_default(e.as_ref()))
            .collect());
    }
    for name in only {
        let known = every.iter().any(|(_, e)| matches(e.as_ref(), name));
        if !known {
            return Err(UsageError::new(format!(
                "--only: unknown experiment or family '{name}'; families are {}, and \
                 `concbench list` shows every id",
                families().join(", ")
            ))
            .into());
        }
    }
    let inputs: Vec<IsInput> = OPT_IN
        .iter()
        .filter(|(family, _)| only.iter().any(|n| n == family))
        .map(|(_, input)| *input)
        .collect();
    Ok(every
        .into_iter()
        .filter(|(_, e)| {
            // An opt-in id is selected by its own name only, not by its family or a prefix.
            let id = e.meta().id;
            let named =
                |n: &String| matches(e.as_ref(), n) && (!OPT_IN_IDS.contains(&id) || id == n);
            only.iter().any(named) || inputs.iter().any(|f| f(e.as_ref()))
        })
        .collect())
}

fn matches(e: &dyn Experiment, name: &str) -> bool {
    let m = e.meta();
    name_selects(m.family, m.id, name)
}

/// Whether an `--only` name (a family, a full id, or an id prefix such as `switch.pipe`) selects
/// a variant of `family` with `id`: the one rule for `run` and for `compare`, which selects
/// among stored results.
pub fn name_selects(family: &str, id: &str, name: &str) -> bool {
    family == name || id == name || id.starts_with(&format!("{name}."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_well_formed_and_families_match() {
        for e in all() {
            let m = e.meta();
            assert!(
                m.id.starts_with(&format!("{}.", m.family)),
                "{} not in family {}",
                m.id,
                m.family
            );
            assert!(
                !m.unit.is_empty() && !m.op.is_empty() && !m.title.is_empty(),
                "{}",
                m.id
            );
            assert!(
                e.params().get("placement").is_none(),
                "{}: the harness sets placement",
                m.id
            );
        }
    }

    #[test]
    fn variants_of_one_id_differ_in_params() {
        // Placement is a param too (the harness records it), so it tells variants apart.
        let mut seen = std::collections::HashSet::new();
        for e in all() {
            // Placement is a param too (the harness records it), so include it.
            let params = concbench_measure::recorded_params(
                e.as_ref(),
                concbench_measure::PinMode::Auto,
                &[0, 1],
            );
            let key = format!("{} {}", e.meta().id, params.compact());
            assert!(seen.insert(key.clone()), "duplicate variant {key}");
        }
    }

    #[test]
    fn select_by_family_id_and_prefix() {
        assert!(select(&["create".into()])
            .unwrap()
            .iter()
            .all(|(_, e)| e.meta().family == "create"));
        let (i, e) = &select(&["create.fork".into()]).unwrap()[0];
        assert_eq!(at(*i).unwrap().meta().id, e.meta().id);
        assert_eq!(select(&["create.fork_exec".into()]).unwrap().len(), 1);
        let err = select(&["nope".into()]).err().unwrap();
        assert!(
            err.to_string().contains("anatomy"),
            "opt-in families are listed: {err}"
        );
        assert!(concbench_core::error::is_usage_error(&err));
        assert!(err.to_string().contains("--only"));
    }

    #[test]
    fn opt_in_families_run_only_when_named_and_bring_their_inputs() {
        let default = select(&[]).unwrap();
        assert!(default.iter().all(|(_, e)| e.meta().family != "anatomy"));
        assert!(default
            .iter()
            .any(|(_, e)| e.meta().id == "switch.pipe.process"));
        let anatomy = select(&["anatomy".into()]).unwrap();
        let ids: std::collections::BTreeSet<&str> =
            anatomy.iter().map(|(_, e)| e.meta().id).collect();
        for id in [
            "anatomy.transport",
            "anatomy.victim",
            "anatomy.fork",
            "anatomy.handover",
            "syscall.getppid",
            "switch.pipe.thread",
            "switch.pipe.process",
            "switch.futex.thread",
            "switch.wake.thread",
        ] {
            assert!(ids.contains(id), "{id} missing from --only anatomy");
        }
        // Only the inputs of the other families: no SCHED_FIFO, no other mechanism.
        assert!(!ids.contains("switch.eventfd.thread"));
        assert!(anatomy
            .iter()
            .all(|(_, e)| e.params().get_str("sched") != Some("fifo")));
        // Named by id, an opt-in variant runs alone.
        let one = select(&["anatomy.transport".into()]).unwrap();
        assert!(one.iter().all(|(_, e)| e.meta().id == "anatomy.transport"));
    }

    #[test]
    fn the_articles_servers_under_ab_run_only_when_named_by_id() {
        let ids = |only: &[&str]| -> std::collections::BTreeSet<&'static str> {
            let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
            select(&only)
                .unwrap()
                .iter()
                .map(|(_, e)| e.meta().id)
                .collect()
        };
        for opt_in in OPT_IN_IDS {
            assert!(!ids(&[]).contains(opt_in), "{opt_in} in a default run");
            assert!(!ids(&["server"]).contains(opt_in), "{opt_in} by its family");
            assert!(
                !ids(&["server.keepalive"]).contains(opt_in),
                "{opt_in} by a prefix"
            );
            assert_eq!(ids(&[opt_in]), [opt_in].into(), "named, it runs alone");
        }
        assert!(ids(&["server.keepalive"]).contains("server.keepalive"));
    }

    #[test]
    fn the_reference_family_runs_only_when_named_beside_the_fork_it_is_paired_with() {
        assert!(select(&[])
            .unwrap()
            .iter()
            .all(|(_, e)| e.meta().family != "reference"));
        let chosen = select(&["reference".into()]).unwrap();
        let labels: Vec<String> = chosen
            .iter()
            .map(|(_, e)| format!("{} {}", e.meta().id, e.params().compact()))
            .collect();
        assert_eq!(
            labels,
            [
                "create.fork parent=single-threaded",
                "reference.fork_c parent=single-threaded"
            ],
            "{labels:?}"
        );
    }
}
