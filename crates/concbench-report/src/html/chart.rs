//! Inline SVG charts: horizontal bars with 95% intervals, and lines over a numeric x axis.
//!
//! Hand-built rather than drawn with plotters' SVG backend because the report needs what that
//! backend cannot emit: a `<title>` on every bar and point (hovering shows the exact median and
//! interval — a benchmark reader needs the numbers, not pixel heights), CSS classes so the page's
//! stylesheet themes the charts (dark mode, print), and labels that are real text the browser
//! lays out. What remains is scales and tick placement, a few dozen lines tested below.

use std::fmt::Write;

/// Colour-blind-safe palette by series index: Paul Tol's "bright", then the colours of his
/// "muted" scheme unlike any of them — ten before one repeats (the IO chart has eight lines).
const PALETTE: [&str; 10] = [
    "#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#882255",
    "#44aa99", "#999933",
];

pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

pub(super) const WIDTH: f64 = 900.0;
const FONT_PX: f64 = 12.0;
/// Average glyph advance of the UI font at 12 px, to size the label column.
pub(super) const CHAR_PX: f64 = 7.0;

/// Escape text for SVG/XML content and attributes.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A numeric axis: linear or log10, over `[lo, hi]`.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
    /// The value drawn where 0 belongs on a log axis (which has no 0): its tick reads "0".
    zero_at: Option<f64>,
}

impl Scale {
    /// A scale covering `values`: log when they are positive and span more than `log_ratio`x,
    /// extended to whole decades (log) or nice round numbers from zero (linear).
    pub fn covering(values: &[f64], log_ratio: f64) -> Scale {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
        let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if finite.is_empty() {
            return Scale {
                lo: 0.0,
                hi: 1.0,
                log: false,
                zero_at: None,
            };
        }
        if min > 0.0 && max / min > log_ratio {
            return Scale {
                lo: 10f64.powf(min.log10().floor()),
                hi: 10f64.powf(max.log10().ceil()),
                log: true,
                zero_at: None,
            };
        }
        let lo = min.min(0.0);
        let hi = if max > lo {
            nice_ceiling(max)
        } else {
            lo + 1.0
        };
        Scale {
            lo,
            hi,
            log: false,
            zero_at: None,
        }
    }

    /// The scale with `v` standing for 0 (see [`LineChart::zero_at`]).
    pub fn with_zero_at(self, v: Option<f64>) -> Scale {
        Scale { zero_at: v, ..self }
    }

    /// A tick's text: "0" at the value standing for 0, else [`tick_label`].
    pub fn label(&self, v: f64) -> String {
        if self.zero_at == Some(v) {
            "0".into()
        } else {
            tick_label(v)
        }
    }

    pub fn is_log(&self) -> bool {
        self.log
    }

    /// Position of `v` in [0, 1] (clamped).
    pub fn fraction(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        f.clamp(0.0, 1.0)
    }

    /// Tick values: each decade (log), or 4-6 round steps (linear).
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            let (a, b) = (
                self.lo.log10().round() as i32,
                self.hi.log10().round() as i32,
            );
            return (a..=b).map(|e| 10f64.powi(e)).collect();
        }
        let step = nice_step((self.hi - self.lo) / 5.0);
        let mut v = (self.lo / step).ceil() * step;
        let mut out = Vec::new();
        while v <= self.hi + step * 1e-9 {
            out.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
            v += step;
        }
        out
    }
}

/// The smallest 1, 2 or 5 x 10^k at or above `v`.
fn nice_step(v: f64) -> f64 {
    let e = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * e)
        .find(|s| *s >= v * (1.0 - 1e-12))
        .unwrap_or(10.0 * e)
}

/// `v` rounded up to a step of its own magnitude (a tidy axis end).
fn nice_ceiling(v: f64) -> f64 {
    let step = nice_step(v / 5.0);
    (v / step).ceil() * step
}

/// A tick label: at most three significant digits, k/M suffixes for large numbers.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        // Enough decimals for three significant digits of small values: a decade of 0.0001
        // must not print as "0".
        let decimals = if x.abs() < 1.0 {
            (2 - x.abs().log10().floor() as i32).max(3) as usize
        } else {
            3
        };
        let s = format!("{x:.decimals$}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    format!("{text}{suffix}")
}

