//! Family `probes`: the same questions asked of other runtimes — Go, Java (platform and virtual
//! threads), Python (threading, multiprocessing, asyncio), C and C# on Mono (the seed articles'
//! own programs). The same probes also serve seed S2's servers (`server` family) and seed S4's
//! Java reader (`io.read.java`).
//!
//! The probe subsystem (toolchains, the build cache, the protocol, the running probe) is the
//! `concbench-probes` crate; this family holds what makes its probes experiments: the variants
//! ([`variants`]) and the [`ProbeExperiment`] that asks a probe for N operations of one.

mod experiment;
pub mod variants;

pub use experiment::ProbeExperiment;

use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    variants::all()
        .into_iter()
        .map(|v| Box::new(ProbeExperiment::new(v)) as Box<dyn Experiment>)
        .collect()
}
