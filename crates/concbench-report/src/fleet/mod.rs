//! A fleet: many machines' runs read side by side — the model the fleet renderers share.
//!
//! Each column ("member") is one machine under one set of labels and one pin policy; when it has
//! several runs, the newest stands for it (the others are counted). For every member the model
//! holds its verdict on each claim (only `source`, `verdict` and `claim` of a verdict are read),
//! its headline figures with their intervals, and the facts that can explain a difference
//! between machines (kernel, CPU, hypervisor, mitigations, SMT...).
//!
//! Only the documents' own numbers appear: nothing is recomputed here.

mod dotplot;
mod html;
mod markdown;
mod text;

pub use html::html;
pub use markdown::markdown;
pub use text::text;

use concbench_analysis::advice::{self, Cost, Kind, UnitCosts};
use concbench_core::{Judged, ResultDoc, ResultEntry, RunMode, VerdictKind};
use std::collections::BTreeMap;

/// A run offered to the fleet report, and where it came from (`run 12`, a file name).
pub struct Submitted {
    pub source: String,
    pub doc: ResultDoc,
}

/// One column of the fleet.
pub struct Member {
    /// Unique, short: hostname, labels and a non-default pin policy.
    pub name: String,
    /// The stable machine id (`hostname:NAME` for documents written before machine ids).
    pub machine: String,
    pub labels: BTreeMap<String, String>,
    /// Where its newest run came from.
    pub source: String,
    pub doc: ResultDoc,
    /// Older runs of the same member that the newest one stands for.
    pub older: usize,
}

/// One claim across the fleet.
pub struct ClaimRow {
    pub source: String,
    pub claim: String,
    /// Per member (in [`Fleet::members`] order); `None` when that run did not judge it.
    pub verdicts: Vec<Option<VerdictKind>>,
    /// How much of the claim each member's run judged (parallel to `verdicts`).
    pub judged: Vec<Option<Judged>>,
}

impl ClaimRow {
    /// The `i`-th member's verdict as said, "partly judged" kept ("partly judged: refuted").
    pub fn word(&self, i: usize) -> String {
        let kind = self.verdicts.get(i).copied().flatten();
        match (kind, self.judged.get(i).copied().flatten()) {
            (Some(k), Some(j)) => j.qualify(k, verdict_word(Some(k))),
            _ => verdict_word(kind).to_string(),
        }
    }
}

/// One value of a headline figure for one member.
#[derive(Debug, Clone)]
pub struct Mark {
    /// Index into [`Figure::series`].
    pub series: usize,
    pub value: f64,
    pub interval: Option<(f64, f64)>,
    /// The result it comes from (`id params`).
    pub source: String,
}

/// A headline figure across the fleet: per member, one mark per series present.
pub struct Figure {
    pub title: &'static str,
    pub unit: &'static str,
    pub caption: &'static str,
    pub series: Vec<&'static str>,
    /// Per member, in [`Fleet::members`] order.
    pub marks: Vec<Vec<Mark>>,
}

/// A machine fact per member; `differs` when not every member has the same value.
pub struct FactRow {
    pub fact: &'static str,
    pub values: Vec<String>,
    pub differs: bool,
}

pub struct Fleet {
    pub members: Vec<Member>,
    pub claims: Vec<ClaimRow>,
    pub figures: Vec<Figure>,
    pub facts: Vec<FactRow>,
    /// Runs left out, with the reason (smoke tests are not measurements; an older or partial
    /// run of a host another run stands for).
    pub excluded: Vec<String>,
    /// What a reader must know of a run shown (a partial run standing for its host).
    pub notes: Vec<String>,
}

impl Fleet {
    pub fn new(submitted: Vec<Submitted>) -> Fleet {
        let (members, excluded) = members(submitted);
        Fleet {
            claims: claims(&members),
            figures: figures(&members),
            facts: facts(&members),
            notes: members.iter().filter_map(partial_note).collect(),
            members,
            excluded,
        }
    }
}

fn setting_str<'a>(doc: &'a ResultDoc, key: &str) -> Option<&'a str> {
    doc.settings.get(key).and_then(|v| v.as_str())
}

/// The machine a document was measured on.
pub fn machine(doc: &ResultDoc) -> String {
    doc.host
        .machine_id
        .clone()
        .unwrap_or_else(|| format!("hostname:{}", doc.host.hostname))
}

