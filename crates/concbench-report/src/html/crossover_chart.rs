//! The crossover chart: requests/s against the blocking time per request, one chart per CPU cost,
//! a line per design — measured points with their intervals, and `advise`'s prediction dashed in
//! the same colour.

use super::chart::{LineChart, Point, Series};
use super::charts::Figure;
use crate::answer::thousands;
use concbench_analysis::sweep::{block_text, cpu_text};
use concbench_core::crossover::{Crossover, SweepPoint};

/// Where a blocking time of 0 is drawn on the log axis: a decade below the sweep's 0.1 ms.
const ZERO_MS: f64 = 0.01;

fn x_of(p: &SweepPoint) -> f64 {
    if p.block_us == 0.0 {
        ZERO_MS
    } else {
        p.block_us / 1000.0
    }
}

/// The design labels in the order the sweep measured them.
fn labels(points: &[&SweepPoint]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for p in points {
        if !v.contains(&p.label) {
            v.push(p.label.clone());
        }
    }
    v
}

fn tooltip(p: &SweepPoint) -> String {
    let interval = match p.measured_ci {
        Some([lo, hi]) => format!("95% CI [{}, {}]", thousands(lo), thousands(hi)),
        None => format!(
            "{} round(s), {}–{} (no 95% interval)",
            p.rounds,
            thousands(p.measured_range[0]),
            thousands(p.measured_range[1])
        ),
    };
    let predicted = p.predicted_rps.map_or(String::new(), |r| {
        format!("; predicted {} req/s", thousands(r))
    });
    format!(
        "{}, {} blocking: {} req/s, {interval}{predicted}",
        p.label,
        block_text(p.block_us),
        thousands(p.measured_rps)
    )
}

/// One chart per CPU cost.
pub fn charts(c: &Crossover) -> Vec<Figure> {
    let mut cpus: Vec<f64> = c.points.iter().map(|p| p.cpu_us).collect();
    cpus.sort_by(f64::total_cmp);
    cpus.dedup();
    cpus.into_iter()
        .map(|cpu| {
            let points: Vec<&SweepPoint> = c.points.iter().filter(|p| p.cpu_us == cpu).collect();
            let names = labels(&points);
            let of = |label: &str| -> Vec<&SweepPoint> {
                points
                    .iter()
                    .copied()
                    .filter(|p| p.label == label)
                    .collect()
            };
            let series = names
                .iter()
                .map(|name| Series {
                    name: name.clone(),
                    points: of(name)
                        .into_iter()
                        .map(|p| Point {
                            x: x_of(p),
                            y: p.measured_rps,
                            ci: p.measured_ci.map(|[lo, hi]| (lo, hi)),
                            tooltip: tooltip(p),
                        })
                        .collect(),
                })
                .collect();
            let dashed = names
                .iter()
                .map(|name| Series {
                    name: format!("{name}: advise's prediction"),
                    points: of(name)
                        .into_iter()
                        .filter_map(|p| {
                            Some(Point {
                                x: x_of(p),
                                y: p.predicted_rps?,
                                ci: None,
                                tooltip: String::new(),
                            })
                        })
                        .collect(),
                })
                .collect();
            let chart = LineChart {
                title: format!(
                    "Requests/s against blocking time per request, {} of CPU per request",
                    cpu_text(cpu)
                ),
                subtitle: "1000 keep-alive connections; points: measured (median, 95% CI); \
                           dashed: advise's prediction; 0 is drawn at 0.01 ms"
                    .into(),
                x_label: "blocking time per request (ms)".into(),
                y_label: "requests/s".into(),
                series,
                dashed,
                zero_at: Some(ZERO_MS),
            };
            Figure {
                family: "server".into(),
                caption: format!(
                    "Where a line falls below coroutines' is where that design stops keeping up \
                     at {} of CPU per request; a dashed line far from its points is where \
                     advise's model is off. Hover a point for its figures.",
                    cpu_text(cpu)
                ),
                svg: chart.svg(),
            }
        })
        .collect()
}
