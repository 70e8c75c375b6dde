//! Evidence from the kernel and the CPU, when the machine allows it: hardware counters (cycles,
//! instructions, TLB and last-level-cache misses) and the scheduler's tracepoints
//! (`sched:sched_switch`, `sched:sched_wakeup`), both through `perf_event_open` (the perf-event2
//! crate), counted on the CPUs a variant is pinned to.
//!
//! Either may be missing: a VM without a virtual PMU has no hardware counters, and CPU-wide
//! events need root or CAP_PERFMON (or `kernel.perf_event_paranoid` <= 0); tracepoints also need
//! tracefs mounted. Each then says why in one line ([`Unavailable`]), and callers report no
//! number at all — never a zero.
//!
//! * [`access`]: why an event cannot be opened, from the errno and the paranoid level.
//! * [`hardware`]: the counters, read around a sample and turned into per-operation figures.
//! * [`tracepoint`]: tracefs ids and formats, and the decoding of raw tracepoint records.
//! * [`sched`]: the tracer (per-CPU samplers) and what it yields — switches of the measured
//!   tasks and wake-up latencies.

pub mod access;
pub mod hardware;
pub mod sched;
pub mod tracepoint;

pub use access::Unavailable;
