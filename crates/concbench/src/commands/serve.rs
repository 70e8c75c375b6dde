//! `concbench serve DESIGN`: one server design until Ctrl-C, SIGTERM or SIGHUP, on loopback by
//! default.
//!
//! The design runs in a server process of its own (`concbench_server::start`, as in the server
//! family) and this process waits for a signal. Its handlers are installed explicitly: a shell
//! script starts background jobs with SIGINT ignored, and Ctrl-C must still stop the server.
//! Stopping ends the server's whole process group (its pool and every child).

use crate::args::ServeArgs;
use crate::stdout::{errln, outln};
use anyhow::{Context, Result};
use concbench_core::UsageError;
use concbench_server::{Design, Handler, RunningServer, ServerConfig};
use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitCode, ExitStatus};
use std::time::Duration;

pub fn serve(args: ServeArgs) -> Result<ExitCode> {
    let design = Design::from_name(&args.design).ok_or_else(|| {
        let names: Vec<&str> = Design::ALL.iter().map(|d| d.name()).collect();
        UsageError::new(format!(
            "unknown design '{}'; choose one of: {}",
            args.design,
            names.join(", ")
        ))
    })?;
    super::cpus::check_cpus("--cpus", &args.cpus)?;
    if !args.bind.is_loopback() {
        errln!(
            "concbench: warning: --bind {}: not a loopback address, so other machines can reach \
             this server; it has no authentication{}",
            args.bind,
            if args.allow_crash {
                ", and --allow-crash lets any of them crash it"
            } else {
                ""
            }
        );
    }
    let mut config = ServerConfig::new(design);
    config.bind = SocketAddr::new(args.bind, args.port);
    config.workers = args.workers as usize;
    config.cpus = args.cpus;
    let blocking = match args.blocking_us {
        Some(us) => Duration::from_micros(us),
        None => Duration::from_millis(args.blocking_ms),
    };
    config.handler = Handler {
        blocking: (!blocking.is_zero()).then_some(blocking),
        cpu: (args.cpu_us > 0).then(|| Duration::from_micros(args.cpu_us)),
        allow_crash: args.allow_crash,
    };
    let server = concbench_server::start(&config).map_err(|e| explain_start(e, &config))?;
    // After the fork (the server process keeps its own handlers) and before the line below:
    // whoever reads the port may signal at once.
    let signals =
        Signals::new([SIGINT, SIGTERM, SIGHUP, SIGCHLD]).context("installing signal handlers")?;
    let note = match server.note() {
        "" => String::new(),
        n => format!(" ({n})"),
    };
    // Scripts wait for this line to learn the port.
    outln!("concbench: serving {design} on {}{note}", server.addr());
    wait_for_stop(server, signals, design)
}

/// Block until a stopping signal (then stop the server: exit 0) or the server's own end (exit 1).
fn wait_for_stop(
    mut server: RunningServer,
    mut signals: Signals,
    design: Design,
) -> Result<ExitCode> {
    let mut stop_signal = None;
    // Checked first too: the server may have ended before SIGCHLD had a handler.
    if server.alive() {
        for signal in signals.forever() {
            if signal != SIGCHLD {
                stop_signal = Some(signal);
                break;
            }
            if !server.alive() {
                break;
            }
        }
    }
    let Some(signal) = stop_signal else {
        let status = server.exit_status().map(ExitStatus::from_raw);
        return Err(anyhow::anyhow!(
            "the {design} server ended by itself ({}); its error, if any, is above",
            status.map_or("status unknown".to_string(), |s| s.to_string())
        ));
    };
    server.stop().context("stopping the server")?;
    errln!(
        "concbench: stopped the {design} server ({})",
        signal_hook::low_level::signal_name(signal).unwrap_or("signal")
    );
    Ok(ExitCode::SUCCESS)
}

/// Starting failures the user can fix, as usage errors naming the flag: a port in use or
/// reserved, an address this machine does not have.
fn explain_start(err: anyhow::Error, config: &ServerConfig) -> anyhow::Error {
    let Some(kind) = err
        .chain()
        .find_map(|e| e.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind)
    else {
        return err;
    };
    let (port, ip) = (config.bind.port(), config.bind.ip());
    let fix = match kind {
        ErrorKind::AddrInUse => format!(
            "--port: port {port} on {ip} is in use (another server listens there); pass another \
             --port, or --port 0 for a free one (printed when serving)"
        ),
        ErrorKind::PermissionDenied => format!(
            "--port: port {port} needs privileges (ports below 1024 are reserved); pass a port \
             from 1024 up, or --port 0 for a free one"
        ),
        ErrorKind::AddrNotAvailable => format!(
            "--bind: {ip} is not an address of this machine; pass one of its addresses, or leave \
             --bind out for 127.0.0.1"
        ),
        _ => return err,
    };
    UsageError::new(format!("{fix} ({err:#})")).into()
}
