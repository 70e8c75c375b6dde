//! Claims judged the way their article measured: the article's own programs decide and
//! concbench's units are shown beside them (facets), a switch means the switch alone, and a
//! reading that never reached a device is withheld, not judged.

mod common;

use common::*;
use concbench_analysis::synthetic::doc;
use concbench_core::{ResultDoc, ResultEntry, VerdictKind};
use serde_json::json;
use VerdictKind::*;

fn c_probes(process_ns: f64, thread_ns: f64) -> Vec<ResultEntry> {
    vec![
        result("probes.c.process_100k", "ns", &[], around(process_ns, 8)),
        result("probes.c.thread_100k", "ns", &[], around(thread_ns, 8)),
    ]
}

fn alone(process_ns: f64, thread_ns: f64) -> Vec<ResultEntry> {
    vec![
        result("switch.alone.process", "ns", &[], around(process_ns, 8)),
        result("switch.alone.thread", "ns", &[], around(thread_ns, 8)),
    ]
}

#[test]
fn a_switch_is_the_switch_alone_and_the_hand_over_is_shown_beside() {
    let mut r = alone(1900.0, 1850.0);
    r.push(pipe("switch.pipe.process", around(2800.0, 8)));
    r.push(pipe("switch.pipe.thread", around(2700.0, 8)));
    r.push(result("switch.coroutine", "ns", &[], around(2.0, 8)));
    let v = verdict(&doc(r), "S2.switch_order");
    assert_eq!(v.verdict, Refuted, "{}", v.explanation);
    let beside: Vec<bool> = v.checks.iter().map(|c| c.beside).collect();
    assert_eq!(beside, vec![false, true, false, true]);
    assert!(
        v.checks[1].note.contains("they agree"),
        "{}",
        v.checks[1].note
    );
}

// ---- S0.create: the C programs decide; Rust's 100k batches beside.

#[test]
fn s0_create_follows_the_articles_programs() {
    let batch = |p: f64, t: f64| {
        vec![
            result("create.process_100k", "ns", &[], around(p, 8)),
            result("create.thread_100k", "ns", &[], around(t, 8)),
        ]
    };
    // C: 7x (refuted); Rust: 4x (refuted too).
    let mut r = c_probes(168_000.0, 24_000.0);
    r.extend(batch(150_000.0, 37_800.0));
    let v = verdict(&doc(r), "S0.create");
    assert_eq!(v.verdict, Refuted);
    assert!(v.checks[1].beside && v.checks[1].note.contains("they agree"));
    // C: 13x confirms even though Rust's 4x would refute.
    let mut r = c_probes(312_000.0, 24_000.0);
    r.extend(batch(150_000.0, 37_800.0));
    let v = verdict(&doc(r), "S0.create");
    assert_eq!(v.verdict, Confirmed, "{}", v.explanation);
    assert!(v.checks[1].note.contains("disagree"));
    // ... and the disagreement names the check that decided.
    assert!(
        v.checks[1].note.contains("forkcreat.c"),
        "{}",
        v.checks[1].note
    );
}

// ---- S4: a reading that never reached a device is withheld; a fast device qualifies.

fn io(
    model: &str,
    v: f64,
    device_share: f64,
    rotational: f64,
    mib_per_request_s: f64,
) -> ResultEntry {
    let e = result(
        "io.read",
        "ms",
        &[
            ("cache", json!("cold")),
            ("model", json!(model)),
            ("files", json!(10)),
            ("file_mib", json!(50)),
            ("reader", json!("byte")),
            ("placement", json!("unpinned")),
        ],
        around(v, 8),
    );
    let e = counter(e, "device_read_share", &[device_share; 8]);
    let e = counter(e, "device_rotational", &[rotational; 8]);
    counter(e, "disk_mib_per_request_s", &[mib_per_request_s; 8])
}

fn io_doc(device_share: f64, rotational: f64, rate: f64) -> ResultDoc {
    doc(vec![
        io(
            "one-thread-sequential",
            400.0,
            device_share,
            rotational,
            rate,
        ),
        io("threads", 390.0, device_share, rotational, rate),
    ])
}

#[test]
fn reads_that_never_reached_a_device_withhold_the_verdict() {
    let v = verdict(&io_doc(0.02, 1.0, 150.0), "S4.one_thread");
    assert_eq!(v.verdict, Inconclusive, "{}", v.explanation);
    assert!(
        v.checks[0].note.contains("withheld"),
        "{}",
        v.checks[0].note
    );
    // The same times from a disk that delivered them: judged.
    assert_eq!(
        decision(&io_doc(1.0, 1.0, 150.0), "S4.one_thread"),
        Confirmed
    );
}

#[test]
fn a_device_faster_than_a_disk_can_seek_qualifies_the_verdict() {
    let v = verdict(&io_doc(1.0, 0.0, 900.0), "S4.one_thread");
    assert_eq!(v.verdict, Confirmed);
    let note = &v.checks[0].note;
    assert!(
        note.contains("rotational = 0") && note.contains("900"),
        "{note}"
    );
    let plain = verdict(&io_doc(1.0, 1.0, 150.0), "S4.one_thread");
    assert!(plain.checks[0].note.is_empty(), "{}", plain.checks[0].note);
}
