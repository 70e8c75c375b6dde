//! concbench's probes: the same questions asked of other runtimes — Go, Java, Python, C, C# on
//! Mono, PHP and Swoole — through one small program per runtime.
//!
//! Each runtime has one program under `probes/<runtime>/` in the repository, compiled into
//! concbench as source, built on first use and cached ([`build`]; Swoole's extension:
//! [`swoole`]). A probe speaks JSON lines on stdin/stdout ([`protocol`],
//! docs/PROBE_PROTOCOL.md) through a [`process::ProbeProcess`]: the harness asks for N operations
//! of an experiment, the probe runs and times its own loop and answers ns per operation and the
//! resource usage it read. A missing toolchain skips its variants with a reason ([`toolchain`]).
//!
//! The experiments that use probes (the `probes` family, seed S2's servers, seed S4's Java
//! reader) live in `concbench-experiments`; this crate knows no experiment.

pub mod build;
pub mod process;
pub mod protocol;
pub mod swoole;
pub mod toolchain;

/// The `info` of a variant that runs another runtime: its version, when the runtime told it.
pub fn runtime_info(version: Option<&str>) -> std::collections::BTreeMap<String, String> {
    version
        .map(|v| ("runtime_version".to_string(), v.to_string()))
        .into_iter()
        .collect()
}
