//! The gate between measuring and reporting: every result passes it, in one place.
//!
//! A number that cannot be right is never shown as a measurement. A result fails when a value
//! is impossible for its unit (a negative or non-finite time, size or count), when a figure
//! "per operation" was timed over fewer than [`MIN_OPERATIONS_PER_SAMPLE`] operations (it
//! measured whatever surrounds one operation — a wake-up, the loop's start — not the
//! operation), or when its placement label contradicts the CPUs it ran on. It is then reported
//! as invalid with the reason: shown, never judged, never compared with a published figure.
//! A counter that cannot be right is dropped from the result with a warning.
//!
//! A result that is a difference from a subtracted baseline (`quantity: difference`) may have
//! rounds whose difference is below zero (noise on a small difference); its median and
//! interval, the estimate of a quantity that cannot be negative, may not (they are bounded at
//! zero when they reach it, `entry`). [`document`] holds every other interval and ratio of a finished document to
//! the same rule — each check's, each pooled check's, each drift-widened one — so no screen
//! shows a negative bound on a time, a size or a ratio of positive quantities.

use concbench_core::unit::cannot_be_negative;
use concbench_core::{
    Check, Host, Invalid, PooledCheck, Quantity, ResultDoc, ResultEntry, VerdictKind,
    MIN_OPERATIONS_PER_SAMPLE,
};

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
    let difference = e.quantity() == Quantity::Difference;
    // A difference's min, max and mean are over its rounds' differences: below zero is noise
    // there, not an impossible figure (its median and interval are checked).
    let spread = if difference {
        vec![s.min, s.max, s.mean]
            .into_iter()
            .filter(|v| !v.is_finite())
            .collect()
    } else {
        vec![s.min, s.max, s.mean]
    };
    let mut values = [s.median, interval[0], interval[1]]
        .into_iter()
        .chain(spread)
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
        "x" => "ratio of positive quantities",
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

/// Hold every interval and ratio of a finished document to what its quantity can be: a result
/// whose median or interval reaches below zero moves to `invalid`; a check or a pooled check
/// whose figure in a unit that cannot be negative does is bounded at zero and decides nothing,
/// its note saying why. Returns what it found (nothing, when everything upstream bounded what it
/// should — the gate is the last line, not the first).
pub fn document(doc: &mut ResultDoc) -> Vec<String> {
    let mut found = Vec::new();
    let (kept, rejected): (Vec<ResultEntry>, Vec<ResultEntry>) = std::mem::take(&mut doc.results)
        .into_iter()
        .partition(|e| !negative_figure(e));
    doc.results = kept;
    for e in rejected {
        let reason = format!(
            "its median or 95% interval reaches below zero ({} {}), which no {} can be",
            concbench_core::human::interval(e.summary.median, e.summary.ci95, &e.unit),
            e.unit,
            quantity_of(&e.unit)
        );
        found.push(format!("{} {}: {reason}", e.id, e.params.compact()));
        doc.invalid.push(Invalid {
            id: e.id.clone(),
            params: e.params.clone(),
            unit: e.unit.clone(),
            median: Some(e.summary.median),
            reason,
        });
    }
    for v in &mut doc.verdicts {
        for c in &mut v.checks {
            if not_a_number(&mut c.estimate, &mut c.ci95) {
                found.push(format!(
                    "{} {}: a figure that is not a number",
                    v.source, c.condition
                ));
            }
            if let Some(why) = negative_check(c) {
                found.push(format!("{} {}: {why}", v.source, c.condition));
            }
        }
    }
    if let Some(h) = &mut doc.history {
        for v in &mut h.verdicts {
            for c in &mut v.checks {
                if not_a_number(&mut c.estimate, &mut c.ci95) {
                    found.push(format!(
                        "{} {} (pooled): a figure that is not a number",
                        v.source, c.condition
                    ));
                }
                if c.tau.is_some_and(|t| !t.is_finite()) {
                    c.tau = None;
                }
                if let Some(why) = negative_pooled(c) {
                    found.push(format!("{} {} (pooled): {why}", v.source, c.condition));
                }
            }
        }
        h.drift
            .retain(|d| d.own_ci95.iter().all(|x| x.is_finite() && *x >= 0.0));
    }
    found
}

/// A check's estimate and interval, left out when one is not a number (a NaN is written as
/// `null`, and a document holding one where a number belongs cannot be read back); true when
/// it found one.
fn not_a_number(estimate: &mut Option<f64>, ci: &mut Option<[f64; 2]>) -> bool {
    let bad = estimate.is_some_and(|e| !e.is_finite())
        || ci.is_some_and(|c| c.iter().any(|x| !x.is_finite()));
    if bad {
        *estimate = None;
        *ci = None;
    }
    bad
}

/// Whether a result's median or interval (or its difference's) reaches below zero.
fn negative_figure(e: &ResultEntry) -> bool {
    let s = &e.summary;
    let difference = e.overhead.as_ref().and_then(|o| o.difference_ci95);
    std::iter::once(s.median)
        .chain(s.ci95.into_iter().flatten())
        .chain(difference.into_iter().flatten())
        .any(|x| x < 0.0)
}

/// A check whose figure in a unit that cannot be negative reaches below zero: bounded, left
/// undecided, and said.
fn negative_check(c: &mut Check) -> Option<String> {
    let bound = c.boundary.into_iter().flatten();
    let why = held_at_zero(&c.unit, &mut c.estimate, &mut c.ci95, bound)?;
    c.boundary = c.boundary.map(|[lo, hi]| [lo.max(0.0), hi.max(0.0)]);
    c.decision = VerdictKind::Inconclusive;
    c.note = prefix(&why, &c.note);
    Some(why)
}

