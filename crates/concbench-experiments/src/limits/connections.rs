//! `limits.connections`: how many TCP connections a server holds at once on one IP address —
//! seed S2 says 65,535: 「本地的最大HTTP连接数为: 本地最大端口数65535 * 本地ip数1」, the local
//! side being the server (its next line calls the remote side 「远端(客户端)」, the client). A
//! connection is named by four things (local address and port, remote address and port) and only
//! the four together must be unique, so one server address and port serve a connection to each
//! remote endpoint: every connection here goes to one listener, 127.0.0.1 and one port, from
//! clients on other loopback addresses (127.0.0.2, .3, ...: Linux answers the whole 127/8 on
//! `lo`, no alias to configure), until more than 65,535 are established and accepted at once.
//!
//! Safe limits first: descriptors (each connection is two sockets here, client and accepted),
//! the ephemeral port range (one client address takes at most that many ports towards one
//! server), the connection-tracking table, the system's file table and memory are checked before
//! anything is opened, and the variant is skipped with the reason when they do not allow the
//! target. Helper processes (sandboxes: they die with the worker) share the server's one
//! listener: each connects its share from its own client address and accepts as many from the
//! listener, within its own descriptor limit; they report, then hold until the worker has heard
//! from all of them, so the count is of connections open at once. Client sockets close with an
//! RST (`SO_LINGER` 0): nothing is left in TIME_WAIT.

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
/// `params.side`: whose address the connections are counted at — `server`, the seed's local
/// side (one address and port, every client elsewhere).
pub const PARAM_SIDE: &str = "side";
/// The counter: the most connections any one of the server's local ports carried (1 if ports
/// bounded them).
pub const METRIC_PER_PORT: &str = "max_per_local_port";

const META: Meta = Meta {
    id: ID,
    family: "limits",
    title: "How many TCP connections a server holds at once on one IP address and port (loopback, \
            safe limits)",
    op: "open connections to one listener, 127.0.0.1 and one port, from clients on other \
         loopback addresses, all accepted and held at once; the count",
    unit: "connections",
    expected_switches_per_op: None,
};

/// Just past seed S2's 65,535: enough to show the bound is not there.
pub const TARGET: u64 = 70_000;
/// Smoke runs prove the code path with a handful, from several client addresses.
const SMOKE_TARGET: u64 = 300;
const SMOKE_HELPERS: usize = 3;
/// The server's one address (its port is the kernel's choice).
const SERVER_IP: Ipv4Addr = Ipv4Addr::LOCALHOST;
/// The listener's backlog: helpers accept as they connect, so it only absorbs bursts.
const BACKLOG: i32 = 4096;

/// The loopback address helper `i`'s clients connect from (127.0.0.2, 127.0.0.3, ...).
fn client_ip(i: usize) -> Ipv4Addr {
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
        Params::new()
            .with(PARAM_TARGET, TARGET)
            .with(PARAM_SIDE, "server")
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
        let mut layout = plan(target(ctx), &Limits::read(&ctx.host)).map_err(anyhow::Error::msg)?;
        if ctx.smoke {
            layout.helpers = layout.helpers.max(SMOKE_HELPERS);
        }
        let held = hold_all(ctx, &layout)?;
        if held.server_endpoints != 1 {
            bail!(
                "the server's accepted connections had {} local addresses and ports, not one",
                held.server_endpoints
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
        .metric("server_addresses", 1.0)
        .metric("client_addresses", held.client_ips as f64)
        .metric("helpers", layout.helpers as f64)
        .metric("ephemeral_ports", layout.ephemeral_ports as f64))
    }
}

/// What the helpers held at once, together.
#[derive(Debug, Default)]
struct Held {
    connections: u64,
    /// The most connections one of the server's (address, port) pairs carried.
    max_per_port: u64,
    /// Distinct (address, port) pairs the server's accepted connections were on.
    server_endpoints: usize,
    client_ips: usize,
}

/// The server's listener: one address, one port, a backlog wide enough for the helpers' bursts.
fn listen() -> Result<TcpListener> {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    s.bind(&SocketAddr::from((SERVER_IP, 0)).into())
        .with_context(|| format!("listening on {SERVER_IP} (loopback)"))?;
    s.listen(BACKLOG)?;
    Ok(s.into())
}

