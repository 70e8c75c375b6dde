//! The registry: every experiment variant, and selection by `--only`.

use anyhow::Result;
use concbench_core::{Experiment, UsageError};

/// Every variant concbench knows, in run order: the syscall floor first, then each family.
pub fn all() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    v.extend(crate::syscall::all());
    v.extend(crate::create::all());
    v.extend(crate::switch::all());
    v.extend(crate::contend::all());
    v.extend(crate::io::all());
    v.extend(crate::probes::all());
    v.extend(crate::server::all());
    v.extend(crate::workload::all());
    v.extend(crate::memory::all());
    v.extend(crate::limits::all());
    v.extend(crate::isolation::all());
    v.extend(crate::share::all());
    v
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
/// `switch.pipe`), or all of them when `only` is empty, each with its index in [`all`].
/// An unknown name is a usage error.
pub fn select(only: &[String]) -> Result<Vec<(usize, Box<dyn Experiment>)>> {
    let every: Vec<(usize, Box<dyn Experiment>)> = all().into_iter().enumerate().collect();
    if only.is_empty() {
        return Ok(every);
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
    Ok(every
        .into_iter()
        .filter(|(_, e)| only.iter().any(|n| matches(e.as_ref(), n)))
        .collect())
}

fn matches(e: &dyn Experiment, name: &str) -> bool {
    let m = e.meta();
    m.family == name || m.id == name || m.id.starts_with(&format!("{name}."))
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
        assert!(concbench_core::error::is_usage_error(&err));
        assert!(err.to_string().contains("--only"));
    }
}