/// Values and the ends of their intervals: what a scale must cover.
fn with_intervals(marks: impl Iterator<Item = (f64, Option<(f64, f64)>)>) -> Vec<f64> {
    marks
        .flat_map(|(v, ci)| [Some(v), ci.map(|c| c.0), ci.map(|c| c.1)])
        .flatten()
        .collect()
}

/// One bar: a labelled value with its interval.
#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub ci: Option<(f64, f64)>,
    /// Colour / legend index.
    pub series: usize,
    /// Hover text (the exact figures).
    pub tooltip: String,
    /// The group the bar belongs to (a result id): consecutive bars of one group sit under its
    /// heading, their labels saying only what tells them apart.
    pub group: Option<String>,
}

/// Horizontal bars, one per row, sharing one value axis.
#[derive(Debug, Clone)]
pub struct BarChart {
    pub title: String,
    /// What every bar shares (params common to all), shown under the title.
    pub subtitle: String,
    pub axis_label: String,
    pub bars: Vec<Bar>,
    /// Names of the series (colours), shown as a legend when more than one is used.
    pub legend: Vec<String>,
}

impl BarChart {
    pub fn svg(&self) -> String {
        let values = with_intervals(self.bars.iter().map(|b| (b.value, b.ci)));
        let scale = Scale::covering(&values, 50.0);
        let longest = self
            .bars
            .iter()
            .map(|b| b.label.chars().count())
            .max()
            .unwrap_or(0);
        let label_w = (longest as f64 * CHAR_PX + 12.0).clamp(80.0, MAX_LABEL_W);
        let label_chars = ((label_w - 12.0) / CHAR_PX) as usize;
        let head = heading_height(&self.title, &self.subtitle);
        let top = head + 8.0 + legend_height(&self.legend);
        let plot_w = WIDTH - label_w - 30.0;
        let rows = bar_rows(&self.bars, label_chars, top);
        let bottom = rows.last().map_or(top, |r| r.y + r.height);
        let mut s = open_svg(bottom + 42.0, &self.title);
        title_text(&mut s, &self.title, &self.subtitle);
        legend(&mut s, &self.legend, head + 8.0);
        let x = |v: f64| label_w + scale.fraction(v) * plot_w;
        x_axis(
            &mut s,
            &scale,
            label_w,
            plot_w,
            top,
            bottom,
            &self.axis_label,
            scale.is_log(),
        );
        for row in &rows {
            let b = &self.bars[row.bar];
            if let Some(group) = &row.heading {
                let _ = write!(
                    s,
                    r#"<text class="group" x="8" y="{:.1}">{}</text>"#,
                    row.y - GROUP_HEADING + 15.0,
                    esc(group)
                );
            }
            label_text(
                &mut s,
                label_w - 6.0,
                row.y + row.height / 2.0,
                &row.lines,
                b.group.as_deref(),
            );
            let x0 = x(if scale.is_log() {
                scale.lo
            } else {
                0.0f64.max(scale.lo)
            });
            let x1 = x(b.value);
            let mid = row.y + row.height / 2.0;
            let _ = write!(
                s,
                r#"<rect class="bar" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}</title></rect>"#,
                x0.min(x1),
                mid - BAR_HEIGHT / 2.0,
                (x1 - x0).abs().max(1.0),
                BAR_HEIGHT,
                colour(b.series),
                esc(&b.tooltip)
            );
            if let Some((lo, hi)) = b.ci {
                whisker_h(&mut s, x(lo), x(hi), mid);
            }
        }
        s.push_str("</svg>");
        s
    }
}

/// The widest label column: longer labels wrap onto more lines.
const MAX_LABEL_W: f64 = 340.0;
/// One line of a label, and the least height of a bar's row.
const LINE: f64 = 14.0;
const ROW: f64 = 22.0;
const BAR_HEIGHT: f64 = 14.0;
/// The height of a group's heading above its first bar.
const GROUP_HEADING: f64 = 22.0;

