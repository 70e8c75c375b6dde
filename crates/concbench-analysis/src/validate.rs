//! The gate between measuring and reporting: every result passes it, in one place.
//!
//! A number that cannot be right is never shown as a measurement. A result fails when a value
//! is impossible for its unit (a negative or non-finite time, size or count), when a figure
//! "per operation" was timed over fewer than [`MIN_OPERATIONS_PER_SAMPLE`] operations (it
//! measured whatever surrounds one operation — a wake-up, the loop's start — not the
//! operation), or when its placement label contradicts the CPUs it ran on. It is then reported
//! as invalid with the reason: shown, never judged, never compared with a published figure.
//! A counter that cannot be right is dropped from the result with a warning.

use concbench_core::{Host, Invalid, ResultEntry, MIN_OPERATIONS_PER_SAMPLE};

/// Pass `entry` (measured with `calibrated` iteration counts or not) or say why it is invalid.
pub fn validate(entry: ResultEntry, calibrated: bool, host: &Host) -> Result<ResultEntry, Invalid> {
    let reason = impossible_value(&entry)
        .or_else(|| too_few_operations(&entry, calibrated))
        .or_else(|| placement_mismatch(&entry, host));
    match reason {
        Some(reason) => Err(Invalid {
            id: entry.id.clone(),
            params: entry.params.clone(),
            unit: entry.unit.clone(),
            median: entry
                .summary
                .median
                .is_finite()
                .then_some(entry.summary.median),
            reason,
        }),
        None => Ok(drop_impossible_counters(entry)),
    }
}

/// The first value of the result that no measurement in its unit can produce.
fn impossible_value(e: &ResultEntry) -> Option<String> {
    let s = &e.summary;
    let interval = e.interval().map(|(lo, hi)| [lo, hi]).unwrap_or([0.0; 2]);
    let mut values = [s.median, s.min, s.max, s.mean, interval[0], interval[1]]
        .into_iter()
        .chain(e.samples.iter().copied())
        .chain(
            e.rounds
                .iter()
                .flat_map(|r| std::iter::once(r.value).chain(r.baseline)),
        );
    let bad = values.find(|v| !v.is_finite() || *v < 0.0)?;
    let what = if e.overhead.is_some() {
        "a value or its baseline"
    } else {
        "a value"
    };
    Some(if bad.is_finite() {
        format!(
            "{what} is negative ({bad} {}), which no {} can be: the measurement or a \
             subtraction went wrong; rerun it alone with `--only {}` and report it if it repeats",
            e.unit,
            quantity_of(&e.unit),
            e.id
        )
    } else {
        format!(
            "{what} is not a number ({bad}); rerun it alone with `--only {}` and report it",
            e.id
        )
    })
}

fn quantity_of(unit: &str) -> &'static str {
    match unit {
        "ns" | "us" | "µs" | "ms" | "s" => "time",
        "KiB" | "MiB" | "B" | "bytes" => "amount of memory",
        _ => "count or rate",
    }
}

fn too_few_operations(e: &ResultEntry, calibrated: bool) -> Option<String> {
    (calibrated && e.iterations < MIN_OPERATIONS_PER_SAMPLE).then(|| {
        format!(
            "each sample timed only {} operation(s) ({} is the least for a figure per \
             operation): what was timed is mostly what surrounds one operation, not the \
             operation itself",
            e.iterations, MIN_OPERATIONS_PER_SAMPLE
        )
    })
}

/// A placement label must match the CPUs: one for same-cpu, two different ones for cross-cpu,
/// none pinned — on a process allowed at least two — for unpinned.
fn placement_mismatch(e: &ResultEntry, host: &Host) -> Option<String> {
    let label = e.params.get_str("placement")?;
    let ok = match label {
        "same-cpu" => e.cpus.len() == 1,
        "cross-cpu" => e.cpus.len() == 2 && e.cpus[0] != e.cpus[1],
        "unpinned" => e.cpus.is_empty() && host.cpus_allowed.len() != 1,
        _ => true,
    };
    (!ok).then(|| {
        format!(
            "labelled {label} but ran on CPUs {:?} with this process allowed {:?}: the label \
             cannot describe where it ran",
            e.cpus, host.cpus_allowed
        )
    })
}

