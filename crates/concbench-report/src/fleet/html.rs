//! The fleet as one self-contained HTML page (inline CSS and SVG, no script, no network), in the
//! single-run page's style: the hosts, the hosts x claims verdict matrix, a dot plot per
//! headline figure, and what differs between the hosts.

use super::{dotplot, verdict_word, Fleet};
use minijinja::Environment;
use serde::Serialize;

const TEMPLATE: &str = include_str!("page.html");
const STYLE: &str = include_str!("../html/style.css");
const FLEET_STYLE: &str = include_str!("fleet.css");
/// Longest host name a column heading shows in full (headings stand vertically).
const HEADING_CHARS: usize = 36;

#[derive(Serialize)]
struct Page {
    style: String,
    hosts: Vec<HostRow>,
    /// Column headings: names cut to [`HEADING_CHARS`], the full name on hover.
    headings: Vec<(String, String)>,
    claims: Vec<ClaimRow>,
    figures: Vec<FigureView>,
    differing: Vec<FactView>,
    same: Vec<(String, String)>,
    excluded: Vec<String>,
    notes: Vec<String>,
    runs: usize,
}

#[derive(Serialize)]
struct HostRow {
    name: String,
    machine: String,
    hostname: String,
    labels: String,
    source: String,
    started_at: String,
    older: usize,
}

#[derive(Serialize)]
struct ClaimRow {
    source: String,
    claim: String,
    verdicts: Vec<VerdictCell>,
}

/// One member's verdict: its word for the badge's colour, and as said ("partly judged: ...").
#[derive(Serialize)]
struct VerdictCell {
    class: &'static str,
    text: String,
}

#[derive(Serialize)]
struct FigureView {
    title: &'static str,
    caption: &'static str,
    svg: String,
}

#[derive(Serialize)]
struct FactView {
    fact: &'static str,
    values: Vec<String>,
}

/// The whole page.
pub fn html(fleet: &Fleet) -> anyhow::Result<String> {
    let mut env = Environment::new();
    env.add_template("fleet.html", TEMPLATE)?;
    Ok(env.get_template("fleet.html")?.render(page(fleet))?)
}

fn page(fleet: &Fleet) -> Page {
    let names: Vec<String> = fleet.members.iter().map(|m| m.name.clone()).collect();
    let (differing, same): (Vec<_>, Vec<_>) = fleet.facts.iter().partition(|f| f.differs);
    Page {
        style: format!("{}{STYLE}\n{FLEET_STYLE}", crate::cjk_font::font_face_css()),
        hosts: fleet
            .members
            .iter()
            .map(|m| HostRow {
                name: m.name.clone(),
                machine: m.machine.clone(),
                hostname: m.doc.host.hostname.clone(),
                labels: m
                    .labels
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                source: m.source.clone(),
                started_at: m.doc.started_at.clone(),
                older: m.older,
            })
            .collect(),
        claims: fleet
            .claims
            .iter()
            .map(|c| ClaimRow {
                source: c.source.clone(),
                claim: c.claim.clone(),
                verdicts: (0..c.verdicts.len())
                    .map(|i| VerdictCell {
                        class: match c.verdicts[i] {
                            None => "none",
                            kind => verdict_word(kind),
                        },
                        text: c.word(i),
                    })
                    .collect(),
            })
            .collect(),
        figures: fleet
            .figures
            .iter()
            .map(|f| FigureView {
                title: f.title,
                caption: f.caption,
                svg: dotplot::svg(f, &names),
            })
            .collect(),
        differing: differing
            .into_iter()
            .map(|f| FactView {
                fact: f.fact,
                values: f.values.clone(),
            })
            .collect(),
        same: same
            .into_iter()
            .map(|f| {
                (
                    f.fact.to_string(),
                    f.values.first().cloned().unwrap_or_default(),
                )
            })
            .collect(),
        excluded: fleet.excluded.clone(),
        notes: fleet.notes.clone(),
        runs: fleet.members.iter().map(|m| m.older + 1).sum(),
        headings: names
            .iter()
            .map(|n| (dotplot::cut(n, HEADING_CHARS), n.clone()))
            .collect(),
    }
}
