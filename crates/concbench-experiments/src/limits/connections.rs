//! `limits.connections`: how many TCP connections one local IP address can hold at once — seed
//! S2 says 65,535, "the number of its ports". A connection is named by four things (local
//! address and port, remote address and port) and only the four together must be unique, so one
//! local port can serve a connection to each remote endpoint. On loopback: every client socket
//! connects from 127.0.0.1 (the kernel picks its port at `connect`, reusing a port for another
//! destination) to one of several listeners on other loopback addresses (127.0.0.2, .3, ...),
//! until more than 65,535 connections are established at the same time.
//!
//! Safe limits first: descriptors (each connection is two sockets here, client and accepted),
//! the ephemeral port range (a listener takes at most that many from one local address), the
//! connection-tracking table, the system's file table and memory are checked before anything is
//! opened, and the variant is skipped with the reason when they do not allow the target. Helper
//! processes (sandboxes: they die with the worker) each hold one listener and its connections,
//! within their own descriptor limit; they report, then hold until the worker has heard from
//! all of them, so the count is of connections open at once. Client sockets close with an RST
//! (`SO_LINGER` 0): nothing is left in TIME_WAIT.

use super::connections_plan::{plan, Limits, Plan as Layout};
use crate::support::sandbox::{self, Sandbox};
use anyhow::{bail, Context, Result};
use concbench_core::{
    Experiment, Host, Meta, Params, Plan, RunContext, RunOutput, SampleTimer, Support,
};
use std::collections::{BTreeMap, BTreeSet};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

pub const ID: &str = "limits.connections";
/// `params.target`: the connections to hold at once.
pub const PARAM_TARGET: &str = "target";
/// The counter: the most connections any one local port carried (1 if ports bounded them).
pub const METRIC_PER_PORT: &str = "max_per_local_port";

const META: Meta = Meta {
    id: ID,
    family: "limits",
    title: "How many TCP connections one local IP address holds at once (loopback, safe limits)",
    op: "open connections from 127.0.0.1 to listeners on other loopback addresses, all at once; \
         the count",
    unit: "connections",
    expected_switches_per_op: None,
};

/// Just past seed S2's 65,535: enough to show the bound is not there.
pub const TARGET: u64 = 70_000;
/// Smoke runs prove the code path with a handful.
const SMOKE_TARGET: u64 = 300;

/// The loopback address of listener `i` (127.0.0.2, 127.0.0.3, ...).
fn listener_ip(i: usize) -> Ipv4Addr {
    let n = 2 + i as u32;
    Ipv4Addr::new(127, 0, (n >> 8) as u8, (n & 0xff) as u8)
}

#[derive(Default)]
pub struct Connections;

fn target(ctx: &RunContext) -> u64 {
    if ctx.smoke {
        SMOKE_TARGET
    } else {
        TARGET
    }
}

impl Experiment for Connections {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new().with(PARAM_TARGET, TARGET)
    }

    /// Seventy thousand connections take seconds and half a GiB of kernel memory: full runs.
    fn in_quick(&self) -> bool {
        false
    }

    fn supported(&self, host: &Host) -> Support {
        match plan(TARGET, &Limits::read(host)) {
            Ok(_) => Support::Yes,
            Err(reason) => Support::No(reason),
        }
    }

    /// A count that reaches its target does not vary: one sample per round.
    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        _iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let layout = plan(target(ctx), &Limits::read(&ctx.host)).map_err(anyhow::Error::msg)?;
        let held = hold_all(ctx, &layout)?;
        if held.local_ips != 1 {
            bail!(
                "the client sockets got {} local addresses, not one: this loopback does not \
                 give 127.0.0.1 as the source for other 127/8 addresses",
                held.local_ips
            );
        }
        if held.connections < layout.target {
            bail!(
                "{} connections held, not {}: a limit was reached below the target",
                held.connections,
                layout.target
            );
        }
        Ok(RunOutput {
            value: Some(held.connections as f64),
            ..RunOutput::default()
        }
        .metric(METRIC_PER_PORT, held.max_per_port as f64)
        .metric("local_ports", held.ports as f64)
        .metric("local_addresses", held.local_ips as f64)
        .metric("listeners", layout.helpers as f64)
        .metric("ephemeral_ports", layout.ephemeral_ports as f64))
    }
}

