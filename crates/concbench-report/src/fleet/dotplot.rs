//! The fleet page's chart: a dot plot — one row per member, one dot per series (kind of unit)
//! with its 95% interval as a whisker, on one shared value axis — so a reader sees at a glance
//! which machines differ and whether the intervals overlap.
//!
//! Built from the single-run charts' pieces (scale, ticks, palette, escaping in
//! `html::chart`); everything it draws stays inside its `viewBox`: the legend wraps, long names
//! are cut (with the full name on hover).

use super::Figure;
use crate::format;
use crate::html::chart::{colour, esc, x_axis, Scale};
use std::fmt::Write;

const WIDTH: f64 = 900.0;
const CHAR_PX: f64 = 7.0;
const ROW: f64 = 26.0;
/// Vertical offset between the dots of different series in one row, so whiskers do not overlap.
const DODGE: f64 = 6.0;
const RIGHT_MARGIN: f64 = 24.0;

/// `figure` as an SVG dot plot with one row per name in `names`.
pub fn svg(figure: &Figure, names: &[String]) -> String {
    let (factor, unit) = display_unit(figure);
    let values: Vec<f64> = figure
        .marks
        .iter()
        .flatten()
        .flat_map(|m| {
            [
                Some(m.value),
                m.interval.map(|i| i.0),
                m.interval.map(|i| i.1),
            ]
            .into_iter()
            .flatten()
            .map(|v| v * factor)
        })
        .collect();
    let scale = Scale::covering(&values, 30.0);
    let label_w = (names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as f64 * CHAR_PX
        + 14.0)
        .clamp(90.0, 320.0);
    let plot_w = WIDTH - label_w - RIGHT_MARGIN;
    let mut s = String::new();
    let legend_bottom = legend(&mut s, &figure.series, 30.0);
    let top = legend_bottom + 8.0;
    let bottom = top + ROW * names.len() as f64;
    let height = bottom + 44.0;
    let x = |v: f64| label_w + scale.fraction(v * factor) * plot_w;
    // The report's own x axis: the same ticks, grid and unit text as every chart of a run.
    x_axis(
        &mut s,
        &scale,
        label_w,
        plot_w,
        top,
        bottom,
        &unit,
        scale.is_log(),
    );
    for (row, (name, marks)) in names.iter().zip(&figure.marks).enumerate() {
        let y = top + ROW * row as f64;
        let _ = write!(
            s,
            r#"<text class="label" x="{:.1}" y="{:.1}" text-anchor="end">{}<title>{}</title></text>"#,
            label_w - 8.0,
            y + ROW * 0.62,
            esc(&cut(name, ((label_w - 14.0) / CHAR_PX) as usize)),
            esc(name)
        );
        if marks.is_empty() {
            let _ = write!(
                s,
                r#"<text class="missing-mark" x="{:.1}" y="{:.1}">not measured</text>"#,
                label_w + 6.0,
                y + ROW * 0.62
            );
        }
        let present = marks.len() as f64;
        for (i, m) in marks.iter().enumerate() {
            let cy = y + ROW / 2.0 + (i as f64 - (present - 1.0) / 2.0) * DODGE;
            if let Some((lo, hi)) = m.interval {
                whisker(&mut s, x(lo), x(hi), cy);
            }
            let tip = format!(
                "{name}, {}: {} {} ({})",
                figure.series[m.series],
                format::value(m.value, figure.unit),
                format::interval(m.value, m.interval.map(|(a, b)| [a, b]), figure.unit),
                m.source
            );
            let _ = write!(
                s,
                r#"<circle class="point{}" cx="{:.1}" cy="{cy:.1}" r="4" fill="{}"><title>{}</title></circle>"#,
                if m.interval.is_none() { " no-ci" } else { "" },
                x(m.value),
                colour(m.series),
                esc(&tip)
            );
        }
    }
    format!(
        r#"<svg class="chart dotplot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0}" width="{WIDTH}" height="{height:.0}" role="img" aria-label="{title}" font-size="12"><text class="title" x="8" y="18">{title}</text>{s}</svg>"#,
        title = esc(figure.title)
    )
}

