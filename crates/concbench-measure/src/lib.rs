//! Measurement: the only crate in concbench that reads clocks.
//!
//! * [`harness`] drives an [`concbench_core::Experiment`]: placement, setup, warm-up and
//!   calibration, interleaved repetitions with resource counters, teardown — and returns raw
//!   samples ([`concbench_core::Outcome`]) for the analysis layer to summarise.
//! * [`clock`] is the sample timer and the timestamps experiments may take for per-worker times.
//! * [`usage`] reads getrusage and `/proc/<pid>` counters; [`tree`] sums them (and PSS) over a
//!   process tree, such as a server and its workers.
//! * [`idle`] reads the CPUs' idle states and their entries across a sample; [`awake`] holds
//!   CPUs out of deep idle (and always lets go); [`tuning`] reads every setting that bends the
//!   figures, for `concbench check`.
//! * [`host`] collects the machine's facts and confounders; [`machine_id`] its stable id.
//! * [`memory`] reads what a process tree holds (PSS, RSS, commit charge) from `/proc`.
//! * [`cgroup`] reads this process's control groups (v1 and v2) and the limits they set, and
//!   makes the cells `run --cpus` and `capacity` run in.
//! * [`headroom`] says how many more tasks, maps and KiB the limits allow, before big batches.
//! * [`isolate`] runs each variant in a fresh worker process, so no experiment inherits another's
//!   threads, heap or children, and a crash is a recorded failure instead of the end of the run.
//! * [`signals`] turns Ctrl-C, SIGTERM and SIGHUP into a [`concbench_core::CancelToken`] (and
//!   a second one into the end of the process and its whole tree); [`journal`] undoes the
//!   sysfs changes of a process killed before its destructors ran.
//! * [`perf`] reads hardware counters and scheduler tracepoints, when the machine allows.
//! * [`topology`] classifies CPU pairs (SMT siblings, shared cache, other CCD or socket) and
//!   [`cpus`] picks the pairs cross-CPU variants run on.

pub mod awake;
pub mod build_id;
pub mod calibrate;
pub mod cgroup;
pub mod clock;
pub mod cpus;
#[cfg(test)]
mod forked_check;
pub mod harness;
pub mod headroom;
pub mod host;
pub mod idle;
pub mod isolate;
pub mod journal;
pub mod machine_id;
pub mod memory;
pub mod perf;
pub mod signals;
pub mod topology;
pub mod tree;
pub mod tuning;
pub mod usage;

pub use harness::{
    effective_placement, recorded_params, Harness, HarnessConfig, HarnessEvent, PinMode,
};