/// Where one bar goes: its row (y, height), its label's lines, the heading above it.
struct BarRow {
    bar: usize,
    y: f64,
    height: f64,
    lines: Vec<String>,
    heading: Option<String>,
}

/// Rows for `bars` from `top` down: a label wraps at `label_chars`, its row grows with it; a
/// group's heading goes above its first bar, a gap after its last.
fn bar_rows(bars: &[Bar], label_chars: usize, top: f64) -> Vec<BarRow> {
    let mut y = top;
    let mut previous: Option<&str> = None;
    let mut rows = Vec::new();
    for (i, b) in bars.iter().enumerate() {
        let heading = match b.group.as_deref() {
            Some(g) if previous != Some(g) => Some(g.to_string()),
            _ => None,
        };
        if heading.is_some() {
            y += GROUP_HEADING;
        } else if previous.is_some() && b.group.is_none() {
            // A bar of its own after a group: a gap, so it does not read as the group's.
            y += GROUP_HEADING / 2.0;
        }
        previous = b.group.as_deref();
        let lines = wrap(&b.label, label_chars);
        let height = (lines.len() as f64 * LINE + 8.0).max(ROW);
        rows.push(BarRow {
            bar: i,
            y,
            height,
            lines,
            heading,
        });
        y += height;
    }
    rows
}

/// A right-aligned label of one or more lines, centred on `mid`; `group` marks which labels
/// must differ from each other (those of one group).
pub(super) fn label_text(s: &mut String, x: f64, mid: f64, lines: &[String], group: Option<&str>) {
    let first = mid - (lines.len() as f64 - 1.0) * LINE / 2.0 + 4.0;
    let group = group
        .map(|g| format!(r#" data-group="{}""#, esc(g)))
        .unwrap_or_default();
    let _ = write!(
        s,
        r#"<text class="label" x="{x:.1}" y="{first:.1}" text-anchor="end"{group}>"#
    );
    for (i, line) in lines.iter().enumerate() {
        let _ = write!(
            s,
            r#"<tspan x="{x:.1}" dy="{}">{}</tspan>"#,
            if i == 0 { 0.0 } else { LINE },
            esc(line)
        );
    }
    s.push_str("</text>");
}

/// `text` in lines of at most `max` characters, broken between words (a word longer than a
/// line is broken inside it): nothing is cut, so what tells two labels apart stays visible.
pub(super) fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(8);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > max {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..max).collect());
        }
        let word: String = word.into_iter().collect();
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// One point of a line, with the interval of its y and its hover text.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub ci: Option<(f64, f64)>,
    pub tooltip: String,
}

/// One line of points.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

