//! The anatomy charts: each hand-over as one stacked bar (a segment per layer, its interval as
//! a whisker at the segment's end), the victim's slowdown per switch beside the direct switch
//! cost, and fork, vfork and posix_spawn against the parent's size. Numbers come from
//! `concbench_analysis::anatomy`; only scaling to µs happens here.

use super::chart::{
    colour, esc, heading_height, label_text, legend, legend_height, open_svg, title_text,
    whisker_h, wrap, x_axis, Bar, BarChart, LineChart, Point, Scale, Series, CHAR_PX, WIDTH,
};
use crate::format;
use concbench_analysis::anatomy::{Anatomy, Stack};
use std::fmt::Write;

type Chart = (String, String);

/// Every anatomy chart the document supports.
pub fn charts(a: &Anatomy) -> Vec<Chart> {
    let mut out = Vec::new();
    // Wake-ups on another CPU can cost a hundred times a same-CPU switch on a VM: they get
    // their own axis, or every same-CPU bar would shrink to a sliver.
    let (cross, same): (Vec<Stack>, Vec<Stack>) = a
        .stacks
        .iter()
        .cloned()
        .partition(|s| s.layers.last().is_some_and(|l| kind(&l.name) == WAKE_UP));
    for (stacks, title) in [
        (same, "Anatomy of a hand-over on one CPU"),
        (cross, "Anatomy of a hand-over to another CPU"),
    ] {
        if !stacks.is_empty() {
            out.push((
                "What one hand-over is made of: each segment is the difference between two \
                 results that differ by one factor; a faded segment's interval includes zero \
                 (not distinguishable here)."
                    .to_string(),
                stacked(title, &stacks),
            ));
        }
    }
    if !a.victim.is_empty() {
        out.push((
            "The victim's side: how much longer a CPU-bound kernel takes per switch when a \
             partner preempts it, beside the direct cost of one switch."
                .to_string(),
            victim(a),
        ));
    }
    if !a.fork.is_empty() {
        out.push((
            "Creating a process from a parent of growing resident size: fork copies page tables \
             (fewer with huge pages); vfork and posix_spawn copy none."
                .to_string(),
            fork(a),
        ));
    }
    out
}

/// The kind of the wake-up layer (see [`kind`]).
const WAKE_UP: usize = 5;

/// The kind of a layer, an index into [`LEGEND`]: the four base layers, then working set, then
/// wake-up (merged layers take the kind of their first part).
fn kind(name: &str) -> usize {
    const KINDS: [&str; 6] = [
        "system-call floor",
        "transport",
        "switch between threads",
        "extra for processes",
        "indirect cost",
        "wake-up",
    ];
    KINDS
        .iter()
        .position(|k| name.starts_with(k))
        .unwrap_or(KINDS.len())
}

const LEGEND: [&str; 6] = [
    "system-call floor",
    "transport (one thread)",
    "switch between threads",
    "extra for processes",
    "indirect cost (working set)",
    "wake-up on another CPU",
];

fn stacked(title: &str, stacks: &[Stack]) -> String {
    // Positions in µs: the running sum of layers, and each layer's interval around its end.
    let mut ends: Vec<f64> = vec![0.0];
    for s in stacks {
        let mut at = 0.0;
        for l in &s.layers {
            ends.extend(l.interval.map(|(_, hi)| (at + hi) / 1e3));
            ends.extend(l.interval.map(|(lo, _)| (at + lo) / 1e3));
            at += l.median;
            ends.push(at / 1e3);
        }
    }
    let scale = Scale::covering(&ends, f64::INFINITY);
    let label_w = (stacks
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0) as f64
        * CHAR_PX
        + 12.0)
        .clamp(120.0, 380.0);
    const SUBTITLE: &str = "one-way hand-over, µs; each bar from zero to its top result";
    // The legend lists the kinds present, coloured in that order.
    let mut kinds: Vec<usize> = stacks
        .iter()
        .flat_map(|s| s.layers.iter().map(|l| kind(&l.name)))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let names: Vec<String> = kinds
        .iter()
        .map(|&k| LEGEND.get(k).copied().unwrap_or("other").to_string())
        .collect();
    let head = heading_height(title, SUBTITLE);
    let top = head + 8.0 + legend_height(&names) + 6.0;
    let label_chars = ((label_w - 12.0) / CHAR_PX) as usize;
    let labels: Vec<Vec<String>> = stacks.iter().map(|s| wrap(&s.name, label_chars)).collect();
    let row_of = |lines: &[String]| (lines.len() as f64 * 14.0 + 12.0).max(26.0);
    let plot_w = WIDTH - label_w - 30.0;
    let bottom = top + labels.iter().map(|l| row_of(l)).sum::<f64>();
    let mut svg = open_svg(bottom + 42.0, title);
    title_text(&mut svg, title, SUBTITLE);
    legend(&mut svg, &names, head + 8.0);
    let colour_of = |name: &str| colour(kinds.iter().position(|&k| k == kind(name)).unwrap_or(0));
    x_axis(
        &mut svg,
        &scale,
        label_w,
        plot_w,
        top,
        bottom,
        "µs per hand-over (median, 95% CI)",
        false,
    );
    let x = |us: f64| label_w + scale.fraction(us) * plot_w;
    let mut y = top;
    for (s, lines) in stacks.iter().zip(&labels) {
        let row = row_of(lines);
        label_text(&mut svg, label_w - 6.0, y + row / 2.0, lines, None);
        let mut at = 0.0;
        for l in &s.layers {
            let (x0, x1) = (x(at / 1e3), x((at + l.median) / 1e3));
            let hatched = l.distinguishable() == Some(false);
            let tip = format!(
                "{}: {} {} {}{}",
                l.name,
                format::value(l.median, "ns"),
                format::interval(l.median, l.interval.map(|(a, b)| [a, b]), "ns"),
                l.from
                    .as_ref()
                    .map(|f| format!("({f} -> {})", l.to))
                    .unwrap_or_else(|| format!("({})", l.to)),
                if hatched {
                    " — not distinguishable here"
                } else {
                    ""
                }
            );
            let _ = write!(
                svg,
                r#"<rect class="bar{}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"{}><title>{}</title></rect>"#,
                if hatched { " indistinct" } else { "" },
                x0.min(x1),
                y + row / 2.0 - 9.0,
                (x1 - x0).abs().max(1.0),
                18.0,
                colour_of(&l.name),
                if hatched {
                    r#" fill-opacity="0.35""#
                } else {
                    ""
                },
                esc(&tip)
            );
            if let Some((lo, hi)) = l.interval {
                whisker_h(
                    &mut svg,
                    x((at + lo) / 1e3),
                    x((at + hi) / 1e3),
                    y + row / 2.0,
                );
            }
            at += l.median;
        }
        y += row;
    }
    svg.push_str("</svg>");
    svg
}

