//! Family `probes`: the same questions asked of other runtimes — Go, Java (platform and virtual
//! threads), Python (threading, multiprocessing, asyncio) and C (the seed articles' own programs).
//!
//! Each runtime has one small program under `probes/<runtime>/` in the repository, compiled into
//! concbench as source, built on first use and cached ([`build`]). A probe speaks JSON lines on
//! stdin/stdout ([`protocol`], docs/PROBE_PROTOCOL.md): the harness asks for N operations of an
//! experiment, the probe runs and times its own loop and answers ns per operation and the
//! resource usage it read. A missing toolchain skips its variants with a reason ([`toolchain`]).

pub mod build;
mod experiment;
mod process;
pub mod protocol;
pub mod toolchain;
pub mod variants;

pub use experiment::ProbeExperiment;

use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    variants::all()
        .into_iter()
        .map(|v| Box::new(ProbeExperiment::new(v)) as Box<dyn Experiment>)
        .collect()
}