/// Lines over a numeric x axis (e.g. time vs COUNT, MiB/s vs threads).
#[derive(Debug, Clone, Default)]
pub struct LineChart {
    pub title: String,
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Lines drawn dashed, without points, each in the colour of the series of its index (a
    /// model's prediction beside the measurement); named in their tooltips, not in the legend.
    pub dashed: Vec<Series>,
    /// On a log x axis, the x that stands for 0 (the caller draws its zeros there): its tick
    /// reads "0".
    pub zero_at: Option<f64>,
}

impl LineChart {
    pub fn svg(&self) -> String {
        let every = || self.series.iter().chain(&self.dashed);
        let xs: Vec<f64> = every().flat_map(|s| s.points.iter().map(|p| p.x)).collect();
        let points = every().flat_map(|s| s.points.iter());
        let ys = with_intervals(points.map(|p| (p.y, p.ci)));
        let xscale = Scale::covering(&xs, 20.0).with_zero_at(self.zero_at);
        let yscale = Scale::covering(&ys, 30.0);
        let head = heading_height(&self.title, &self.subtitle);
        let names: Vec<String> = self.series.iter().map(|x| x.name.clone()).collect();
        let top = head + 8.0 + legend_height(&names) + 14.0;
        let (left, plot_w, plot_h) = (70.0, WIDTH - 100.0, 260.0);
        let height = top + plot_h + 48.0;
        let mut s = open_svg(height, &self.title);
        title_text(&mut s, &self.title, &self.subtitle);
        legend(&mut s, &names, head + 8.0);
        let bottom = top + plot_h;
        x_axis(
            &mut s,
            &xscale,
            left,
            plot_w,
            top,
            bottom,
            &self.x_label,
            xscale.is_log(),
        );
        y_axis(&mut s, &yscale, left, plot_w, top, plot_h, &self.y_label);
        let px = |v: f64| left + xscale.fraction(v) * plot_w;
        let py = |v: f64| bottom - yscale.fraction(v) * plot_h;
        // A polyline through a series' points in order of x: (class, width, more attributes).
        let polyline = |s: &mut String, series: &Series, i: usize, style: (&str, &str, &str)| {
            let mut pts = series.points.clone();
            pts.sort_by(|a, b| a.x.total_cmp(&b.x));
            let path: Vec<String> = pts
                .iter()
                .map(|p| format!("{:.1},{:.1}", px(p.x), py(p.y)))
                .collect();
            let (class, width, more) = style;
            let _ = write!(
                s,
                r#"<polyline class="{class}" fill="none" stroke="{}" stroke-width="{width}"{more} points="{}"><title>{}</title></polyline>"#,
                colour(i),
                path.join(" "),
                esc(&series.name)
            );
            pts
        };
        for (i, line) in self.dashed.iter().enumerate() {
            let dashed = ("line predicted", "1.5", r#" stroke-dasharray="6 4""#);
            polyline(&mut s, line, i, dashed);
        }
        for (i, series) in self.series.iter().enumerate() {
            let pts = polyline(&mut s, series, i, ("line", "2", ""));
            for Point {
                x,
                y,
                ci,
                tooltip: tip,
            } in &pts
            {
                if let Some((lo, hi)) = ci {
                    whisker_v(&mut s, px(*x), py(*lo), py(*hi));
                }
                let _ = write!(
                    s,
                    r#"<circle class="point" cx="{:.1}" cy="{:.1}" r="3.5" fill="{}"><title>{}</title></circle>"#,
                    px(*x),
                    py(*y),
                    colour(i),
                    esc(tip)
                );
            }
        }
        s.push_str("</svg>");
        s
    }
}

pub(super) fn open_svg(height: f64, title: &str) -> String {
    format!(
        r#"<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0}" width="{WIDTH}" height="{height:.0}" role="img" aria-label="{}" font-size="{FONT_PX}">"#,
        esc(title)
    )
}

/// Characters of a title or subtitle line across the chart.
const HEADING_CHARS: usize = ((WIDTH - 16.0) / CHAR_PX) as usize;

/// Height taken by the title and the subtitle, each wrapped to the chart's width.
pub(super) fn heading_height(title: &str, subtitle: &str) -> f64 {
    let lines = |t: &str| {
        if t.is_empty() {
            0
        } else {
            wrap(t, HEADING_CHARS).len()
        }
    };
    6.0 + 16.0 * (lines(title) + lines(subtitle)) as f64
}

pub(super) fn title_text(s: &mut String, title: &str, subtitle: &str) {
    let mut y = 18.0;
    for (class, text) in [("title", title), ("subtitle", subtitle)] {
        if text.is_empty() {
            continue;
        }
        for line in wrap(text, HEADING_CHARS) {
            let _ = write!(
                s,
                r#"<text class="{class}" x="8" y="{y:.1}">{}</text>"#,
                esc(&line)
            );
            y += 16.0;
        }
    }
}

/// Where each legend entry goes: left to right, a new row before the right edge; an entry too
/// long for a row wraps its own text. `(x, row, lines)` per entry.
fn legend_layout(names: &[String]) -> Vec<(f64, usize, Vec<String>)> {
    let mut out = Vec::new();
    let (mut x, mut row) = (8.0, 0);
    let max_chars = ((WIDTH - 16.0 - 16.0) / CHAR_PX) as usize;
    for name in names {
        let lines = wrap(name, max_chars);
        let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let w = 16.0 + widest as f64 * CHAR_PX + 18.0;
        if x > 8.0 && x + w > WIDTH - 8.0 {
            x = 8.0;
            row += 1;
        }
        let height = lines.len();
        out.push((x, row, lines));
        x += w;
        row += height - 1;
        if height > 1 {
            x = WIDTH; // the next entry starts a row of its own
        }
    }
    out
}

/// Height of the legend of `names` (none for fewer than two).
pub(super) fn legend_height(names: &[String]) -> f64 {
    if names.len() < 2 {
        return 0.0;
    }
    let rows = legend_layout(names)
        .last()
        .map_or(0, |(_, row, lines)| row + lines.len());
    rows as f64 * LEGEND_ROW
}

const LEGEND_ROW: f64 = 18.0;

/// The legend of `names` from `y` down, every entry inside the chart's width.
pub(super) fn legend(s: &mut String, names: &[String], y: f64) {
    if names.len() < 2 {
        return;
    }
    for (i, (x, row, lines)) in legend_layout(names).into_iter().enumerate() {
        let top = y + row as f64 * LEGEND_ROW;
        let _ = write!(
            s,
            r#"<rect class="swatch" x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}"/>"#,
            top - 1.0,
            colour(i),
        );
        for (j, line) in lines.iter().enumerate() {
            let _ = write!(
                s,
                r#"<text class="legend" x="{:.1}" y="{:.1}">{}</text>"#,
                x + 16.0,
                top + 9.5 + j as f64 * LEGEND_ROW,
                esc(line)
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn x_axis(
    s: &mut String,
    scale: &Scale,
    left: f64,
    width: f64,
    top: f64,
    bottom: f64,
    label: &str,
    log: bool,
) {
    let _ = write!(
        s,
        r#"<line class="axis" x1="{left:.1}" y1="{bottom:.1}" x2="{:.1}" y2="{bottom:.1}"/>"#,
        left + width
    );
    for t in scale.ticks() {
        let x = left + scale.fraction(t) * width;
        let _ = write!(
            s,
            r#"<line class="grid" x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}"/><text class="tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            bottom + 15.0,
            scale.label(t)
        );
    }
    let _ = write!(
        s,
        r#"<text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">{}{}</text>"#,
        left + width / 2.0,
        bottom + 34.0,
        esc(label),
        if log { " (log scale)" } else { "" }
    );
}

fn y_axis(
    s: &mut String,
    scale: &Scale,
    left: f64,
    width: f64,
    top: f64,
    height: f64,
    label: &str,
) {
    let bottom = top + height;
    let _ = write!(
        s,
        r#"<line class="axis" x1="{left:.1}" y1="{top:.1}" x2="{left:.1}" y2="{bottom:.1}"/>"#
    );
    for t in scale.ticks() {
        let y = bottom - scale.fraction(t) * height;
        let _ = write!(
            s,
            r#"<line class="grid" x1="{left:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left + width,
            left - 5.0,
            y + 4.0,
            tick_label(t)
        );
    }
    let _ = write!(
        s,
        r#"<text class="axis-label" transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}{}</text>"#,
        top + height / 2.0,
        esc(label),
        if scale.is_log() { " (log)" } else { "" }
    );
}

pub(super) fn whisker_h(s: &mut String, x0: f64, x1: f64, y: f64) {
    let _ = write!(
        s,
        r#"<path class="ci" d="M{x0:.1} {:.1}V{:.1}M{x0:.1} {y:.1}H{x1:.1}M{x1:.1} {:.1}V{:.1}"/>"#,
        y - 4.0,
        y + 4.0,
        y - 4.0,
        y + 4.0
    );
}

fn whisker_v(s: &mut String, x: f64, y0: f64, y1: f64) {
    let _ = write!(
        s,
        r#"<path class="ci" d="M{:.1} {y0:.1}H{:.1}M{x:.1} {y0:.1}V{y1:.1}M{:.1} {y1:.1}H{:.1}"/>"#,
        x - 3.0,
        x + 3.0,
        x - 3.0,
        x + 3.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_positive_ranges_get_a_log_scale_of_whole_decades() {
        let s = Scale::covering(&[3.0, 40_000.0], 50.0);
        assert!(s.is_log());
        assert_eq!(
            s.ticks(),
            vec![1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0]
        );
        assert!((s.fraction(100.0) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn narrow_ranges_get_a_linear_scale_from_zero_with_round_ticks() {
        let s = Scale::covering(&[12.0, 87.0], 50.0);
        assert!(!s.is_log());
        assert_eq!(s.ticks(), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(s.fraction(50.0), 0.5);
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(20_000.0), "20k");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(3_000_000.0), "3M");
    }

    #[test]
    fn small_decades_are_not_zero() {
        let s = Scale::covering(&[0.000173, 1.89], 50.0);
        let labels: Vec<String> = s.ticks().into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0.0001", "0.001", "0.01", "0.1", "1", "10"]);
        assert_eq!(tick_label(0.00025), "0.00025");
    }

    /// The x of every legend swatch and the characters of its text line(s).
    fn legend_entries(svg: &str) -> Vec<(f64, usize)> {
        svg.split(r#"<rect class="swatch" x=""#)
            .skip(1)
            .map(|rest| {
                let x: f64 = rest.split('"').next().unwrap().parse().unwrap();
                let text = rest
                    .split(r#"class="legend""#)
                    .nth(1)
                    .and_then(|t| t.split('>').nth(1))
                    .and_then(|t| t.split('<').next())
                    .unwrap();
                (x, text.chars().count())
            })
            .collect()
    }

    #[test]
    fn a_long_legend_wraps_inside_the_chart_and_names_every_series() {
        let names: Vec<String> = (0..8)
            .map(|i| format!("cache=warm model=threads read_kib=128 reader=block-{i}"))
            .collect();
        let mut s = String::new();
        legend(&mut s, &names, 40.0);
        let entries = legend_entries(&s);
        assert_eq!(entries.len(), 8);
        for (x, chars) in entries {
            assert!(x + 16.0 + chars as f64 * CHAR_PX <= WIDTH, "{x} + {chars}");
        }
        for n in &names {
            assert!(s.contains(n.as_str()), "{n}");
        }
        assert!(legend_height(&names) >= 4.0 * LEGEND_ROW);
    }

    #[test]
    fn long_labels_wrap_and_keep_every_word() {
        let long =
            "server.keepalive connections=100 design=thread-per-connection placement=unpinned";
        assert_eq!(
            wrap(long, 30),
            [
                "server.keepalive",
                "connections=100",
                "design=thread-per-connection",
                "placement=unpinned"
            ]
        );
        assert_eq!(wrap("abcdefghijkl", 8), ["abcdefgh", "ijkl"]);
        let bar = |label: &str, group: Option<&str>| Bar {
            label: label.into(),
            value: 1.0,
            ci: None,
            series: 0,
            tooltip: String::new(),
            group: group.map(Into::into),
        };
        let chart = BarChart {
            title: "t".into(),
            subtitle: String::new(),
            axis_label: "µs".into(),
            bars: vec![
                bar(&format!("{long} a"), None),
                bar("design=prefork", Some("server.blocking · block_ms=10")),
                bar("design=epoll", Some("server.blocking · block_ms=10")),
            ],
            legend: vec![],
        };
        let svg = chart.svg();
        assert!(!svg.contains('…'));
        assert!(
            svg.contains(">design=thread-per-connection</tspan>"),
            "{svg}"
        );
        assert_eq!(svg.matches(r#"<text class="group""#).count(), 1);
        assert_eq!(
            svg.matches(r#"data-group="server.blocking · block_ms=10""#)
                .count(),
            2
        );
    }

    #[test]
    fn every_bar_carries_its_figures_and_labels_are_escaped() {
        let chart = BarChart {
            title: "a <b>".into(),
            subtitle: String::new(),
            axis_label: "µs".into(),
            bars: vec![Bar {
                label: "x & y".into(),
                value: 2.0,
                ci: Some((1.5, 2.5)),
                series: 0,
                tooltip: "2.00 µs [1.50, 2.50]".into(),
                group: None,
            }],
            legend: vec![],
        };
        let svg = chart.svg();
        assert!(svg.contains("<title>2.00 µs [1.50, 2.50]</title>"));
        assert!(svg.contains("x &amp; y") && svg.contains("a &lt;b&gt;"));
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 1);
        assert!(svg.contains("class=\"ci\""));
    }
}
