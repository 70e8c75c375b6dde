//! `concbench load URL`: the load generator alone — a summary on stdout, the full report
//! (percentile spectrum, per-second timeline, errors by kind) with `--json`.

use crate::args::LoadArgs;
use crate::stdout::out;
use concbench_load::{target, LoadConfig, LoadReport, Protocol, Rate};
use std::process::ExitCode;

pub fn load(args: LoadArgs) -> anyhow::Result<ExitCode> {
    let t = target::parse(&args.url, args.allow_remote)?;
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
    out!("{}", summary(&report));
    if let Some(path) = &args.json {
        crate::output::write_output("--json", path, &serde_json::to_string_pretty(&report)?)?;
    }
    Ok(ExitCode::SUCCESS)
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
        s += &format!(
            "latency {name} (us): p50 {:.0}  p90 {:.0}  p99 {:.0}  p99.9 {:.0}  p99.99 {:.0}  max {:.0}\n",
            l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.p9999_us, l.max_us
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