/// What the helpers held at once, together.
#[derive(Debug, Default)]
struct Held {
    connections: u64,
    max_per_port: u64,
    ports: usize,
    local_ips: usize,
}

/// Start every helper, read each one's report, and only then let them all go (dropping the
/// sandboxes kills them): every count was open at the same time.
fn hold_all(ctx: &RunContext, layout: &Layout) -> Result<Held> {
    let mut helpers: Vec<Sandbox> = Vec::with_capacity(layout.helpers);
    let mut per_port: BTreeMap<u16, u64> = BTreeMap::new();
    let mut ips: BTreeSet<String> = BTreeSet::new();
    let mut held = Held::default();
    for i in 0..layout.helpers {
        let n = layout.per_helper(i);
        let nofile = layout.nofile;
        helpers.push(sandbox::spawn(move |rep| {
            helper(rep, listener_ip(i), n, nofile)
        })?);
    }
    for (i, h) in helpers.iter_mut().enumerate() {
        loop {
            let line = h
                .next_line(ctx)?
                .with_context(|| format!("helper {i} ended before reporting"))?;
            let mut words = line.split(' ');
            match (words.next(), words.next(), words.next()) {
                (Some("port"), Some(p), Some(c)) => {
                    *per_port.entry(p.parse()?).or_default() += c.parse::<u64>()?
                }
                (Some("ip"), Some(ip), None) => {
                    ips.insert(ip.to_string());
                }
                (Some("held"), Some(n), None) => {
                    held.connections += n.parse::<u64>()?;
                    break;
                }
                (Some("error"), _, _) => bail!("helper {i}: {}", &line[6..]),
                _ => bail!("helper {i}: unexpected line {line:?}"),
            }
        }
    }
    held.max_per_port = per_port.values().copied().max().unwrap_or(0);
    held.ports = per_port.len();
    held.local_ips = ips.len();
    drop(helpers);
    Ok(held)
}

/// One helper's life: a listener on `ip`, `n` connections to it from 127.0.0.1 (each accepted
/// at once), the client ports and addresses reported, then hold until killed.
fn helper(rep: sandbox::Reporter, ip: Ipv4Addr, n: u64, nofile: u64) -> Result<()> {
    super::connections_plan::raise_nofile(nofile)?;
    let listener =
        TcpListener::bind((ip, 0)).with_context(|| format!("listening on {ip} (loopback)"))?;
    let addr = listener.local_addr()?;
    let mut clients: Vec<TcpStream> = Vec::with_capacity(n as usize);
    let mut accepted: Vec<TcpStream> = Vec::with_capacity(n as usize);
    for k in 0..n {
        let c = connect_from_client(addr)
            .with_context(|| format!("connection {} of {n} to {addr}", k + 1))?;
        socket2::SockRef::from(&c).set_linger(Some(Duration::ZERO))?;
        clients.push(c);
        accepted.push(listener.accept().context("accept")?.0);
    }
    let mut per_port: BTreeMap<u16, u64> = BTreeMap::new();
    let mut ips: BTreeSet<std::net::IpAddr> = BTreeSet::new();
    for c in &clients {
        let local = c.local_addr()?;
        *per_port.entry(local.port()).or_default() += 1;
        ips.insert(local.ip());
    }
    for ip in &ips {
        rep.line(&format!("ip {ip}"))?;
    }
    for (port, count) in &per_port {
        rep.line(&format!("port {port} {count}"))?;
    }
    rep.line(&format!("held {}", clients.len()))?;
    // Hold everything open until the worker, having heard from every helper, kills us.
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// A connection from an unbound socket: the kernel gives it loopback's source address
/// (127.0.0.1, checked in the report) and a port at `connect`, which may reuse a port already
/// serving another destination — the four-tuple is what must be unique. (A `bind` to a port
/// would claim the port for every destination.)
fn connect_from_client(to: SocketAddr) -> std::io::Result<TcpStream> {
    TcpStream::connect(to)
}
