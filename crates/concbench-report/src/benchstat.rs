//! `report --format benchstat`: the Go benchmark text format that `benchstat` reads, so two
//! runs' exports can be set side by side by the tool reviewers already paste from.
//!
//! Configuration lines first (`key: value`), then one line per round — benchstat's statistics
//! need every repetition, and a round (a fresh worker process) is concbench's:
//! `Benchmark<name>-<cpus> <operations per sample> <value> <unit>`. Times are written in
//! `ns/op`, the unit benchstat knows; other units as recorded.

use crate::bencher::benchmark_name;
use crate::Exporter;
use concbench_analysis::comparison::round_values;
use concbench_core::{human::seconds, ResultDoc};
use std::fmt::Write;

pub struct Benchstat;

/// A configuration value on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The unit of a line and the factor converting a value into it.
fn unit_of(unit: &str) -> (String, f64) {
    match seconds(1.0, unit) {
        Some(s) => ("ns/op".into(), s * 1e9),
        None => (unit.split_whitespace().collect::<Vec<_>>().join("_"), 1.0),
    }
}

/// `Benchmark` and the name with its first letter in upper case (Go's convention, which
/// benchstat's name parsing expects).
fn go_name(name: &str) -> String {
    let mut chars = name.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase());
    format!(
        "Benchmark{}{}",
        first.map(String::from).unwrap_or_default(),
        chars.as_str()
    )
}

impl Exporter for Benchstat {
    fn render(&self, doc: &ResultDoc) -> anyhow::Result<String> {
        let mut out = String::new();
        let h = &doc.host;
        writeln!(out, "goos: linux")?;
        writeln!(out, "arch: {}", one_line(&h.arch))?;
        writeln!(out, "pkg: concbench")?;
        writeln!(out, "cpu: {}", one_line(&h.cpu_model))?;
        writeln!(out, "host: {}", one_line(&h.hostname))?;
        writeln!(out, "kernel: {}", one_line(&h.kernel))?;
        writeln!(out, "concbench: {}", one_line(&doc.tool.version))?;
        let procs = h.logical_cpus.max(1);
        for e in &doc.results {
            let (unit, factor) = unit_of(&e.unit);
            let name = go_name(&benchmark_name(e));
            for v in round_values(e).into_iter().filter(|v| v.is_finite()) {
                writeln!(
                    out,
                    "{name}-{procs}\t{}\t{} {unit}",
                    e.iterations.max(1),
                    v * factor
                )?;
            }
        }
        Ok(out)
    }
}
