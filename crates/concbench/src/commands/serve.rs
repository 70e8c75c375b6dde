//! `concbench serve DESIGN`: one server design in the foreground, on loopback by default.

use crate::args::ServeArgs;
use crate::stdout::outln;
use concbench_core::UsageError;
use concbench_server::{Design, Handler, ServerConfig};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let design = Design::from_name(&args.design).ok_or_else(|| {
        let names: Vec<&str> = Design::ALL.iter().map(|d| d.name()).collect();
        UsageError::new(format!(
            "unknown design '{}'; choose one of: {}",
            args.design,
            names.join(", ")
        ))
    })?;
    let mut config = ServerConfig::new(design);
    config.bind = SocketAddr::new(args.bind, args.port);
    config.workers = args.workers as usize;
    config.cpus = args.cpus;
    config.handler = Handler {
        blocking: (args.blocking_ms > 0).then(|| Duration::from_millis(args.blocking_ms)),
        allow_crash: args.allow_crash,
    };
    concbench_server::serve_foreground(&config, move |addr, note| {
        let note = if note.is_empty() {
            String::new()
        } else {
            format!(" ({note})")
        };
        // Printed once, flushed at once: scripts wait for this line to learn the port.
        outln!("concbench: serving {design} on {addr}{note}");
    })?;
    Ok(ExitCode::SUCCESS)
}
