//! Links the `concbench` binary as a position-dependent executable (`-no-pie`) on Linux/glibc.
//!
//! Why: `create.fork` measures fork + `_exit` + `waitpid` from the worker process, and a fork
//! copies the page-table entries of every private page the parent dirtied. A PIE binary is
//! relocated at load time: the dynamic loader writes its relative relocations into the binary's
//! RELRO segment (`.data.rel.ro`, the GOT), dirtying some 500 KiB of it, about half of a fresh
//! worker's anonymous memory, and every fork then copies their entries. Linked `-no-pie`, the
//! image is loaded where it was linked, those pages stay clean file pages, and the worker forks
//! from about the shape of a small C program (docs/FIDELITY.md, "fork").
//!
//! What is given up: address-space randomisation of the binary's own image (shared libraries,
//! the heap and the stacks stay randomised). concbench is a benchmark run by its user, not a
//! server facing input from others.
//!
//! Only where it links: Linux with glibc (`cc` accepts `-no-pie` there, and the Rust objects,
//! compiled position-independent, link into a fixed-address executable). `-bins` limits it to
//! the `concbench` binary (and its unit-test harness); integration tests and other crates keep
//! the target's default. `tests/cli.rs` checks the binary's ELF type.
//!
//! `CONCBENCH_PIE=1` at build time keeps the default (a PIE): for whoever wants the image
//! randomised, and to measure what the choice changes (`bench/fidelity/fork_ab.py`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CONCBENCH_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let pie = std::env::var_os("CONCBENCH_PIE").is_some_and(|v| v == "1");
    if os == "linux" && env == "gnu" && !pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
