//! The probe protocol, version 1 (docs/PROBE_PROTOCOL.md): JSON lines over the probe's stdin
//! and stdout. The probe greets with a [`Hello`]; each [`Request`] gets one answer line.

use anyhow::{bail, Context, Result};
use concbench_core::Usage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The protocol version this harness speaks. A probe greeting with another version is refused.
pub const VERSION: u32 = 1;

/// What the harness asks: run `iterations` operations of experiment `id`.
#[derive(Debug, Serialize)]
pub struct Request<'a> {
    pub v: u32,
    pub id: &'a str,
    pub iterations: u64,
    pub args: &'a serde_json::Map<String, serde_json::Value>,
}

/// The probe's first line.
#[derive(Debug, Clone, Deserialize)]
pub struct Hello {
    pub v: u32,
    pub hello: String,
    pub runtime: String,
    /// The runtime's own version string (`go1.26.8 linux/amd64`, `CPython 3.11.7`, ...).
    pub version: String,
    /// The experiment ids this probe answers.
    pub experiments: Vec<String>,
}

/// Resource usage the probe read around its loop (its own process plus reaped children). A
/// field is absent when the runtime cannot read it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ProbeUsage {
    pub voluntary_switches: Option<f64>,
    pub involuntary_switches: Option<f64>,
    pub minor_faults: Option<f64>,
    pub major_faults: Option<f64>,
    pub user_ns: Option<f64>,
    pub sys_ns: Option<f64>,
}

impl ProbeUsage {
    /// Whether the probe could count context switches.
    pub fn has_switches(&self) -> bool {
        self.voluntary_switches.is_some()
    }

    /// As harness usage, scaled by `factor` (absent fields count as zero).
    pub fn scaled(&self, factor: f64) -> Usage {
        let f = |v: Option<f64>| v.unwrap_or(0.0) * factor;
        Usage {
            voluntary_switches: f(self.voluntary_switches),
            involuntary_switches: f(self.involuntary_switches),
            minor_faults: f(self.minor_faults),
            major_faults: f(self.major_faults),
            user_ns: f(self.user_ns),
            sys_ns: f(self.sys_ns),
        }
    }
}

/// A successful answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Nanoseconds per operation, timed by the probe around its own loop.
    pub ns_per_op: f64,
    /// Operations actually performed (a ping-pong rounds to whole round trips); 0 when the
    /// probe did not say, meaning: as many as asked.
    pub ops: u64,
    /// The result when it is not a time (KiB per unit), in the variant's unit.
    pub value: Option<f64>,
    pub usage: Option<ProbeUsage>,
    pub metrics: BTreeMap<String, f64>,
    /// Where a server the probe started listens (the `serve` experiment), on loopback.
    pub port: Option<u16>,
    /// Why a `hold` created fewer units than asked (the runtime's own error), when it did.
    pub stopped: Option<String>,
}

#[derive(Deserialize)]
struct Line {
    v: u32,
    ok: bool,
    error: Option<String>,
    ns_per_op: Option<f64>,
    ops: Option<u64>,
    value: Option<f64>,
    usage: Option<ProbeUsage>,
    #[serde(default)]
    metrics: BTreeMap<String, f64>,
    port: Option<u16>,
    stopped: Option<String>,
}

/// The start of `line` for error messages (a garbage line can be long).
pub fn excerpt(line: &str) -> String {
    const MAX: usize = 160;
    let line = line.trim_end();
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_string(),
    }
}

fn check_version(v: u32) -> Result<()> {
    if v != VERSION {
        bail!("it speaks protocol version {v}; this concbench speaks {VERSION} (rebuild the probe from this checkout)");
    }
    Ok(())
}

/// Parse the greeting line.
pub fn parse_hello(line: &str) -> Result<Hello> {
    let hello: Hello = serde_json::from_str(line).with_context(|| {
        format!(
            "its first line is not a protocol greeting: '{}'",
            excerpt(line)
        )
    })?;
    check_version(hello.v)?;
    if hello.hello != "concbench-probe" {
        bail!("its greeting names '{}', not concbench-probe", hello.hello);
    }
    Ok(hello)
}