/// The same for a check pooled over runs.
fn negative_pooled(c: &mut PooledCheck) -> Option<String> {
    let why = held_at_zero(&c.unit, &mut c.estimate, &mut c.ci95, None)?;
    c.decision = VerdictKind::Inconclusive;
    c.note = prefix(&why, &c.note);
    Some(why)
}

/// When an estimate, its interval or `more` figures in `unit` (one that cannot be negative)
/// reach below zero: the estimate and interval bounded at zero, and the sentence saying so.
fn held_at_zero(
    unit: &str,
    estimate: &mut Option<f64>,
    ci: &mut Option<[f64; 2]>,
    more: impl IntoIterator<Item = f64>,
) -> Option<String> {
    let mut figures = estimate
        .iter()
        .copied()
        .chain(ci.iter().flatten().copied())
        .chain(more);
    if !cannot_be_negative(unit) || !figures.any(|x| x < 0.0) {
        return None;
    }
    *estimate = estimate.map(|x| x.max(0.0));
    *ci = ci.map(|[lo, hi]| [lo.max(0.0), hi.max(0.0)]);
    Some(invalid_sentence(unit))
}

fn invalid_sentence(unit: &str) -> String {
    format!(
        "invalid: a figure reached below zero, which no {} can be; shown bounded at zero, and no \
         decision rests on it",
        quantity_of(unit)
    )
}

fn prefix(sentence: &str, note: &str) -> String {
    if note.is_empty() {
        sentence.to_string()
    } else {
        format!("{sentence}; {note}")
    }
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
    fn the_gate_holds_every_interval_of_a_document_checks_and_pooled_ones_included() {
        use concbench_core::{History, PooledVerdict, Verdict};
        let check = |ci: [f64; 2], unit: &str| Check {
            condition: "c".into(),
            rule: "r".into(),
            estimate: Some((ci[0] + ci[1]) / 2.0),
            ci95: Some(ci),
            unit: unit.into(),
            rounds: 6,
            decision: VerdictKind::Refuted,
            note: String::new(),
            beside: false,
            withheld: false,
            boundary: None,
            at_margin: None,
        };
        let mut d = crate::synthetic::doc(vec![entry("t.ok", &[1.0; 6])]);
        let mut bad = entry("t.bad", &[1.0; 6]);
        bad.summary.ci95 = Some([-0.5, 2.0]);
        d.results.push(bad);
        d.verdicts.push(Verdict {
            claim: "c".into(),
            source: "S3.cold".into(),
            verdict: VerdictKind::Refuted,
            evidence: vec!["t.ok".into()],
            explanation: "e".into(),
            checks: vec![check([-0.301, 1.84], "x"), check([-0.03, 0.08], "share")],
            robustness: None,
            rounds: None,
            unmeasured: vec![],
            judged: Default::default(),
            full_run: vec![],
        });
        let pooled = PooledCheck {
            condition: "c".into(),
            rule: "r".into(),
            unit: "us".into(),
            estimate: Some(1.05),
            ci95: Some([-0.62, 3.76]),
            tau: None,
            runs: 3,
            rounds: 18,
            decision: VerdictKind::Confirmed,
            alone: VerdictKind::Confirmed,
            beside: false,
            modes: vec![],
            separation: String::new(),
            note: String::new(),
        };
        d.history = Some(History {
            runs: 3,
            first: String::new(),
            last: String::new(),
            excluded: vec![],
            verdicts: vec![PooledVerdict {
                source: "S3.cold".into(),
                verdict: VerdictKind::Confirmed,
                alone: VerdictKind::Refuted,
                runs: 3,
                rounds: 18,
                checks: vec![pooled],
                judged: Default::default(),
                alone_judged: Default::default(),
                unmeasured: vec![],
            }],
            drift: vec![],
        });
        let found = document(&mut d);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(d.results.len(), 1);
        assert_eq!(d.invalid[0].id, "t.bad");
        let c = &d.verdicts[0].checks;
        assert_eq!(
            (c[0].ci95, c[0].decision),
            (Some([0.0, 1.84]), VerdictKind::Inconclusive)
        );
        assert_eq!(
            c[1].ci95,
            Some([-0.03, 0.08]),
            "a share difference may be negative"
        );
        let p = &d.history.as_ref().unwrap().verdicts[0].checks[0];
        assert_eq!(p.ci95, Some([0.0, 3.76]));
        assert!(p.note.starts_with("invalid:"));
        // Everything bounded now: a second pass finds nothing.
        assert!(document(&mut d).is_empty());
        // A NaN (stored as null, unreadable) is left out, and said.
        let h = d.history.as_mut().unwrap();
        h.verdicts[0].checks[0].estimate = Some(f64::NAN);
        let found = document(&mut d);
        assert!(found[0].contains("not a number"), "{found:?}");
        let p = &d.history.as_ref().unwrap().verdicts[0].checks[0];
        assert_eq!((p.estimate, p.ci95), (None, None));
        let text = serde_json::to_string(&d).unwrap();
        assert!(serde_json::from_str::<ResultDoc>(&text).is_ok());
    }

    #[test]
    fn a_not_a_number_is_invalid() {
        let e = entry("x.y", &[f64::NAN]);
        assert!(validate(e, false, &host(&[0, 1])).is_err());
    }
}