/// Start every helper on the server's one listener, read each one's report, and only then let
/// them all go (dropping the sandboxes kills them): every count was open at the same time.
fn hold_all(ctx: &RunContext, layout: &Layout) -> Result<Held> {
    let listener = listen()?;
    let mut helpers: Vec<Sandbox> = Vec::with_capacity(layout.helpers);
    let mut per_endpoint: BTreeMap<String, u64> = BTreeMap::new();
    let mut client_ips: BTreeSet<String> = BTreeSet::new();
    let mut held = Held::default();
    for i in 0..layout.helpers {
        let n = layout.per_helper(i);
        let nofile = layout.nofile;
        // The helper is a fork: it gets its own descriptor of the one listening socket.
        let shared = listener.try_clone().context("sharing the listener")?;
        helpers.push(sandbox::spawn(move |rep| {
            helper(rep, shared, client_ip(i), n, nofile)
        })?);
    }
    // The helpers hold the listener now; the worker accepts nothing.
    drop(listener);
    for (i, h) in helpers.iter_mut().enumerate() {
        loop {
            let line = h
                .next_line(ctx)?
                .with_context(|| format!("helper {i} ended before reporting"))?;
            let mut words = line.split(' ');
            match (words.next(), words.next(), words.next()) {
                (Some("server"), Some(at), Some(c)) => {
                    *per_endpoint.entry(at.to_string()).or_default() += c.parse::<u64>()?
                }
                (Some("client"), Some(ip), None) => {
                    client_ips.insert(ip.to_string());
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
    held.max_per_port = per_endpoint.values().copied().max().unwrap_or(0);
    held.server_endpoints = per_endpoint.len();
    held.client_ips = client_ips.len();
    drop(helpers);
    Ok(held)
}

/// One helper's life: `n` connections from its own loopback address `from` to the server's
/// listener, and `n` of the server's connections accepted from it (whichever client made them:
/// every helper accepts from the one listener, and the shares add up to the target), the
/// addresses reported, then hold until killed.
fn helper(
    rep: sandbox::Reporter,
    listener: TcpListener,
    from: Ipv4Addr,
    n: u64,
    nofile: u64,
) -> Result<()> {
    super::connections_plan::raise_nofile(nofile)?;
    let server = listener.local_addr()?;
    // Accept while this thread connects: the backlog is far smaller than the share.
    let accepter = std::thread::spawn(move || -> Result<Vec<TcpStream>> {
        (0..n)
            .map(|_| Ok(listener.accept().context("accept")?.0))
            .collect()
    });
    let mut clients: Vec<TcpStream> = Vec::with_capacity(n as usize);
    for k in 0..n {
        let c = connect_from(from, server)
            .with_context(|| format!("connection {} of {n} from {from} to {server}", k + 1))?;
        socket2::SockRef::from(&c).set_linger(Some(Duration::ZERO))?;
        clients.push(c);
    }
    let accepted = accepter
        .join()
        .map_err(|_| anyhow::anyhow!("the accepting thread panicked"))??;
    let mut per_endpoint: BTreeMap<SocketAddr, u64> = BTreeMap::new();
    for a in &accepted {
        *per_endpoint.entry(a.local_addr()?).or_default() += 1;
    }
    rep.line(&format!("client {from}"))?;
    for (at, count) in &per_endpoint {
        rep.line(&format!("server {at} {count}"))?;
    }
    rep.line(&format!("held {}", accepted.len()))?;
    // Hold everything open until the worker, having heard from every helper, kills us.
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// A client connection from `from`: bound to the address only (`IP_BIND_ADDRESS_NO_PORT`), so
/// the kernel picks the port at `connect`, where only the four-tuple must be unique.
fn connect_from(from: Ipv4Addr, to: SocketAddr) -> Result<TcpStream> {
    use socket2::{Domain, Socket, Type};
    use std::os::fd::AsRawFd;
    let s = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    let yes: libc::c_int = 1;
    // SAFETY: setsockopt reads one c_int from a valid pointer of the length given, on a socket
    // this function owns.
    let rc = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_BIND_ADDRESS_NO_PORT,
            (&yes as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error()).context("IP_BIND_ADDRESS_NO_PORT");
    }
    s.bind(&SocketAddr::from((from, 0)).into())
        .with_context(|| format!("binding a client to {from}"))?;
    s.connect(&to.into())?;
    Ok(s.into())
}
