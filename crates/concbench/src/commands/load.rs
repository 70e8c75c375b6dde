//! `concbench load URL`: the load generator alone — a summary on stdout, the full report
//! (percentile spectrum, per-second timeline, errors by kind) with `--json`.
//!
//! It fails loudly: bad input (a CPU that does not exist — the check `serve` shares —, more
//! connections than descriptors, a window of no length) is refused before the first connect
//! (exit 2), and a run that measured no figure — no response at all, or fewer requests than
//! the minimum — is exit 1 with the reason, never a summary of zeros.

use crate::args::LoadArgs;
use crate::stdout::{errln, out};
use anyhow::anyhow;
use concbench_core::UsageError;
use concbench_load::{target, LoadConfig, LoadReport, Protocol, Rate, Shortfall};
use std::process::ExitCode;

/// Fewest measured requests that make a figure unless the user says otherwise: enough for a
/// rate and a median to mean something.
pub const DEFAULT_MIN_REQUESTS: u64 = 100;

pub fn load(args: LoadArgs) -> anyhow::Result<ExitCode> {
    let t = target::parse(&args.url, args.allow_remote)?;
    if t.port_assumed {
        errln!(
            "concbench: note: {} names no port: using port {}, HTTP's default",
            args.url,
            target::DEFAULT_PORT
        );
    }
    super::cpus::check_cpus("--cpus", &args.cpus)?;
    let minimum = min_requests(args.min_requests, args.requests)?;
    if let Some(path) = &args.json {
        crate::output::preflight::check_writable("--json", path)?;
    }
    let mut cfg = LoadConfig::new(t.addr);
    cfg.protocol = match args.stevens {
        Some(bytes) => Protocol::Stevens { bytes },
        None => Protocol::Http {
            host: t.host_header,
            path: t.path,
        },
    };
    cfg.per_request = args.stevens.is_some() || args.close;
    cfg.connections = args.connections;
    cfg.threads = args.threads;
    cfg.cpus = args.cpus;
    cfg.pipeline = args.pipeline;
    cfg.rate = args.rate.map(|per_second| Rate {
        per_second,
        poisson: args.poisson,
    });
    cfg.warmup = args.warmup;
    cfg.duration = args.duration;
    cfg.max_requests = args.requests;
    let report = concbench_load::run(cfg)?;
    if let Some(shortfall) = report.shortfall(minimum) {
        return Err(anyhow!("{shortfall}: {}", hint(&shortfall, &args.url)));
    }
    out!("{}", summary(&report));
    if let Some(path) = &args.json {
        crate::output::write_output("--json", path, &serde_json::to_string_pretty(&report)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The fewest measured requests this run needs: `--min-requests`, or the default capped by the
/// `--requests` budget (which can measure no more than itself).
fn min_requests(asked: Option<u64>, budget: Option<u64>) -> Result<u64, UsageError> {
    match (asked, budget) {
        (Some(min), Some(budget)) if min > budget => Err(UsageError::new(format!(
            "--min-requests {min} is more than the {budget} requests --requests allows: lower \
             one or raise the other"
        ))),
        (Some(min), _) => Ok(min),
        (None, budget) => Ok(budget.map_or(DEFAULT_MIN_REQUESTS, |b| b.min(DEFAULT_MIN_REQUESTS))),
    }
}

/// What the user can do about a run that measured no figure.
fn hint(shortfall: &Shortfall, url: &str) -> String {
    match shortfall {
        Shortfall::NoResponse { .. } => format!(
            "is a server listening at {url}? (`concbench serve epoll` starts one on loopback)"
        ),
        Shortfall::EmptyWindow { .. } => "give -d a positive duration".into(),
        Shortfall::TooFew { .. } => {
            "measure longer (-d), or accept fewer with --min-requests N".into()
        }
    }
}

fn summary(r: &LoadReport) -> String {
    let mut s = format!(
        "{} connections ({}) to {}, {} thread(s), {:.2} s measured after {:.2} s warm-up\n\
         requests/s: {:.0}  ({} requests)\n",
        r.connections,
        r.mode,
        r.target,
        r.threads,
        r.duration_s,
        r.warmup_s,
        r.requests_per_second,
        r.requests
    );
    for (name, l) in [
        ("corrected  ", &r.latency_corrected),
        ("uncorrected", &r.latency_uncorrected),
    ] {
        let us = concbench_core::human::micros;
        s += &format!(
            "latency {name}: p50 {}  p90 {}  p99 {}  p99.9 {}  p99.99 {}  max {}\n",
            us(l.p50_us),
            us(l.p90_us),
            us(l.p99_us),
            us(l.p999_us),
            us(l.p9999_us),
            us(l.max_us)
        );
    }
    s += &format!(
        "connections: {} established of {} requested, {} never served\n",
        r.connections_established, r.connections_requested, r.connections_unserved
    );
    if r.errors_total > 0 {
        let kinds: Vec<String> = r.errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
        s += &format!(
            "errors: {} ({}); requests lost: {}\n",
            r.errors_total,
            kinds.join(", "),
            r.requests_lost
        );
    }
    s += &format!("client CPU: {:.0}% busy", r.client_cpu_busy * 100.0);
    if r.client_bound() {
        s += " (client-bound: add --threads on other CPUs)";
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_is_capped_by_the_budget_unless_asked_above_it() {
        assert_eq!(min_requests(None, None).unwrap(), DEFAULT_MIN_REQUESTS);
        assert_eq!(min_requests(None, Some(10)).unwrap(), 10);
        assert_eq!(
            min_requests(None, Some(5000)).unwrap(),
            DEFAULT_MIN_REQUESTS
        );
        assert_eq!(min_requests(Some(3), None).unwrap(), 3);
        assert_eq!(min_requests(Some(3), Some(10)).unwrap(), 3);
        assert!(min_requests(Some(30), Some(10)).is_err());
    }
}
