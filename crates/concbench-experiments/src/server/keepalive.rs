//! `server.keepalive` — scenario A (seed S2 without blocking): 1000 keep-alive connections in a
//! closed loop, a tiny response (13 bytes of body). Requests/s per design, with latency, server
//! CPU and switches per request, memory per connection and starved connections as counters.

use super::steady::Steady;
use super::target::Target;
use concbench_core::{Meta, Stages};

static META: Meta = Meta {
    id: "server.keepalive",
    family: "server",
    title: "Scenario A: 1000 keep-alive connections, tiny response",
    op: "one request/response on a keep-alive connection (value: requests per second)",
    unit: "req/s",
    expected_switches_per_op: None,
};

pub fn variant(target: Target) -> Stages<Steady> {
    Steady::new(&META, target, None)
}