fn victim(a: &Anatomy) -> String {
    let mut bars = Vec::new();
    for v in &a.victim {
        let label = format!(
            "{} partner, {} KiB, every {} µs",
            v.partner, v.working_set_kib, v.period_us
        );
        bars.push(Bar {
            label: label.clone(),
            value: v.per_switch_ns / 1e3,
            ci: v.interval.map(|(lo, hi)| (lo / 1e3, hi / 1e3)),
            series: 0,
            tooltip: format!(
                "{label}: the victim loses {} per switch ({} preemptions per pass)",
                format::value(v.per_switch_ns, "ns"),
                format::sig3(v.preemptions_per_pass)
            ),
            group: None,
        });
        if let Some(d) = v.direct_switch_ns {
            bars.push(Bar {
                label: format!("direct {} switch (same CPU)", v.partner),
                value: d / 1e3,
                ci: None,
                series: 1,
                tooltip: format!("switch.pipe.{}: {}", v.partner, format::value(d, "ns")),
                group: None,
            });
        }
    }
    BarChart {
        title: "The victim's slowdown per switch".into(),
        subtitle: "a CPU-bound kernel preempted by a partner on its CPU".into(),
        axis_label: "µs per switch (median, 95% CI)".into(),
        bars,
        legend: vec!["victim's slowdown".into(), "direct switch cost".into()],
    }
    .svg()
}

fn fork(a: &Anatomy) -> String {
    let series = a
        .fork
        .iter()
        .map(|c| Series {
            name: format!("{} thp={}", c.id.trim_start_matches("anatomy."), c.thp),
            points: c
                .points
                .iter()
                .map(|&(mib, ns, ci)| Point {
                    x: mib,
                    y: ns / 1e3,
                    ci: ci.map(|(lo, hi)| (lo / 1e3, hi / 1e3)),
                    tooltip: format!(
                        "{} thp={} from {mib} MiB: {}",
                        c.id,
                        c.thp,
                        format::value(ns, "ns")
                    ),
                })
                .collect(),
        })
        .collect();
    LineChart {
        title: "Process creation by parent size".into(),
        subtitle: "the parent's memory written before measuring".into(),
        x_label: "parent resident size (MiB)".into(),
        y_label: "µs per creation".into(),
        series,
        ..Default::default()
    }
    .svg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use concbench_analysis::anatomy::Layer;

    fn layer(name: &str, median: f64, interval: (f64, f64)) -> Layer {
        Layer {
            name: name.into(),
            from: None,
            to: "x".into(),
            median,
            interval: Some(interval),
            difference: median,
        }
    }

    #[test]
    fn a_stacked_bar_has_a_segment_per_layer_and_hatches_the_indistinct_ones() {
        let stack = Stack {
            name: "pipe hand-over, same CPU".into(),
            layers: vec![
                layer("system-call floor (2 calls)", 200.0, (190.0, 210.0)),
                layer("switch between threads", 2000.0, (1900.0, 2100.0)),
                layer(
                    "extra for processes (address-space change)",
                    30.0,
                    (-50.0, 90.0),
                ),
            ],
        };
        let svg = stacked("t", &[stack]);
        assert_eq!(svg.matches(r#"<rect class="bar"#).count(), 3);
        assert_eq!(svg.matches("indistinct").count(), 1);
        assert!(svg.contains("not distinguishable here"));
        assert_eq!(kind("wake-up on another CPU (same-llc)"), WAKE_UP);
        // The legend names the three kinds present only.
        assert_eq!(svg.matches(r#"class="legend""#).count(), 3);
    }
}