/// Scale time units to a readable one (ns -> µs...) for the axis; other units stay.
fn display_unit(figure: &Figure) -> (f64, String) {
    let max = figure
        .marks
        .iter()
        .flatten()
        .map(|m| m.value)
        .fold(0.0, f64::max);
    format::display_unit(max, figure.unit)
}

/// Swatches and names, wrapping onto a new line before the right edge; returns the y below.
fn legend(s: &mut String, series: &[&str], y: f64) -> f64 {
    if series.len() < 2 {
        return y;
    }
    let (mut x, mut y) = (8.0, y);
    for (i, name) in series.iter().enumerate() {
        let w = 16.0 + name.chars().count() as f64 * CHAR_PX + 18.0;
        if x + w > WIDTH - 8.0 && x > 8.0 {
            x = 8.0;
            y += 18.0;
        }
        let _ = write!(
            s,
            r#"<rect class="swatch" x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}"/><text class="legend" x="{:.1}" y="{:.1}">{}</text>"#,
            y - 1.0,
            colour(i),
            x + 16.0,
            y + 9.5,
            esc(name)
        );
        x += w;
    }
    y + 18.0
}

fn whisker(s: &mut String, x0: f64, x1: f64, y: f64) {
    let _ = write!(
        s,
        r#"<path class="ci" d="M{x0:.1} {:.1}V{:.1}M{x0:.1} {y:.1}H{x1:.1}M{x1:.1} {:.1}V{:.1}"/>"#,
        y - 3.0,
        y + 3.0,
        y - 3.0,
        y + 3.0
    );
}

/// `text` cut to `max` characters, ending in "…" when cut.
pub(super) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::Mark;

    fn figure(marks: Vec<Vec<Mark>>) -> Figure {
        Figure {
            title: "One switch, same CPU",
            unit: "ns",
            caption: "",
            series: vec!["process", "thread", "coroutine / async task"],
            marks,
        }
    }

    fn mark(series: usize, value: f64, interval: Option<(f64, f64)>) -> Mark {
        Mark {
            series,
            value,
            interval,
            source: "switch.pipe.process placement=same-cpu".into(),
        }
    }

    #[test]
    fn every_mark_is_a_dot_with_its_figures_and_missing_rows_say_so() {
        let svg = svg(
            &figure(vec![
                vec![
                    mark(0, 2500.0, Some((2400.0, 2600.0))),
                    mark(1, 1800.0, None),
                ],
                vec![],
            ]),
            &["vm-a".into(), "vm-b <x>".into()],
        );
        assert_eq!(svg.matches("<circle class=\"point").count(), 2);
        assert_eq!(svg.matches("class=\"ci\"").count(), 1, "one interval");
        assert!(
            svg.contains("no-ci") && svg.contains("no interval"),
            "{svg}"
        );
        assert!(svg.contains("2.50 µs [2.40, 2.60] µs"), "{svg}");
        assert!(svg.contains("not measured") && svg.contains("vm-b &lt;x&gt;"));
        assert!(
            svg.contains(">µs<") || svg.contains(">µs ("),
            "axis in µs: {svg}"
        );
    }

    #[test]
    fn a_wide_legend_wraps_inside_the_chart() {
        let mut s = String::new();
        let long: Vec<&str> = vec!["a very long series name that takes room"; 6];
        let below = legend(&mut s, &long, 30.0);
        assert!(below > 48.0, "wrapped onto more lines");
        for x in s.split("x=\"").skip(1) {
            let x: f64 = x.split('"').next().unwrap().parse().unwrap();
            assert!(x < WIDTH, "legend item at x={x}");
        }
    }
}
