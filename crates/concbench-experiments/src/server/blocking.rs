//! `server.blocking` — scenario B (seed S2's experiment): scenario A plus a 10 ms blocking call
//! per request. Each design blocks its own way (sleep in threads and processes, a timer in
//! event loops, `tokio::time::sleep` in tokio, a sleep inside the loop for
//! `epoll-naive-blocking`), and each result carries its Little's-law ceiling.

use super::common::BLOCKING;
use super::steady::Steady;
use super::target::Target;
use concbench_core::{Meta, Stages};

static META: Meta = Meta {
    id: "server.blocking",
    family: "server",
    title: "Scenario B: 1000 keep-alive connections, 10 ms blocking call per request",
    op: "one request/response with a 10 ms blocking call (value: requests per second)",
    unit: "req/s",
    expected_switches_per_op: None,
};

pub fn variant(target: Target) -> Stages<Steady> {
    Steady::new(&META, target, Some(BLOCKING))
}
