//! Family `probes`: the same questions asked of other runtimes — Go, Java (platform and virtual
//! threads), Python (threading, multiprocessing, asyncio), C and C# on Mono (the seed articles'
//! own programs). The same probes also serve seed S2's servers (`server` family) and seed S4's
//! Java reader (`io.read.java`).
//!
//! Each runtime has one small program under `probes/<runtime>/` in the repository, compiled into
//! concbench as source, built on first use and cached ([`build`]). A probe speaks JSON lines on
//! stdin/stdout ([`protocol`], docs/PROBE_PROTOCOL.md): the harness asks for N operations of an
//! experiment, the probe runs and times its own loop and answers ns per operation and the
//! resource usage it read. A missing toolchain skips its variants with a reason ([`toolchain`]).

pub mod build;
mod experiment;
pub(crate) mod process;
pub mod protocol;
pub mod swoole;
pub mod toolchain;
pub mod variants;

pub use experiment::ProbeExperiment;

/// The `info` of a variant that runs another runtime: its version, when the runtime told it.
pub(crate) fn runtime_info(version: Option<&str>) -> std::collections::BTreeMap<String, String> {
    version
        .map(|v| ("runtime_version".to_string(), v.to_string()))
        .into_iter()
        .collect()
}

use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    variants::all()
        .into_iter()
        .map(|v| Box::new(ProbeExperiment::new(v)) as Box<dyn Experiment>)
        .collect()
}