/// Counters are secondary figures: an impossible one is dropped, with a warning, rather than
/// invalidating the result.
fn drop_impossible_counters(mut e: ResultEntry) -> ResultEntry {
    let bad: Vec<(String, f64)> = e
        .counters
        .iter()
        .filter(|(_, v)| !v.is_finite() || **v < 0.0)
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    for (k, v) in bad {
        e.counters.remove(&k);
        e.warnings.push(format!(
            "the counter {k} came out as {v}, which cannot be; it is left out"
        ));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::entry;

    fn host(allowed: &[usize]) -> Host {
        Host {
            cpus_allowed: allowed.to_vec(),
            ..Host::default()
        }
    }

    fn pinned(placement: &str, cpus: &[usize]) -> ResultEntry {
        let mut e = entry("switch.pipe.thread", &[2000.0, 2100.0]);
        e.params.set("placement", placement);
        e.cpus = cpus.to_vec();
        e.iterations = 1000;
        e
    }

    #[test]
    fn regression_negative_server_cpu_is_invalid_with_its_reason() {
        let mut e = entry("server.stevens", &[-218.0, -100.0]);
        e.unit = "ms".into();
        let bad = validate(e, false, &host(&[0, 1])).unwrap_err();
        assert!(bad.reason.contains("negative"), "{}", bad.reason);
        assert_eq!(bad.id, "server.stevens");
    }

    #[test]
    fn regression_a_calibration_that_collapsed_to_one_operation_is_invalid() {
        // contend.lock threads=100 "counted to 1 per sample" and reported wake-ups as increments.
        let mut e = pinned("same-cpu", &[1]);
        e.iterations = 1;
        let bad = validate(e.clone(), true, &host(&[0, 1])).unwrap_err();
        assert!(bad.reason.contains("only 1 operation"), "{}", bad.reason);
        // A fixed batch of one (a whole print workload per sample) is what it says it is.
        assert!(validate(e, false, &host(&[0, 1])).is_ok());
    }

    #[test]
    fn regression_unpinned_on_a_one_cpu_mask_is_a_mislabel() {
        let bad = validate(pinned("unpinned", &[]), false, &host(&[0])).unwrap_err();
        assert!(bad.reason.contains("unpinned"), "{}", bad.reason);
        assert!(validate(pinned("unpinned", &[]), false, &host(&[0, 1])).is_ok());
        assert!(validate(pinned("same-cpu", &[1]), false, &host(&[0, 1])).is_ok());
        assert!(validate(pinned("same-cpu", &[]), false, &host(&[0, 1])).is_err());
        assert!(validate(pinned("cross-cpu", &[1, 1]), false, &host(&[0, 1])).is_err());
    }

    #[test]
    fn an_impossible_counter_is_dropped_with_a_warning() {
        let mut e = pinned("same-cpu", &[1]);
        e.counters.insert("server_cpu_us_per_req".into(), -3.0);
        e.counters.insert("voluntary_switches_per_op".into(), 1.0);
        let ok = validate(e, false, &host(&[0, 1])).unwrap();
        assert!(!ok.counters.contains_key("server_cpu_us_per_req"));
        assert!(ok.counters.contains_key("voluntary_switches_per_op"));
        assert!(ok
            .warnings
            .iter()
            .any(|w| w.contains("server_cpu_us_per_req")));
    }

    #[test]
    fn a_not_a_number_is_invalid() {
        let e = entry("x.y", &[f64::NAN]);
        assert!(validate(e, false, &host(&[0, 1])).is_err());
    }
}