/// What a run measured: "everything", or its `--only` and `--where`.
pub fn selection(doc: &ResultDoc) -> String {
    let list = |key: &str| -> Vec<String> {
        doc.settings
            .get(key)
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (only, wanted) = (list("only"), list("where"));
    if only.is_empty() && wanted.is_empty() {
        return "everything".into();
    }
    let mut parts = Vec::new();
    if !only.is_empty() {
        parts.push(format!("--only {}", only.join(",")));
    }
    parts.extend(wanted.iter().map(|w| format!("--where {w}")));
    parts.join(" ")
}

/// A run that measured only part of the suite (a selection, or interrupted).
fn is_partial(doc: &ResultDoc) -> bool {
    doc.interrupted || selection(doc) != "everything"
}

/// Which of two runs of one host stands for it: a complete run before a partial one, then the
/// newest.
fn stands_before(a: &ResultDoc, b: &ResultDoc) -> bool {
    (!is_partial(a), &a.started_at) > (!is_partial(b), &b.started_at)
}

/// Group runs into members (the newest complete run of each, else the newest partial one),
/// leaving smoke tests out; every run left out is listed with the run that stands for it.
fn members(submitted: Vec<Submitted>) -> (Vec<Member>, Vec<String>) {
    let mut excluded = Vec::new();
    let mut by_key: BTreeMap<String, Member> = BTreeMap::new();
    for Submitted { source, doc } in submitted {
        if doc.mode().is_smoke() {
            excluded.push(format!(
                "{source}: a smoke test (one tiny repetition), not a measurement"
            ));
            continue;
        }
        let labels = doc.labels();
        let pin = setting_str(&doc, "pin").unwrap_or("auto").to_string();
        // A run under a CPU limit measured a smaller machine: its own member.
        let limit = doc.host.cpu_limit().unwrap_or_default();
        let key = format!("{} {labels:?} {pin} {limit}", machine(&doc));
        match by_key.get_mut(&key) {
            Some(m) if !stands_before(&doc, &m.doc) => {
                m.older += 1;
                excluded.push(left_for(&source, &doc, m));
            }
            Some(m) => {
                let older = m.older + 1;
                let old = std::mem::replace(m, member(source, doc, labels, &pin, older));
                excluded.push(left_for(&old.source, &old.doc, m));
            }
            None => {
                by_key.insert(key, member(source, doc, labels, &pin, 0));
            }
        }
    }
    let mut members: Vec<Member> = by_key.into_values().collect();
    disambiguate(&mut members);
    members.sort_by(|a, b| a.name.cmp(&b.name));
    (members, excluded)
}

fn member(
    source: String,
    doc: ResultDoc,
    labels: BTreeMap<String, String>,
    pin: &str,
    older: usize,
) -> Member {
    let mut parts = vec![doc.host.hostname.clone()];
    parts.extend(labels.iter().map(|(k, v)| format!("{k}={v}")));
    if pin != "auto" {
        parts.push(format!("pin={pin}"));
    }
    Member {
        name: parts.join(" "),
        machine: machine(&doc),
        labels,
        source,
        doc,
        older,
    }
}

/// "B.json: a run of host (…) that A.json stands for".
fn left_for(source: &str, doc: &ResultDoc, kept: &Member) -> String {
    let what = if is_partial(doc) {
        format!("a partial run ({})", selection(doc))
    } else {
        "an older run".to_string()
    };
    format!(
        "{source}: {what} of {} started {}; {} ({}) stands for this host",
        kept.name, doc.started_at, kept.source, kept.doc.started_at
    )
}

/// The note a member needs when no complete run of its host was given.
fn partial_note(m: &Member) -> Option<String> {
    is_partial(&m.doc).then(|| {
        let how = if m.doc.interrupted {
            "interrupted".to_string()
        } else {
            selection(&m.doc)
        };
        format!(
            "{}: the run shown ({}) is partial ({how}); no complete run of this host was given, \
             so its claims not measured show as not judged",
            m.name, m.source
        )
    })
}

/// Two machines with the same hostname and labels get their machine id's start appended.
fn disambiguate(members: &mut [Member]) {
    // One machine's runs under different CPU limits: told apart by the limit first.
    let names: Vec<String> = members.iter().map(|m| m.name.clone()).collect();
    for m in members.iter_mut() {
        if names.iter().filter(|n| **n == m.name).count() > 1 {
            if let Some(limit) = m.doc.host.cpu_limit() {
                m.name = format!("{} ({limit})", m.name);
            }
        }
    }
    let names: Vec<String> = members.iter().map(|m| m.name.clone()).collect();
    for m in members.iter_mut() {
        if names.iter().filter(|n| **n == m.name).count() > 1 {
            let short: String = m.machine.chars().take(8).collect();
            m.name = format!("{} #{short}", m.name);
        }
    }
}

/// Every claim any member judged, in first-seen order.
fn claims(members: &[Member]) -> Vec<ClaimRow> {
    let mut rows: Vec<ClaimRow> = Vec::new();
    for (i, m) in members.iter().enumerate() {
        for v in &m.doc.verdicts {
            let row = match rows.iter().position(|r| r.source == v.source) {
                Some(at) => &mut rows[at],
                None => {
                    rows.push(ClaimRow {
                        source: v.source.clone(),
                        claim: v.claim.clone(),
                        verdicts: vec![None; members.len()],
                        judged: vec![None; members.len()],
                    });
                    rows.last_mut().expect("just pushed")
                }
            };
            row.verdicts[i] = Some(v.verdict);
            row.judged[i] = Some(v.judged());
        }
    }
    rows
}

/// Series names in the order of `Kind::ALL`.
const KIND_SERIES: [&str; 4] = ["process", "thread", "coroutine", "async task"];

fn mark(series: usize, cost: &Cost) -> Mark {
    Mark {
        series,
        value: cost.value,
        interval: cost.interval,
        source: cost.source.clone(),
    }
}

/// One mark per kind of unit from the advice's unit costs (the same results the single-run
/// page's answer table uses).
fn per_kind(
    members: &[Member],
    pick: fn(&UnitCosts) -> &Option<Cost>,
) -> (Vec<&'static str>, Vec<Vec<Mark>>) {
    let marks = members
        .iter()
        .map(|m| {
            advice::unit_costs(&m.doc)
                .iter()
                .filter_map(|c| {
                    let series = Kind::ALL.iter().position(|k| *k == c.kind)?;
                    pick(c).as_ref().map(|cost| mark(series, cost))
                })
                .collect()
        })
        .collect();
    (KIND_SERIES.to_vec(), marks)
}

fn entry_mark(series: usize, r: &ResultEntry) -> Mark {
    let params = r.params.compact();
    Mark {
        series,
        value: r.summary.median,
        interval: r.interval(),
        source: if params.is_empty() {
            r.id.clone()
        } else {
            format!("{} {params}", r.id)
        },
    }
}

/// One switch at `placement` (no working set, normal scheduling), per kind of unit that
/// `ids` lists in series order. Only results measured at that placement count: a run with
/// `--pin none` has no same-CPU switch, and its unpinned one is not shown as if it were.
fn switch_at(
    members: &[Member],
    placement: &str,
    ids: &[(&'static str, &'static str)],
) -> (Vec<&'static str>, Vec<Vec<Mark>>) {
    let plain = |r: &&ResultEntry| {
        r.params.get_str("placement") == Some(placement)
            && r.params.get_f64("working_set_kib").unwrap_or(0.0) == 0.0
            && r.params.get_str("sched").unwrap_or("other") == "other"
            && r.unit == "ns"
    };
    let marks = members
        .iter()
        .map(|m| {
            ids.iter()
                .enumerate()
                .filter_map(|(series, (id, _))| {
                    m.doc.find(id).find(plain).map(|r| entry_mark(series, r))
                })
                .collect()
        })
        .collect();
    (ids.iter().map(|(_, series)| *series).collect(), marks)
}

const SAME_CPU_SWITCHES: [(&str, &str); 3] = [
    ("switch.pipe.process", KIND_SERIES[0]),
    ("switch.pipe.thread", KIND_SERIES[1]),
    ("switch.coroutine", KIND_SERIES[2]),
];

const CROSS_CPU_SWITCHES: [(&str, &str); 2] = [
    ("switch.pipe.process", KIND_SERIES[0]),
    ("switch.pipe.thread", KIND_SERIES[1]),
];

/// The keep-alive server design with the most requests per second.
fn best_server(members: &[Member]) -> (Vec<&'static str>, Vec<Vec<Mark>>) {
    let marks = members
        .iter()
        .map(|m| {
            m.doc
                .find("server.keepalive")
                .filter(|r| r.unit == "req/s")
                .max_by(|a, b| a.summary.median.total_cmp(&b.summary.median))
                .map(|r| entry_mark(0, r))
                .into_iter()
                .collect()
        })
        .collect();
    (vec!["best design"], marks)
}

fn figures(members: &[Member]) -> Vec<Figure> {
    let figure =
        |title, unit, caption, (series, marks): (Vec<&'static str>, Vec<Vec<Mark>>)| Figure {
            title,
            unit,
            caption,
            series,
            marks,
        };
    [
        figure(
            "Create + destroy one unit",
            "ns",
            "One unit's whole life (create, run empty, reap), per kind of unit.",
            per_kind(members, |c| &c.create_ns),
        ),
        figure(
            "One switch, same CPU",
            "ns",
            "Two units taking turns on one CPU (pipe ping-pong; coroutines resume each other): \
             the cost of one switch (runs with pin=none have none).",
            switch_at(members, "same-cpu", &SAME_CPU_SWITCHES),
        ),
        figure(
            "One switch, across two CPUs",
            "ns",
            "A wake-up on the other CPU (pipe ping-pong, pinned to two CPUs): on a VM this can \
             cost ten times a same-CPU switch.",
            switch_at(members, "cross-cpu", &CROSS_CPU_SWITCHES),
        ),
        figure(
            "Memory per unit",
            "KiB",
            "What one more unit holds (PSS), with 1000 units alive where measured.",
            per_kind(members, |c| &c.pss_kib),
        ),
        figure(
            "Best server design",
            "req/s",
            "Requests per second of the fastest keep-alive design on each host (hover for the \
             design); more is better.",
            best_server(members),
        ),
    ]
    .into_iter()
    .filter(|f| f.marks.iter().any(|m| !m.is_empty()))
    .collect()
}

/// The facts that can explain why machines differ.
fn facts(members: &[Member]) -> Vec<FactRow> {
    type Fact = fn(&ResultDoc) -> String;
    let rows: [(&'static str, Fact); 14] = [
        ("kernel", |d| d.host.kernel.clone()),
        ("CPU", |d| d.host.cpu_model.clone()),
        ("logical CPUs", |d| d.host.logical_cpus.to_string()),
        ("SMT", |d| on_off(d.host.smt)),
        ("hypervisor", |d| {
            match (d.host.virtualized, &d.host.hypervisor) {
                (true, Some(name)) => name.clone(),
                (true, None) => "virtualized".into(),
                (false, _) => "bare metal".into(),
            }
        }),
        ("mitigations", mitigations),
        ("CPU quota", |d| {
            d.host
                .cpu_quota
                .map(|q| format!("{q:.2} CPUs"))
                .unwrap_or_else(|| "none".into())
        }),
        ("clocksource", |d| d.host.clocksource.clone()),
        ("governor", |d| {
            d.host.governor.clone().unwrap_or_else(|| "-".into())
        }),
        ("pin", |d| setting_str(d, "pin").unwrap_or("auto").into()),
        // A smoke run shows as quick, as it always has: it implies the quick sizes (and the
        // fleet leaves smoke runs out anyway).
        ("mode", |d| {
            if d.mode().is_quick() {
                RunMode::Quick.as_str().into()
            } else {
                RunMode::Full.as_str().into()
            }
        }),
        ("selection", |d| selection(d)),
        ("privileges", |d| {
            if d.host.is_root {
                "root".into()
            } else {
                "ordinary user".into()
            }
        }),
        ("concbench", |d| d.tool.version.clone()),
    ];
    rows.into_iter()
        .map(|(fact, read)| {
            let values: Vec<String> = members.iter().map(|m| read(&m.doc)).collect();
            let differs = values.windows(2).any(|w| w[0] != w[1]);
            FactRow {
                fact,
                values,
                differs,
            }
        })
        .collect()
}

fn on_off(b: bool) -> String {
    if b { "on" } else { "off" }.to_string()
}

/// The vulnerabilities left unmitigated, or how many were checked.
fn mitigations(d: &ResultDoc) -> String {
    let open: Vec<&str> = d
        .host
        .mitigations
        .iter()
        .filter(|(_, v)| v.starts_with("Vulnerable"))
        .map(|(k, _)| k.as_str())
        .collect();
    if open.is_empty() {
        format!("{} checked, none unmitigated", d.host.mitigations.len())
    } else {
        format!("unmitigated: {}", open.join(", "))
    }
}

/// The verdict's word, as the single-run page shows it.
pub fn verdict_word(v: Option<VerdictKind>) -> &'static str {
    match v {
        Some(VerdictKind::Confirmed) => "confirmed",
        Some(VerdictKind::Refuted) => "refuted",
        Some(VerdictKind::Depends) => "depends",
        Some(VerdictKind::Inconclusive) => "inconclusive",
        None => "not judged",
    }
}