/// Parse one answer line: a measurement, or the probe's own error as an `Err`.
pub fn parse_answer(line: &str) -> Result<Answer> {
    let a: Line = serde_json::from_str(line).with_context(|| {
        format!(
            "it answered something that is not a protocol line: '{}'",
            excerpt(line)
        )
    })?;
    check_version(a.v)?;
    if !a.ok {
        bail!(
            "it reported an error: {}",
            a.error.as_deref().unwrap_or("(no message)")
        );
    }
    let ns_per_op = a
        .ns_per_op
        .filter(|v| v.is_finite() && *v >= 0.0)
        .with_context(|| format!("its answer has no valid ns_per_op: '{}'", excerpt(line)))?;
    if let Some(v) = a.value.filter(|v| !v.is_finite()) {
        bail!("its answer has a value that is not a number: {v}");
    }
    Ok(Answer {
        ns_per_op,
        ops: a.ops.unwrap_or(0),
        value: a.value,
        usage: a.usage,
        metrics: a.metrics,
        port: a.port,
        stopped: a.stopped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_answer() {
        let a = parse_answer(
            r#"{"v":1,"ok":true,"ns_per_op":150.5,"ops":1000,"usage":{"voluntary_switches":998,"user_ns":1e6},"metrics":{"selftest_ns":800}}"#,
        )
        .unwrap();
        assert_eq!(a.ns_per_op, 150.5);
        assert_eq!(a.ops, 1000);
        let u = a.usage.unwrap();
        assert!(u.has_switches());
        let scaled = u.scaled(0.5);
        assert_eq!(scaled.voluntary_switches, 499.0);
        assert_eq!(scaled.sys_ns, 0.0);
        assert_eq!(a.metrics["selftest_ns"], 800.0);
    }

    #[test]
    fn a_server_answers_its_port() {
        let a =
            parse_answer(r#"{"v":1,"ok":true,"ns_per_op":2.5e7,"ops":1,"port":41737}"#).unwrap();
        assert_eq!(a.port, Some(41737));
        assert_eq!(a.ops, 1);
        assert!(parse_answer(r#"{"v":1,"ok":true,"ns_per_op":1,"port":70000}"#).is_err());
    }

    #[test]
    fn a_hold_that_stopped_short_says_why() {
        let a = parse_answer(
            r#"{"v":1,"ok":true,"ns_per_op":9e4,"ops":10,"metrics":{"created":10,"held":30010},"stopped":"OutOfMemoryError: unable to create native thread"}"#,
        )
        .unwrap();
        assert_eq!(a.metrics["created"], 10.0);
        assert!(a.stopped.unwrap().contains("native thread"));
        let plain = parse_answer(r#"{"v":1,"ok":true,"ns_per_op":1}"#).unwrap();
        assert_eq!(plain.stopped, None);
    }

    #[test]
    fn a_probe_error_is_an_error_with_its_message() {
        let e = parse_answer(r#"{"v":1,"ok":false,"error":"unknown experiment 'x'"}"#).unwrap_err();
        assert!(format!("{e:#}").contains("unknown experiment 'x'"), "{e:#}");
    }

    #[test]
    fn garbage_is_named_as_garbage() {
        for line in ["hello world", "{\"v\":1}", "", "[1,2]"] {
            let e = parse_answer(line).unwrap_err();
            assert!(
                format!("{e:#}").contains("not a protocol line"),
                "{line}: {e:#}"
            );
        }
        let e = parse_answer(r#"{"v":1,"ok":true,"ns_per_op":-3}"#).unwrap_err();
        assert!(format!("{e:#}").contains("no valid ns_per_op"), "{e:#}");
    }

    #[test]
    fn other_protocol_versions_are_refused() {
        let e = parse_answer(r#"{"v":2,"ok":true,"ns_per_op":1}"#).unwrap_err();
        assert!(format!("{e:#}").contains("protocol version 2"), "{e:#}");
        let e = parse_hello(
            r#"{"v":9,"hello":"concbench-probe","runtime":"go","version":"x","experiments":[]}"#,
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("version 9"), "{e:#}");
    }

    #[test]
    fn parses_a_greeting() {
        let h = parse_hello(
            r#"{"v":1,"hello":"concbench-probe","runtime":"c","version":"gcc 12","experiments":["ring"]}"#,
        )
        .unwrap();
        assert_eq!(h.version, "gcc 12");
        assert_eq!(h.experiments, ["ring"]);
        assert!(parse_hello("Picked up JAVA_TOOL_OPTIONS").is_err());
    }

    #[test]
    fn requests_serialise_as_one_line() {
        let args = serde_json::json!({"model": "thread"});
        let line = serde_json::to_string(&Request {
            v: VERSION,
            id: "create",
            iterations: 5,
            args: args.as_object().unwrap(),
        })
        .unwrap();
        assert_eq!(
            line,
            r#"{"v":1,"id":"create","iterations":5,"args":{"model":"thread"}}"#
        );
    }

    #[test]
    fn long_lines_are_cut_in_messages() {
        let long = "x".repeat(1000);
        assert!(excerpt(&long).len() < 200);
    }
}
